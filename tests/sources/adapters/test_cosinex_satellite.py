"""cosinex Satellite hosts: rows with only ``projectForwarding.do?pid=``, their project pages, the
detail budget across runs, paging in CPV mode, and the merge with a DÖE notice naming the CX id.

Through the real Fetcher against pytest-httpserver, with the CONSTRUCTED pages in
``tests/data/portals/cosinex/satellite`` (see the README there).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kernel.network import BackoffPolicy, Fetcher, FetchPolicy
from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import FetchedBatch, SourceConfig
from sources.adapters.cosinex import CosinexAdapter, parse_list_page, parse_project_page
from sources.adapters.html import parse_html
from sources.conditional import ConditionalCache, ConditionalFetcher
from sources.models import FetchRun, FetchRunStatus, Source
from sources.services import source_poll
from tenders.models import MergeRule, Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import LEGACY_EFORMS, eforms_record
from tests.fixtures.network import loopback_resolver
from tests.sources.adapters.test_netserver import page_response

DATA = Path(__file__).resolve().parents[2] / "data" / "portals" / "cosinex" / "satellite"
CX = {
    "73001": "CXP4Y9PRGS5",
    "73002": "CXUA7B2C3D4E",
    "73003": "CXUB8C3D4E5F",
    "73004": "CXUC9D4E5F6G",
    "73005": "CXUD1E6F7G8H",  # only on the award-rows page (test_cosinex_rows.py)
}
NOW = datetime(2022, 4, 13, 8, 0, tzinfo=BERLIN)


class SatelliteSite:
    """A Satellite host under ``/VMPSatellite`` answering from the constructed pages.

    Like the reported hosts: ``projectForwarding.do?pid=`` answers 302 to the project overview
    (404 with an empty body for an unknown pid); a category page n is only served when the request
    carries ``fromSearch=1`` and the page parameter (else page 1, as without a session).
    """

    def __init__(self, httpserver: HTTPServer) -> None:
        self.server = httpserver
        self.hits: list[tuple[str, str]] = []
        self.answers: dict[tuple[str, str], Callable[[Request], Response]] = {}
        httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
        httpserver.expect_request(re.compile(r"^/VMPSatellite/.*$")).respond_with_handler(self._handle)

    @property
    def base_url(self) -> str:
        return self.server.url_for("/VMPSatellite")

    def settings(self, **overrides: object) -> dict[str, object]:
        return {"base_url": self.base_url, "allowed_hosts": ["localhost", "127.0.0.1"], **overrides}

    def requested(self, kind: str) -> list[str]:
        return [key for hit_kind, key in self.hits if hit_kind == kind]

    def _handle(self, request: Request) -> Response:
        path, args = request.path, request.args
        page = args.get("selectedTablePagePROJECT_RESULT", "1")
        latin = "text/html; charset=ISO-8859-1"
        if path == "/VMPSatellite/company/welcome.do":
            kind, key, file = "list", page, DATA / f"list_page{page}_cp1252.html"
        elif path == "/VMPSatellite/company/announcements/categoryOverview.do":
            served = page if args.get("fromSearch") == "1" else "1"
            kind, key = "category", f"{args.get('cpvCode')}:{page}"
            file = DATA / f"category_{args.get('cpvCode')}_page{served}_cp1252.html"
        elif path == "/VMPSatellite/public/company/projectForwarding.do":
            kind, key = "forward", args.get("pid", "")
            self.hits.append((kind, key))
            if (kind, key) in self.answers:
                return self.answers[(kind, key)](request)
            if key not in CX:
                return Response(b"", status=404)
            return Response(
                status=302, headers={"Location": f"/VMPSatellite/public/company/project/{CX[key]}/de/overview"}
            )
        elif "openid-connect" in path:
            kind, key, file = "login", "", DATA.parent / "login.html"
        elif (found := re.fullmatch(r"/VMPSatellite/public/company/project/(CX\w+)/de/overview", path)) is not None:
            kind, key, file = "project", found.group(1), DATA / f"project_{found.group(1)}.html"
        else:
            return Response("not found", status=404)
        self.hits.append((kind, key))
        if (kind, key) in self.answers:
            return self.answers[(kind, key)](request)
        if not file.exists():
            return Response("not found", status=404)
        response = page_response(request, file.read_bytes())
        if response.status_code == 200:
            response.headers["Content-Type"] = latin
        return response


@pytest.fixture
def site(httpserver: HTTPServer) -> SatelliteSite:
    return SatelliteSite(httpserver)


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    policy = FetchPolicy(
        allowed_hosts=frozenset({"localhost", "127.0.0.1"}),
        allow_loopback=True,
        min_delay_seconds=0,
        jitter_seconds=0,
        backoff=BackoffPolicy(base_seconds=1.0, cap_seconds=60.0, max_attempts=2),
    )
    with Fetcher(policy, sleep=lambda s: None, resolver=loopback_resolver) as client:
        yield client


def fetch(site: SatelliteSite, client, **settings: object) -> list[FetchedBatch]:
    config = SourceConfig(key="vergabe-metropoleruhr", adapter="cosinex", settings=site.settings(**settings))
    return list(CosinexAdapter().fetch(config=config, fetcher=client, now=NOW))


def by_id(batches: list[FetchedBatch]) -> dict[str, NoticeRecord]:
    return {record.source_notice_id: record for batch in batches for record in batch.records}


# -- pid rows and their project pages ------------------------------------------------------------


def test_pid_rows_get_the_cx_id_deadline_cpv_and_documents_from_their_project_pages(site, fetcher) -> None:
    batches = fetch(site, fetcher)
    assert site.requested("list") == ["1", "2"]
    assert site.requested("forward") == ["73001", "73002", "73003", "73004"]
    records = by_id(batches)
    assert list(records) == ["73001", "73002", "73003", "73004"]
    assert all(not b.missing and not b.problems for b in batches)
    humboldt = records["73001"]
    assert humboldt.portal_references == ("cosinex:CXP4Y9PRGS5",)
    assert humboldt.url == f"{site.base_url}/notice/CXP4Y9PRGS5"
    assert humboldt.documents_url == f"{site.base_url}/public/company/project/CXP4Y9PRGS5/de/documents"
    assert humboldt.title == "Enterprise Architecture Management"
    assert humboldt.buyer_name == "Stiftung Humboldt Forum im Berliner Schloss"
    assert humboldt.cpv_codes == ("72266000", "72227000")
    assert humboldt.submission_deadline == datetime(2022, 5, 16, 12, 0, tzinfo=BERLIN)
    assert humboldt.published_at == datetime(2022, 4, 12, 9, 30, tzinfo=BERLIN)
    assert humboldt.procedure_type == "open" and humboldt.legal_basis == "vgv"
    assert humboldt.payload["pid"] == "73001" and humboldt.payload["project_id"] == "CXP4Y9PRGS5"
    # "nv" on the project page: no deadline.
    cleaning = records["73002"]
    assert cleaning.submission_deadline is None and cleaning.portal_references == ("cosinex:CXUA7B2C3D4E",)
    assert cleaning.title == "Unterhaltsreinigung städtischer Gebäude, Lose 1–3"  # windows-1252 en dash
    assert cleaning.buyer_name == "Stadt Gelsenkirchen – Zentrale Vergabestelle"
    # The row knows only the day; the project page knows the hour.
    assert records["73003"].submission_deadline == datetime(2022, 5, 20, 10, 0, tzinfo=BERLIN)
    assert records["73003"].cpv_codes == ("45316110",)
    award = records["73004"]
    assert (award.kind, award.status, award.submission_deadline) == (NoticeKind.AWARD, "awarded", None)
    assert [(y.rows_seen, y.parsed, y.details_pending) for b in batches for y in b.yields] == [(3, 3, 0), (1, 1, 0)]
    assert batches[0].requests == 4  # the list page and three project pages


def test_rows_beyond_the_detail_budget_wait_for_a_later_run_and_are_reported(site, fetcher) -> None:
    client = ConditionalFetcher(fetcher, ConditionalCache())
    first = fetch(site, client, max_details=2)
    assert list(by_id(first)) == ["73001", "73002"]  # 73003 and 73004 are not recorded without their CX id
    assert [y.details_pending for b in first for y in b.yields] == [1, 1]
    assert [y.as_json()["details_pending"] for b in first for y in b.yields] == [1, 1]
    missing = [m for b in first for m in b.missing]
    assert len(missing) == 2 and all("max_details=2" in m and "later run" in m for m in missing)

    second = fetch(site, client, max_details=2)
    # The never-read project page first; the known one is asked again and is unchanged: no record.
    assert site.requested("forward")[2:] == ["73003", "73001"]
    assert list(by_id(second)) == ["73003"]
    assert by_id(second)["73003"].portal_references == ("cosinex:CXUB8C3D4E5F",)
    assert [y.details_pending for b in second for y in b.yields] == [0, 1]

    third = fetch(site, client, max_details=2)
    # Known project pages take at most half of the budget: the row waiting on page 2 is reached.
    assert site.requested("forward")[4:] == ["73001", "73004"]
    assert list(by_id(third)) == ["73004"]
    assert by_id(third)["73004"].portal_references == ("cosinex:CXUC9D4E5F6G",)
    assert [y.details_pending for b in third for y in b.yields] == [0, 0]


def test_a_project_page_that_cannot_be_read_leaves_the_row_recorded_on_its_own(site, fetcher) -> None:
    site.answers[("forward", "73002")] = lambda request: Response("Wartung", status=500)
    records = by_id(batches := fetch(site, fetcher))
    lone = records["73002"]
    assert lone.portal_references == () and lone.title.startswith("Unterhaltsreinigung")
    assert lone.url == f"{site.base_url}/public/company/projectForwarding.do?pid=73002"
    assert records["73001"].portal_references == ("cosinex:CXP4Y9PRGS5",)
    assert any("pid=73002" in m for b in batches for m in b.missing)


def test_project_pages_behind_a_login_stop_for_the_run(site, fetcher) -> None:
    login = "/VMPSatellite/auth/realms/x/protocol/openid-connect/auth"
    site.answers[("forward", "73001")] = lambda request: Response(status=302, headers={"Location": login})
    batches = fetch(site, fetcher)
    assert site.requested("forward") == ["73001"]  # no further project page this run
    records = by_id(batches)
    assert list(records) == ["73001", "73002", "73003", "73004"]
    assert all(record.portal_references == () for record in records.values())
    assert any("login" in m for b in batches for m in b.missing)


def test_a_saved_satellite_project_page_is_read() -> None:
    page = parse_html((DATA / "project_CXUA7B2C3D4E.html").read_bytes())
    url = "https://www.vergabe.metropoleruhr.de/VMPSatellite/public/company/project/CXUA7B2C3D4E/de/overview"
    project = parse_project_page(page, page_url=url)
    assert project is not None and project.project_id == "CXUA7B2C3D4E"
    assert project.says_no_deadline and project.facts.submission_deadline is None
    assert project.facts.cpv_codes == ("90911200",)
    assert project.facts.buyer_name == "Stadt Gelsenkirchen – Zentrale Vergabestelle"
    assert project.documents_url == url.replace("overview", "documents")
    # Without the URL it was served under, the <title> names the project.
    assert parse_project_page(page).project_id == "CXUA7B2C3D4E"  # type: ignore[union-attr]


# -- paging without href, CPV mode ------------------------------------------------------------------


def test_cpv_categories_are_paged_with_from_search_although_the_pager_has_no_href(site, fetcher) -> None:
    batches = fetch(site, fetcher, cpv_codes=["72000000-5"])
    assert site.requested("category") == ["72000000-5:1", "72000000-5:2"]
    assert [b.scope for b in batches] == ["CPV 72000000-5 page 1", "CPV 72000000-5 page 2"]
    assert list(by_id(batches)) == ["73001", "73002", "73003"]
    assert all(not b.missing for b in batches)


def test_cpv_paging_stops_at_max_pages_and_names_the_pages_left_out(site, fetcher) -> None:
    batches = fetch(site, fetcher, cpv_codes=["72000000-5"], max_pages=1)
    assert site.requested("category") == ["72000000-5:1"]
    assert list(by_id(batches)) == ["73001", "73002"]
    [missing] = batches[-1].missing
    assert "max_pages=1" in missing and "CPV 72000000-5 page 2" in missing


def test_without_the_page_count_text_the_pager_targets_tell_how_far_the_list_goes() -> None:
    body = (DATA / "category_72000000-5_page1_cp1252.html").read_bytes()
    body = re.sub(rb"Seite: 1 von 2 - Gesamteintr\xe4ge: 3", b"", body)
    page = parse_html(body, content_type="text/html; charset=ISO-8859-1")
    listing = parse_list_page(page, base_url="https://h.example/VMPSatellite", page_url="https://h.example/", label="p")
    assert listing.page_count == 2 and len(listing.rows) == 2


# -- settings --------------------------------------------------------------------------------------


def test_metropole_ruhr_is_configured_with_www_and_the_bare_host_is_refused() -> None:
    from importlib import import_module

    rows = import_module("sources.migrations.0007_more_portal_sources").PORTALS
    [row] = [r for r in rows if r["key"] == "vergabe-metropoleruhr"]
    settings = CosinexAdapter.validate_settings(row["settings"])
    assert settings["base_url"] == "https://www.vergabe.metropoleruhr.de/VMPSatellite"
    with pytest.raises(ValidationError) as caught:
        CosinexAdapter.validate_settings({"base_url": "https://vergabe.metropoleruhr.de/VMPSatellite"})
    assert any("https://www.vergabe.metropoleruhr.de/" in text for text in caught.value.messages)


# -- the merge with a DÖE notice -------------------------------------------------------------------


@pytest.fixture
def metropole_ruhr(db, site) -> Source:
    source = Source.objects.get(key="vergabe-metropoleruhr")
    source.settings = site.settings()
    source.save()
    return source


def poll(source: Source) -> FetchRun:
    return source_poll(source_id=source.pk, fetcher_factory=lambda policy: Fetcher(policy, sleep=lambda s: None)).run


def test_a_doe_notice_with_the_cx_link_and_the_crawled_satellite_project_are_one_tender(metropole_ruhr) -> None:
    doe = eforms_record(LEGACY_EFORMS)
    assert doe.portal_references == ("cosinex:CXP4Y9PRGS5",)
    [created] = notices_ingest(records=[doe], use_fingerprint=False).created
    run = poll(metropole_ruhr)
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    crawled = TenderSource.objects.get(source="vergabe-metropoleruhr", source_notice_id="73001")
    assert (crawled.tender_id, crawled.merge_rule) == (created, MergeRule.PORTAL_REFERENCE)
    tender = Tender.objects.get(pk=created)
    assert sorted(tender.sources.values_list("source", flat=True)) == ["doe", "vergabe-metropoleruhr"]
    assert "cosinex:CXP4Y9PRGS5" in tender.portal_references
    assert Tender.objects.count() == 4  # three other projects
    # A second run keeps the pid identity: nothing new, still one tender with two sources.
    poll(metropole_ruhr)
    assert Tender.objects.count() == 4 and tender.sources.count() == 2


def test_the_crawled_project_first_and_the_doe_notice_later_are_one_tender_too(metropole_ruhr) -> None:
    assert poll(metropole_ruhr).status == FetchRunStatus.SUCCEEDED
    crawled = TenderSource.objects.get(source="vergabe-metropoleruhr", source_notice_id="73001")
    notices_ingest(records=[eforms_record(LEGACY_EFORMS)], use_fingerprint=False)
    doe = TenderSource.objects.get(source="doe")
    assert (doe.tender_id, doe.merge_rule) == (crawled.tender_id, MergeRule.PORTAL_REFERENCE)


def test_manage_py_ingest_file_joins_saved_pid_rows_with_their_saved_project_pages(db) -> None:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    files = [str(DATA / "list_page1_cp1252.html"), str(DATA / "project_CXP4Y9PRGS5.html")]
    call_command("ingest", "vergabe-metropoleruhr", "--file", *files, stdout=out)
    run = FetchRun.objects.get(source__key="vergabe-metropoleruhr", trigger="file")
    assert run.status == FetchRunStatus.SUCCEEDED and (run.fetched, run.new) == (3, 3)
    humboldt = TenderSource.objects.get(source="vergabe-metropoleruhr", source_notice_id="73001").tender
    assert humboldt.portal_references == ["cosinex:CXP4Y9PRGS5"]
    assert humboldt.cpv_codes == ["72266000", "72227000"]
