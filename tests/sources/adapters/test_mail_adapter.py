"""The "mail" adapter: `manage.py ingest mail --file alert.eml` through the real ingest path."""

from __future__ import annotations

from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

from django.core.management import call_command

from sources.adapters.base import SourceConfig
from sources.adapters.mail import MailAdapter
from sources.models import FetchRun, Source
from sources.registry import get_adapter
from tenders.models import Tender, TenderSource, TenderVersion
from tenders.services import notices_ingest
from tests.factories.records import LEGACY_EFORMS, eforms_record

MAIL = Path(__file__).resolve().parents[2] / "data" / "portals" / "mail"
TENDER24_OID = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"


def test_registered_and_fetch_yields_nothing():
    assert get_adapter("mail") is MailAdapter
    config = SourceConfig(key="mail", adapter="mail", settings={})
    assert list(MailAdapter().fetch(config=config, fetcher=None, now=datetime.now(UTC))) == []


def test_notices_take_the_key_of_the_source_that_polls_their_host():
    """The adapter reads no Source rows: the caller hands it the mapping (``SourceConfig.host_sources``)."""
    path = MAIL / "tender24_daily_alert_iso-8859-1_qp.eml"
    seeded = SourceConfig(key="mail", adapter="mail", settings={})
    (batch,) = MailAdapter().parse_files(config=seeded, paths=[path])
    assert _source_of(batch, TENDER24_OID) == "tender24"
    renamed = SourceConfig(key="mail", adapter="mail", settings={}, host_sources={"tender24.de": "tender24-neu"})
    (batch,) = MailAdapter().parse_files(config=renamed, paths=[path])
    assert _source_of(batch, TENDER24_OID) == "tender24-neu"


def _source_of(batch, notice_id: str) -> str:
    (record,) = [record for record in batch.records if record.source_notice_id == notice_id]
    return record.source


def test_a_source_row_naming_a_host_claims_its_mail_notices(db):
    Source.objects.create(
        key="tender24-neu", name="Tender24 (neu)", adapter="netserver", settings={"base_url": "https://www.tender24.de"}
    )
    Source.objects.filter(key="tender24").update(settings={})
    _ingest(MAIL / "tender24_daily_alert_iso-8859-1_qp.eml")
    assert TenderSource.objects.filter(source="tender24-neu", source_notice_id=TENDER24_OID).exists()


def test_ingest_command_reads_an_eml_file(db):
    out = StringIO()
    call_command("ingest", "mail", "--file", str(MAIL / "tender24_daily_alert_iso-8859-1_qp.eml"), stdout=out)
    assert "partial: fetched 3, new 3" in out.getvalue()  # partial: one deadline is no date
    # The operator's own file is trusted (no sender/authentication check), and the command says so.
    assert "mail: trusted: mail files given by the operator are ingested without the provenance check" in (
        out.getvalue()
    )
    run = FetchRun.objects.get(source__key="mail")
    assert run.trigger == "file" and run.failed == 1
    road = Tender.objects.get(sources__source="tender24", sources__source_notice_id=TENDER24_OID)
    assert road.title == "Straßenbau - Erneuerung der Fahrbahndecke der Kreisstraße K 12"
    assert f"netserver:{TENDER24_OID}" in road.portal_references


def test_a_folder_of_mails_reports_unparsed_and_ignored_as_problems(db):
    run = FetchRun.objects.get(pk=_ingest(MAIL).pk)
    assert run.fetched == 3 + 3 + 2
    unparsed = [p for p in run.problems if ": unparsed: " in p]
    ignored = [p for p in run.problems if ": ignored: " in p]
    assert [p.split(":")[0] for p in unparsed] == ["broken_mime.eml"]
    assert [p.split(":")[0] for p in ignored] == ["newsletter_not_an_alert.eml"]


def test_mail_notices_link_to_the_doe_tenders_of_the_same_procedures(db):
    netserver_doe = eforms_record()
    cosinex_doe = eforms_record(LEGACY_EFORMS)
    notices_ingest(records=[netserver_doe, cosinex_doe], use_fingerprint=False)
    before = Tender.objects.count()
    _ingest(MAIL / "tender24_daily_alert_iso-8859-1_qp.eml")
    _ingest(MAIL / "dtvp_alert_html_only.eml")
    assert Tender.objects.count() == before + 2 + 2  # the two notices no DÖE record names
    doe_tender = TenderSource.objects.get(source="doe", source_notice_id=netserver_doe.source_notice_id).tender
    assert TenderSource.objects.get(source="tender24", source_notice_id=TENDER24_OID).tender == doe_tender
    cosinex_tender = TenderSource.objects.get(source="doe", source_notice_id=cosinex_doe.source_notice_id).tender
    assert TenderSource.objects.get(source="dtvp", source_notice_id="CXP4Y9PRGS5").tender == cosinex_tender
    # The DÖE notice keeps deciding the title: a mail record only fills gaps.
    doe_tender.refresh_from_db()
    assert doe_tender.title == netserver_doe.title


def test_the_portal_record_supersedes_the_mail_record_of_the_same_notice(db):
    _ingest(MAIL / "dtvp_alert_html_only.eml")
    mail_version = TenderVersion.objects.get(source="dtvp", source_notice_id="CXP4Y9PRGS5")
    assert mail_version.version == "00"
    portal = eforms_record(LEGACY_EFORMS, source="dtvp").replace(source_notice_id="CXP4Y9PRGS5", version="01")
    notices_ingest(records=[portal], use_fingerprint=False)
    tender = TenderSource.objects.get(source="dtvp", source_notice_id="CXP4Y9PRGS5").tender
    assert tender.title == portal.title and tender.buyer_name == portal.buyer_name
    # A later alert about the same notice is stored but does not override the portal's record.
    _ingest(MAIL / "dtvp_alert_html_only.eml")
    tender.refresh_from_db()
    assert tender.title == portal.title
    assert TenderVersion.objects.filter(source="dtvp", source_notice_id="CXP4Y9PRGS5").count() == 2


def _ingest(path: Path) -> FetchRun:
    from sources.services import source_ingest_files

    assert Source.objects.filter(key="mail").exists()
    return source_ingest_files(source_key="mail", paths=[path]).run
