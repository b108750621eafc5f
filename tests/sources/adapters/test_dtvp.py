"""DTVP's public CPV list through the cosinex adapter, against a local HTTP server and the real Fetcher.

The pages in ``tests/data/portals/dtvp`` are CONSTRUCTED from a public client's description of the
live site (README there). No database; ``DtvpSite`` is also used by ``test_dtvp_runs.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kernel.network import BackoffPolicy, Blocked, Fetcher, FetchPolicy
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import FetchedBatch, SourceConfig
from sources.adapters.cosinex import CosinexAdapter
from sources.adapters.dtvp import parse_detail_page, parse_list_page
from sources.adapters.html import parse_html
from sources.adapters.yields import LayoutChanged
from tests.fixtures.network import loopback_resolver
from tests.sources.adapters.test_netserver import page_response

DATA = Path(__file__).resolve().parents[2] / "data" / "portals" / "dtvp"
CENTER = DATA.parent / "cosinex" / "center"
CATEGORY = "it-dienste-beratung-software-entwicklung-internet-und-hilfestellung-72000000-5"
OTHER = "dienstleistungen-von-ingenieurbueros-71300000-1"
HUMBOLDT = "CXP4Y9PRGS5"  # real: linked by the legacy DÖE eForms fixture
SAP = "CXP7SAPHCM2"
CPLACE = "CXP2CPLACE5"  # only on its detail page
SERVER = "CXS4SRVHP9Q"
DETAILS = {
    "enterprise-architecture-management-cxp4y9prgs5": "detail_enterprise-architecture-management.html",
    "CXP7SAPHCM2": "detail_sap.html",
    "unterstuetzung-durch-cplace-softwareentwickler": "detail_cplace.html",
    "server-hp-cxs4srvhp9q": "detail_server-hp.html",
}
NOW = datetime(2022, 4, 20, 8, 0, tzinfo=BERLIN)


class DtvpSite:
    """DTVP's WordPress list and detail pages, answering from the constructed pages."""

    def __init__(self, httpserver: HTTPServer) -> None:
        self.server = httpserver
        self.hits: list[str] = []
        self.pages: dict[str, str] = {
            f"/ausschreibungen/cpv/{CATEGORY}/": "category_72000000-5_page1.html",
            f"/ausschreibungen/cpv/{CATEGORY}/page/2/": "category_72000000-5_page2.html",
            f"/ausschreibungen/cpv/{OTHER}/": "category_empty.html",
            **{f"/ausschreibung/{slug}/": file for slug, file in DETAILS.items()},
        }
        self.answers: dict[str, Callable[[Request], Response]] = {}
        httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
        httpserver.expect_request(re.compile(r"^/(ausschreibung|Center).*$")).respond_with_handler(self._handle)

    def settings(self, **overrides: object) -> dict[str, object]:
        return {
            "base_url": self.server.url_for("/Center"),
            "allowed_hosts": ["localhost"],
            "list_source": "dtvp_public",
            "public_list_url": self.server.url_for("/ausschreibungen/cpv"),
            "public_categories": [CATEGORY],
            **overrides,
        }

    def details_read(self) -> list[str]:
        return [path for path in self.hits if path.startswith("/ausschreibung/")]

    def _handle(self, request: Request) -> Response:
        self.hits.append(request.path)
        if request.path in self.answers:
            return self.answers[request.path](request)
        if request.path.startswith("/Center/"):  # the Center's search page, without a token for us
            return Response((CENTER / "search_page_without_token.html").read_bytes(), content_type="text/html")
        file = self.pages.get(request.path)
        if file is None:
            return Response("<html><body><h1>Seite nicht gefunden</h1></body></html>", status=404)
        return page_response(request, (DATA / file).read_bytes())


@pytest.fixture
def site(httpserver: HTTPServer) -> DtvpSite:
    return DtvpSite(httpserver)


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    policy = FetchPolicy(
        allowed_hosts=frozenset({"localhost"}),
        allow_loopback=True,
        min_delay_seconds=0,
        jitter_seconds=0,
        backoff=BackoffPolicy(base_seconds=1.0, cap_seconds=60.0, max_attempts=1),
    )
    with Fetcher(policy, sleep=lambda s: None, resolver=loopback_resolver) as client:
        yield client


def fetch(site: DtvpSite, fetcher, **settings: object) -> list[FetchedBatch]:
    config = SourceConfig(key="dtvp", adapter="cosinex", settings=site.settings(**settings))
    return list(CosinexAdapter().fetch(config=config, fetcher=fetcher, now=NOW))


