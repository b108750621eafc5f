"""The demo's notices: the shipped real sample (merging, history) and the live path against a local DÖE/TED API."""

from __future__ import annotations

import io
import zipfile
from datetime import date, datetime
from pathlib import Path

import pytest
from tqdm import tqdm

from kernel.network import Fetcher
from kernel.vocabulary.time_zone import BERLIN
from sources.demo import DEMO_DATA, DEMO_FILES, demo_live_load, demo_sample_load, demo_window, doe_unreachable_reason
from sources.models import FetchRun, Source
from tenders.models import Tender, TenderSource, TenderVersion
from tests.fixtures.network import free_loopback_port

DATA = Path(__file__).resolve().parents[1] / "data"
NOW = datetime(2026, 9, 15, 9, 0, tzinfo=BERLIN)  # 2026-09-14 is the newest closed day
SPEC = DATA / "doe" / "oeffentlichevergabe_opendata_openapi.json"
ZIP_TYPES = {  # the MIME types the OpenData API spec names for each format
    "ocds.zip": "application/vnd.bekanntmachungsservice.ocds.zip+zip",
    "eforms.zip": "application/vnd.bekanntmachungsservice.eforms.zip+zip",
}


def _empty_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w"):
        pass
    return buffer.getvalue()


def _no_sleep(policy):
    return Fetcher(policy, sleep=lambda seconds: None)


def test_every_shipped_file_exists_and_is_described():
    readme = (DEMO_DATA / "README.md").read_text()
    for _source, names in DEMO_FILES:
        for name in names:
            assert (DEMO_DATA / name).is_file()
            assert name in readme


@pytest.mark.django_db
def test_the_sample_shows_a_merged_tender_with_its_history():
    load = demo_sample_load()
    assert load.mode == "offline" and load.sample_day == date(2026, 9, 14)
    assert set(load.tender_ids) == set(Tender.objects.values_list("pk", flat=True))
    tender = Tender.objects.get(procedure_id="4805c409-5939-4be9-8abd-837f7a5fee23")  # the eForms SDK pair
    rules = set(TenderSource.objects.filter(tender=tender).values_list("merge_rule", flat=True))
    # The change notice joined the contract notice it changes (same ContractFolderID, which is tried first).
    assert rules == {"new", "procedure_id"}
    versions = list(TenderVersion.objects.filter(tender=tender).order_by("published_at").values_list("kind", flat=True))
    assert versions == ["contract_notice", "cancellation"]
    assert tender.status == "cancelled"
    again = demo_sample_load()  # idempotent
    assert again.tender_ids == load.tender_ids


@pytest.mark.django_db
def test_the_sample_shows_a_german_tender_from_doe_and_ted_as_one(alpha_client):
    """One real procedure of the Wasserstraßen- und Schifffahrtsamt Main, as DÖE and as TED published it."""
    load = demo_sample_load()
    german_two_sources = [
        tender
        for tender in Tender.objects.filter(pk__in=load.tender_ids).exclude(bundesland="")
        if set(TenderSource.objects.filter(tender=tender).values_list("source", flat=True)) == {"doe", "ted"}
    ]
    assert len(german_two_sources) == 1
    tender = german_two_sources[0]
    assert tender.title == "Grundinstandsetzung Hellinganlage am Bauhof Würzburg"
    assert (tender.bundesland, tender.procedure_id) == ("Bayern", "1af86e3c-411f-4c2e-aacc-ecac61717472")
    rules = dict(TenderSource.objects.filter(tender=tender).values_list("source", "merge_rule"))
    assert rules == {"doe": "new", "ted": "procedure_id"}  # TED's notice joined DÖE's by the procedure id
    # Real dates, kept: published 1 June 2026 on both, tenders due 6 July 2026 10:59 (Berlin).
    published = set(TenderVersion.objects.filter(tender=tender).values_list("published_at", flat=True))
    assert {day.astimezone(BERLIN).date() for day in published} == {date(2026, 6, 1)}
    assert tender.submission_deadline.astimezone(BERLIN) == datetime(2026, 7, 6, 10, 59, tzinfo=BERLIN)
    page = alpha_client.get(f"/ausschreibung/{tender.pk}/").content.decode()
    assert "gleiche Verfahrens-ID" in page
    assert "TED – Tenders Electronic Daily (API v3)" in page and "DÖE – Bekanntmachungsservice" in page


@pytest.mark.django_db
def test_the_sample_is_in_the_suggestion_vocabulary_at_once():
    from tenders.suggestions import query_suggestion

    demo_sample_load()
    # The demo's "Bewachung Henning-von-Tresckow-Kaserne" title: a typo is answered the first day, not the next.
    assert query_suggestion(q="Bewachnug") == "bewachung"


