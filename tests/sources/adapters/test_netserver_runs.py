"""NetServer notices in the tender table: cross-portal merge, stored texts, ``manage.py ingest --file``."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from kernel.network import Fetcher
from kernel.vocabulary.time_zone import BERLIN
from sources.models import FetchRun, FetchRunStatus, Source
from sources.services import source_poll
from tenders.models import MergeRule, Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import eforms_record
from tests.sources.adapters.test_netserver import DATA, GOEPPINGEN, MICADO, RESULT_PAGES, NetServerSite


@pytest.fixture
def site(httpserver) -> NetServerSite:
    return NetServerSite(httpserver)


@pytest.fixture
def tender24(db, site) -> Source:
    source = Source.objects.get(key="tender24")
    source.settings = site.settings()
    source.save()
    return source


def poll(source: Source) -> FetchRun:
    return source_poll(source_id=source.pk, fetcher_factory=lambda policy: Fetcher(policy, sleep=lambda s: None)).run


def test_the_notice_a_doe_notice_links_by_tender_oid_merges_into_the_same_tender(tender24) -> None:
    doe = eforms_record()
    assert f"netserver:{MICADO}" in doe.portal_references
    created = notices_ingest(records=[doe], use_fingerprint=False).created
    run = poll(tender24)
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    netserver = TenderSource.objects.get(source="tender24", source_notice_id=MICADO)
    assert netserver.tender_id == created[0]
    assert netserver.merge_rule == MergeRule.PORTAL_REFERENCE
    assert set(netserver.tender.sources.values_list("source", flat=True)) == {"doe", "tender24"}
    # The other four NetServer notices are tenders of their own.
    assert Tender.objects.count() == 5


def test_stored_texts_keep_umlauts_and_euro_and_never_hold_u_fffd(tender24) -> None:
    poll(tender24)
    rows = list(Tender.objects.values_list("title", "description", "buyer_name", "town"))
    assert len(rows) == 5
    assert all("\ufffd" not in value for row in rows for value in row)
    tender = TenderSource.objects.get(source="tender24", source_notice_id=GOEPPINGEN).tender
    assert tender.title == "Sanierung der Sporthalle Süd – Dachabdichtung und Wärmedämmung"
    assert tender.buyer_name == "Stadt Göppingen – Hochbauamt"
    assert "„Dachabdichtung“" in tender.description and "€" in tender.description
    assert tender.submission_deadline.astimezone(BERLIN).strftime("%d.%m.%Y %H:%M") == "06.10.2026 10:30"
    assert tender.procedure_type == "public_tender" and tender.bundesland == "Baden-Württemberg"
    assert tender.cpv_codes == ["45261210", "45321000"] and str(tender.estimated_value) == "480000.00"


def test_manage_py_ingest_file_reads_saved_pages_through_the_same_path(db) -> None:
    out = StringIO()
    call_command(
        "ingest", "tender24", "--file", str(DATA / RESULT_PAGES["0"]), str(DATA / f"detail_{MICADO}.html"), stdout=out
    )
    run = FetchRun.objects.get(source__key="tender24", trigger="file")
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    assert (run.fetched, run.new) == (2, 2)
    assert "tender24" in out.getvalue() and "succeeded" in out.getvalue()
    micado = TenderSource.objects.get(source="tender24", source_notice_id=MICADO)
    assert micado.url.startswith("https://www.tender24.de/NetServer/PublicationControllerServlet?")
    assert micado.tender.cpv_codes == ["38433000"]


def test_the_same_saved_page_twice_changes_nothing(db) -> None:
    path = str(DATA / RESULT_PAGES["2"])
    call_command("ingest", "tender24", "--file", path, stdout=StringIO())
    call_command("ingest", "tender24", "--file", path, stdout=StringIO())
    second = FetchRun.objects.filter(source__key="tender24", trigger="file").order_by("-started_at").first()
    assert (second.new, second.changed, second.unchanged) == (0, 0, 2)
    assert Tender.objects.count() == 2