def records(batches: list[FetchedBatch]) -> dict:
    return {record.source_notice_id: record for batch in batches for record in batch.records}


def page(name: str):
    return parse_html((DATA / name).read_bytes(), label=name)


# -- parsing (pure) ---------------------------------------------------------------------------------


def test_a_list_page_gives_one_row_per_entry_with_title_buyer_procedure_deadline_and_cx_id() -> None:
    url = f"https://dtvp.de/ausschreibungen/cpv/{CATEGORY}/"
    listing = parse_list_page(page("category_72000000-5_page1.html"), page_url=url, label="page 1")
    rows = {row.post_id: row for row in listing.rows}
    assert list(rows) == ["48211", "48207", "48190"]
    humboldt = rows["48211"]
    assert humboldt.project_id == HUMBOLDT  # the end of the lower-case slug, upper case
    assert humboldt.title == "Enterprise Architecture Management"
    assert humboldt.buyer_name == "Stiftung Humboldt Forum im Berliner Schloss"
    assert humboldt.procedure == "Offenes Verfahren (VgV)"
    assert humboldt.submission_deadline == datetime(2022, 5, 16, 12, 0, tzinfo=BERLIN)
    assert humboldt.place == "Berlin"
    assert humboldt.url == "https://dtvp.de/ausschreibung/enterprise-architecture-management-cxp4y9prgs5/"
    sap = rows["48207"]
    assert (sap.project_id, sap.buyer_name) == (SAP, "Verwaltungs-Berufsgenossenschaft (VBG) - Hauptverwaltung Hamburg")
    assert sap.submission_deadline == datetime(2022, 5, 2, 23, 59, tzinfo=BERLIN)  # a day alone: the whole day
    assert rows["48190"].project_id == ""  # the link names no CX id: its detail page must
    assert rows["48190"].buyer_name == "Kassenärztliche Vereinigung Bayerns"
    # The blurred teaser and the registration card are counted apart, not rejected (no drift).
    assert listing.skipped == ("blurred teaser (members only)", "teaser without a notice link")
    assert listing.rejected == () and listing.has_next


def test_the_last_page_has_no_next_and_a_deadline_without_a_date_is_none() -> None:
    listing = parse_list_page(page("category_72000000-5_page2.html"), page_url="https://dtvp.de/x/", label="p2")
    [row] = listing.rows
    assert (row.project_id, row.submission_deadline, listing.has_next) == (SERVER, None, False)


def test_a_detail_page_gives_description_cpv_deadline_procedure_buyer_and_place() -> None:
    detail = parse_detail_page(page("detail_cplace.html"), page_url="https://dtvp.de/ausschreibung/x/")
    assert detail is not None
    assert detail.title == "Unterstützung durch cplace Softwareentwickler"
    assert detail.description.startswith("Unterstützung der Projektorganisation durch zwei Softwareentwickler")
    assert detail.cpv_codes == ("72212000",)
    assert detail.submission_deadline == datetime(2022, 5, 9, 10, 0, tzinfo=BERLIN)
    assert detail.procedure == "Öffentliche Ausschreibung (UVgO)"
    assert detail.buyer_name == "Kassenärztliche Vereinigung Bayerns"
    assert (detail.place, detail.postal_code, detail.town) == ("80687 München", "80687", "München")
    assert detail.project_id == CPLACE


def test_a_page_of_another_markup_is_no_detail_page() -> None:
    assert parse_detail_page(page("category_changed_layout.html"), page_url="https://dtvp.de/x/") is None


# -- fetching -------------------------------------------------------------------------------------