@pytest.fixture
def doe_and_ted(httpserver):
    """A local server speaking the DÖE OpenData API (GET /api/notice-exports) and TED's search API."""
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n", content_type="text/plain")
    for export_format, content_type in ZIP_TYPES.items():
        httpserver.expect_request(
            "/api/notice-exports", query_string={"pubDay": "2026-09-14", "format": export_format}
        ).respond_with_data(
            (DATA / "doe" / "exports" / f"2026-09-14_{export_format}").read_bytes(), content_type=content_type
        )
    # Every other day of the window: the spec promises a ZIP, empty when nothing was published.
    httpserver.expect_request("/api/notice-exports").respond_with_data(_empty_zip(), content_type="application/zip")
    pages = [(DATA / "ted" / "api" / name).read_bytes() for name in ("page1.json", "page2.json")]
    httpserver.expect_oneshot_request("/v3/notices/search", method="POST").respond_with_data(
        pages[0], content_type="application/json"
    )
    httpserver.expect_oneshot_request("/v3/notices/search", method="POST").respond_with_data(
        pages[1], content_type="application/json"
    )
    hosts = ["localhost", "127.0.0.1"]
    Source.objects.filter(key="doe").update(
        settings={"base_url": httpserver.url_for("/").rstrip("/"), "allowed_hosts": hosts}
    )
    Source.objects.filter(key="ted").update(
        settings={"api_url": httpserver.url_for("/v3/notices/search"), "allowed_hosts": hosts}
    )
    return httpserver


def test_the_api_spec_is_the_shape_served():
    import json

    operation = json.loads(SPEC.read_text())["paths"]["/api/notice-exports"]["get"]
    names = {parameter["name"] for parameter in operation["parameters"]}
    assert {"pubDay", "format"} <= names
    for export_format, content_type in ZIP_TYPES.items():  # the MIME types the local server answers with
        assert f"format: `{export_format}`, MIME type: `{content_type}`" in operation["description"]


@pytest.mark.django_db
def test_live_load_fetches_the_closed_days_of_doe_and_the_ted_window_with_progress(doe_and_ted):
    assert doe_unreachable_reason() == ""
    bars: list[tqdm] = []

    def progress(**kwargs):
        bar = tqdm(file=io.StringIO(), **kwargs)
        bars.append(bar)
        return bar

    load = demo_live_load(days=3, now=NOW, progress=progress, fetcher_factory=_no_sleep)
    assert load.mode == "live" and (load.first_day, load.last_day) == (date(2026, 9, 12), date(2026, 9, 14))
    assert demo_window(days=3, now=NOW) == (date(2026, 9, 12), date(2026, 9, 14))
    runs = list(FetchRun.objects.filter(pk__in=load.run_ids).select_related("source").order_by("pk"))
    assert [(r.source.key, r.trigger, r.status) for r in runs] == [
        ("doe", "backfill", "succeeded"),
        ("doe", "backfill", "succeeded"),
        ("doe", "backfill", "succeeded"),
        ("ted", "backfill", "succeeded"),
    ]
    requested_days = [
        request.args.get("pubDay") for request, _response in doe_and_ted.log if request.path == "/api/notice-exports"
    ]
    assert sorted(set(requested_days)) == ["2026-09-12", "2026-09-13", "2026-09-14"]
    assert [(bar.desc, bar.n) for bar in bars] == [("DÖE", 3), ("TED", 2)]
    sources = set(TenderSource.objects.filter(tender_id__in=load.tender_ids).values_list("source", flat=True))
    assert sources == {"doe", "ted"}
    assert len(load.tender_ids) == Tender.objects.count() == 8  # 6 DÖE + 2 TED notices, none lost


@pytest.mark.django_db
def test_an_unreachable_doe_host_is_reported_quickly():
    port = free_loopback_port()  # nothing listens there
    Source.objects.filter(key="doe").update(
        settings={"base_url": f"http://127.0.0.1:{port}", "allowed_hosts": ["127.0.0.1"]}
    )
    reason = doe_unreachable_reason(timeout_seconds=1)
    assert reason and "127.0.0.1" in reason


@pytest.mark.django_db
def test_the_sample_holds_a_real_german_change_notice():
    """DÖE's second version of the VG Mansfelder Grund - Helbra's prior information: a change, with its real date."""
    load = demo_sample_load()
    tender = Tender.objects.get(pk__in=load.tender_ids, sources__source_notice_id__istartswith="3e5ce20f")
    assert (tender.buyer_name, tender.bundesland) == ("Verbandsgemeinde Mansfelder Grund - Helbra", "Sachsen-Anhalt")
    [version] = TenderVersion.objects.filter(tender=tender)
    assert (version.kind, version.version) == ("change", "02")
    assert version.published_at.astimezone(BERLIN).year == 2023