def test_the_public_list_is_paged_to_its_last_page_with_detail_pages(site, fetcher) -> None:
    batches = fetch(site, fetcher)
    assert [batch.scope for batch in batches] == ["DTVP CPV 72000000-5 page 1", "DTVP CPV 72000000-5 page 2"]
    found = records(batches)
    assert set(found) == {HUMBOLDT, SAP, CPLACE, SERVER}
    humboldt = found[HUMBOLDT]
    assert humboldt.origin == Origin.PORTAL_DETAIL
    assert humboldt.portal_references == (f"cosinex:{HUMBOLDT}",)
    assert humboldt.url == site.server.url_for("/ausschreibung/enterprise-architecture-management-cxp4y9prgs5/")
    assert (humboldt.procedure_type, humboldt.legal_basis) == ("open", "vgv")
    assert humboldt.cpv_codes == ("72266000",)
    assert (humboldt.postal_code, humboldt.town, humboldt.country) == ("10178", "Berlin", "DEU")
    assert humboldt.description.startswith("Beratung und Unterstützung")
    # The detail page's deadline (with its time) wins over the row's day.
    assert found[SAP].submission_deadline == datetime(2022, 5, 2, 14, 0, tzinfo=BERLIN)
    assert found[CPLACE].portal_references == (f"cosinex:{CPLACE}",)
    assert found[CPLACE].legal_basis == "uvgo" and found[CPLACE].procedure_type == "public_tender"
    # The blurred entry is neither fetched nor recorded; it is counted on its page and named in missing.
    assert "/ausschreibung/senior-projektleiter-windows-client-cxp9winclt7/" not in site.hits
    report = batches[0].yields[0]
    assert (report.layout, report.rows_seen, report.parsed) == ("articles", 3, 3)
    assert report.skipped == {"blurred teaser (members only)": 1, "teaser without a notice link": 1}
    assert report.as_json()["skipped"] == {"blurred teaser (members only)": 1, "teaser without a notice link": 1}
    assert any("1 blurred teaser entries skipped" in line for line in batches[0].missing)
    assert batches[1].missing == ()


def test_paging_stops_at_max_pages_and_names_what_was_left(site, fetcher) -> None:
    batches = fetch(site, fetcher, max_pages=1)
    assert len(batches) == 1
    assert f"/ausschreibungen/cpv/{CATEGORY}/page/2/" not in site.hits
    assert any("stopped at max_pages=1" in line for line in batches[0].missing)
    assert SERVER not in records(batches)


def test_without_a_detail_budget_rows_with_a_cx_id_are_recorded_and_the_others_wait(site, fetcher) -> None:
    batches = fetch(site, fetcher, max_details=0)
    found = records(batches)
    assert set(found) == {HUMBOLDT, SAP, SERVER}
    assert all(record.origin == Origin.PORTAL_LIST for record in found.values())
    assert found[SAP].submission_deadline == datetime(2022, 5, 2, 23, 59, tzinfo=BERLIN)
    assert site.details_read() == []
    assert batches[0].yields[0].details_pending == 1  # the cplace entry: no id until its page is read
    assert any("wait for their detail page" in line for line in batches[0].missing)


def test_a_page_of_another_layout_is_recorded_for_its_category_and_the_run_goes_on(site, fetcher) -> None:
    site.pages[f"/ausschreibungen/cpv/{OTHER}/"] = "category_changed_layout.html"
    batches = fetch(site, fetcher, public_categories=[OTHER, CATEGORY])
    first = batches[0]
    assert first.scope == "DTVP CPV 71300000-1"
    assert first.yields[0].layout == "unknown" and first.sample is not None
    assert "Layout geändert" in first.missing[0]
    assert HUMBOLDT in records(batches)  # the next category was read


def test_when_no_category_can_be_read_the_run_is_a_changed_layout(site, fetcher) -> None:
    site.pages[f"/ausschreibungen/cpv/{CATEGORY}/"] = "category_changed_layout.html"
    with pytest.raises(LayoutChanged) as caught:
        fetch(site, fetcher)
    assert "article[role=article]" in str(caught.value)


def test_a_category_that_says_nothing_found_is_empty_not_a_changed_layout(site, fetcher) -> None:
    [batch] = fetch(site, fetcher, public_categories=[OTHER])
    assert batch.records == () and batch.yields[0].layout == "empty" and batch.missing == ()


def test_a_login_redirect_blocks_the_run(site, fetcher) -> None:
    site.answers[f"/ausschreibungen/cpv/{CATEGORY}/"] = lambda request: Response(
        status=302, headers={"Location": "/ausschreibungen/login/"}
    )
    site.pages["/ausschreibungen/login/"] = "category_empty.html"
    with pytest.raises(Blocked):
        fetch(site, fetcher)


def test_the_center_search_stays_available_as_list_source_portal(site, fetcher) -> None:
    from sources.adapters.cosinex.center import BrowserOnly

    with pytest.raises(BrowserOnly) as caught:  # no token for us: blocked with its reason, as before
        fetch(site, fetcher, list_source="portal")
    assert "no search token" in str(caught.value)
    assert not any(path.startswith("/ausschreibungen/") for path in site.hits)
