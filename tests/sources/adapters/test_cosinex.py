"""cosinex adapter against a local HTTP server and the real Fetcher, with the constructed pages.

The pages in ``tests/data/portals/cosinex`` are CONSTRUCTED from the documented structure
(see the README there); the open-data ZIP holds a real legacy DÖE eForms notice. No database
(the conditional test uses an in-memory cache). ``CosinexSite`` is also used by
``test_cosinex_runs.py``.
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

from kernel.network import BackoffPolicy, Blocked, Fetcher, FetchError, FetchPolicy
from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import AdapterError, FetchedBatch, SourceConfig
from sources.adapters.cosinex import CosinexAdapter, notice_kind
from sources.conditional import ConditionalCache, ConditionalFetcher
from sources.registry import get_adapter, validate_source_settings
from tests.fixtures.network import loopback_resolver
from tests.sources.adapters.test_netserver import page_response

DATA = Path(__file__).resolve().parents[2] / "data" / "portals" / "cosinex"
LIST_PAGES = {"1": "list_page1_cp1252.html", "2": "list_page2_utf8.html"}
FLENSBURG = "CXS7YY6YTM1SY43C"
PIRMASENS = "CXP6Z2H4LKQ"
MURNAU = "CXQ2W8E5R7T"
NEUKOELLN = "CXR3T9Y6U1I"
HUMBOLDT = "CXP4Y9PRGS5"  # real: linked by the legacy DÖE eForms fixture
PAGE_1_IDS = [FLENSBURG, PIRMASENS, "51020", MURNAU]
NOW = datetime(2023, 9, 8, 8, 0, tzinfo=BERLIN)


class CosinexSite:
    """A cosinex Vergabemarktplatz under ``/Satellite`` answering from the constructed pages."""

    def __init__(self, httpserver: HTTPServer, *, robots: str = "User-agent: *\nAllow: /\n") -> None:
        self.server = httpserver
        self.hits: list[tuple[str, str, dict[str, str]]] = []
        self.answers: dict[tuple[str, str], Callable[[Request], Response]] = {}
        httpserver.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
        httpserver.expect_request(re.compile(r"^/Satellite/.*$")).respond_with_handler(self._handle)

    @property
    def base_url(self) -> str:
        return self.server.url_for("/Satellite")

    def settings(self, **overrides: object) -> dict[str, object]:
        # Rows only: the project pages behind pid rows are tested with the Satellite pages
        # (test_cosinex_satellite.py); this site has none.
        return {"base_url": self.base_url, "allowed_hosts": ["localhost", "127.0.0.1"], "max_details": 0, **overrides}

    def answer(self, kind: str, key: str, handler: Callable[[Request], Response]) -> None:
        self.answers[(kind, key)] = handler

    def requested(self, kind: str) -> list[str]:
        return [key for hit_kind, key, _ in self.hits if hit_kind == kind]

    def _handle(self, request: Request) -> Response:
        path = request.path
        if path == "/Satellite/company/welcome.do":
            kind, key = "list", request.args.get("selectedTablePagePROJECT_RESULT", "1")
            file = LIST_PAGES.get(key, "list_empty.html")
        elif path == "/Satellite/company/announcements/categoryOverview.do":
            kind, key = "category", request.args.get("cpvCode", "")
            file = LIST_PAGES["2"] if key == "72000000-5" else "list_empty.html"
        elif path == "/Satellite/opendata":
            kind, key, file = "opendata", "", "opendata_eforms.zip"
        elif "openid-connect" in path:
            kind, key, file = "login", "", "login.html"
        else:
            return Response("not found", status=404)
        self.hits.append((kind, key, dict(request.headers)))
        if (kind, key) in self.answers:
            return self.answers[(kind, key)](request)
        body = (DATA / file).read_bytes()
        if kind == "opendata":
            return (
                Response(body, content_type="application/zip", headers={"ETag": '"export-1"'})
                if (request.headers.get("If-None-Match") != '"export-1"')
                else Response(status=304, headers={"ETag": '"export-1"'})
            )
        return page_response(request, body)


@pytest.fixture
def site(httpserver: HTTPServer) -> CosinexSite:
    return CosinexSite(httpserver)


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


def fetch(site: CosinexSite, fetcher, **settings: object) -> list[FetchedBatch]:
    config = SourceConfig(key="dtvp", adapter="cosinex", settings=site.settings(**settings))
    return list(CosinexAdapter().fetch(config=config, fetcher=fetcher, now=NOW))


def by_id(batches: list[FetchedBatch]) -> dict[str, NoticeRecord]:
    return {record.source_notice_id: record for batch in batches for record in batch.records}


# -- settings ------------------------------------------------------------------------------------


def test_the_migrated_dtvp_source_validates_unchanged() -> None:
    from importlib import import_module

    [row] = [r for r in import_module("sources.migrations.0004_portal_sources").PORTALS if r["adapter"] == "cosinex"]
    settings = validate_source_settings(adapter="cosinex", settings=row["settings"])
    assert settings == {
        "base_url": "https://www.dtvp.de/Satellite",
        "max_pages": 10,
        "max_bytes": 50 * 2**20,
        "max_details": 100,
        # On DTVP the public CPV list is read by default (sources.adapters.dtvp, tests in test_dtvp.py).
        "list_source": "auto",
        "public_list_url": "https://dtvp.de/ausschreibungen/cpv",
        "public_categories": settings["public_categories"],
    }
    assert CosinexAdapter.allowed_hosts(SourceConfig("dtvp", "cosinex", settings)) == frozenset(
        {"www.dtvp.de", "dtvp.de"}
    )
    assert get_adapter("cosinex") is CosinexAdapter


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"base_url": "https://www.dtvp.de/Other"}, "muss auf eines von"),
        ({"base_url": "https://dtvp.example.org/Satellite"}, "nicht erlaubt"),
        (
            {"base_url": "https://www.dtvp.de/Satellite", "opendata_url": "https://elsewhere.example/x.zip"},
            "opendata_url: Host",
        ),
        ({"base_url": "https://www.dtvp.de/Satellite", "cpv_codes": ["72000000"]}, "cpv_codes muss"),
        ({"base_url": "https://www.dtvp.de/Satellite", "token": "x"}, "Unbekannte cosinex-Einstellung"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_message(settings: dict, message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        CosinexAdapter.validate_settings(settings)
    assert any(message in text for text in caught.value.messages)


# -- the announcement list -----------------------------------------------------------------------


def test_the_newest_list_is_read_page_by_page_up_to_the_page_count(site, fetcher) -> None:
    batches = fetch(site, fetcher)
    assert site.requested("list") == ["1", "2"]
    assert [b.scope for b in batches] == ["page 1", "page 2"]
    assert list(by_id(batches)) == [*PAGE_1_IDS, NEUKOELLN, HUMBOLDT]
    assert all(not b.missing and not b.problems for b in batches)


def test_list_fields(site, fetcher) -> None:
    records = by_id(fetch(site, fetcher))
    flensburg = records[FLENSBURG]
    assert flensburg.source == "dtvp" and flensburg.kind is NoticeKind.CONTRACT_NOTICE
    assert flensburg.title == "Schwarzenbachtal - Freianlagen, Kampfmittelsondierung"
    assert flensburg.buyer_name == "Stadt Flensburg - Zentrale Vergabestelle"
    assert flensburg.published_at == datetime(2023, 9, 7, 10, 15, tzinfo=BERLIN)  # from abbr[title]
    assert flensburg.submission_deadline == datetime(2023, 9, 28, 10, 0, tzinfo=BERLIN)
    assert flensburg.portal_references == (f"cosinex:{FLENSBURG}",)
    assert flensburg.url == f"{site.base_url}/notice/{FLENSBURG}"
    assert flensburg.payload["rule"] == "VOB/A" and flensburg.payload["type"] == "VOB/A Ausschreibung"
    # A deadline without time of day counts until the end of that day.
    assert records[PIRMASENS].submission_deadline == datetime(2023, 9, 25, 23, 59, tzinfo=BERLIN)
    assert records[PIRMASENS].buyer_name == "Städtisches Krankenhaus Pirmasens"
    murnau = records[MURNAU]
    assert (murnau.kind, murnau.status, murnau.submission_deadline) == (NoticeKind.AWARD, "awarded", None)
    forwarded = records["51020"]
    assert forwarded.portal_references == () and forwarded.title == "Jahresabschlussprüfungen"
    assert forwarded.url == f"{site.base_url}/public/company/projectForwarding.do?pid=51020"
    assert forwarded.buyer_name.endswith("St.d.ö.R.")
    for record in records.values():
        assert "\ufffd" not in record.title + record.buyer_name


@pytest.mark.parametrize(
    ("notice_type", "kind"),
    [
        ("VgV Vergebener Auftrag", NoticeKind.AWARD),
        ("UVgO Vergabeergebnis", NoticeKind.AWARD),
        ("VOB/A Aufhebung", NoticeKind.CANCELLATION),
        ("VgV Vorinformation", NoticeKind.PRIOR_INFORMATION),
        ("VgV Beabsichtigte Ausschreibung", NoticeKind.PRIOR_INFORMATION),
        ("Geplante Ausschreibung", NoticeKind.PRIOR_INFORMATION),
        ("ExAnte", NoticeKind.PRIOR_INFORMATION),  # publication types of the Center JSON search
        ("ExPost", NoticeKind.AWARD),
        ("Tender", NoticeKind.CONTRACT_NOTICE),
        ("VOB/A Ausschreibung", NoticeKind.CONTRACT_NOTICE),
        ("SektVO TNW", NoticeKind.CONTRACT_NOTICE),
    ],
)
def test_the_type_cell_decides_the_kind(notice_type: str, kind: NoticeKind) -> None:
    assert notice_kind(notice_type) is kind


def test_max_pages_stops_with_a_missing_entry(site, fetcher) -> None:
    batches = fetch(site, fetcher, max_pages=1)
    assert site.requested("list") == ["1"]
    assert "max_pages=1" in batches[-1].missing[0] and "page 2" in batches[-1].missing[0]


def test_a_failing_later_page_goes_to_missing(site, fetcher) -> None:
    site.answer("list", "2", lambda request: Response("down", status=502))
    batches = fetch(site, fetcher)
    assert list(by_id(batches)) == PAGE_1_IDS
    missing = [m for b in batches for m in b.missing]
    assert len(missing) == 1 and "selectedTablePagePROJECT_RESULT=2" in missing[0]
    assert site.requested("list") == ["1", "2", "2"]  # the page count says there is no page 3


def test_a_failing_first_page_fails_the_run(site, fetcher) -> None:
    site.answer("list", "1", lambda request: Response("down", status=503))
    with pytest.raises(FetchError):
        fetch(site, fetcher)


def test_a_redirect_to_the_identity_provider_is_blocked(site, fetcher) -> None:
    target = "/Satellite/auth/realms/dtvp/protocol/openid-connect/auth?client_id=satellite"
    site.answer("list", "1", lambda request: Response(status=302, headers={"Location": target}))
    with pytest.raises(Blocked) as caught:
        fetch(site, fetcher)
    assert caught.value.wall == "login" and "openid-connect" in caught.value.final_url


def test_a_login_form_instead_of_the_list_is_blocked(site, fetcher) -> None:
    body = (DATA / "login.html").read_bytes()
    site.answer("list", "1", lambda request: page_response(request, body))
    with pytest.raises(Blocked) as caught:
        fetch(site, fetcher)
    assert caught.value.wall == "login"


def test_the_nothing_found_page_is_zero_notices(site, fetcher) -> None:
    body = (DATA / "list_empty.html").read_bytes()
    site.answer("list", "1", lambda request: page_response(request, body))
    batches = fetch(site, fetcher)
    assert len(batches) == 1 and batches[0].records == () and not batches[0].missing


def test_a_host_that_pages_only_within_a_session_is_reported_not_looped(site, fetcher) -> None:
    body = (DATA / LIST_PAGES["1"]).read_bytes()
    site.answer("list", "2", lambda request: page_response(request, body))
    batches = fetch(site, fetcher)
    assert list(by_id(batches)) == PAGE_1_IDS
    assert "paging needs a session" in batches[-1].missing[0]
    assert site.requested("list") == ["1", "2"]


def test_cpv_categories_are_read_one_list_each(site, fetcher) -> None:
    batches = fetch(site, fetcher, cpv_codes=["72000000-5", "45000000-7"])
    # The served page says "Seite: 2 von 2" although it answers page 1: page 2 is asked, and the
    # same rows again mean this host pages only within a session.
    assert site.requested("category") == ["72000000-5", "72000000-5", "45000000-7"]
    assert list(by_id(batches)) == [NEUKOELLN, HUMBOLDT]
    assert any("paging needs a session" in m for b in batches for m in b.missing)
    site.answer("category", "72000000-5", lambda request: Response("down", status=500))
    site.answer("category", "45000000-7", lambda request: Response("down", status=500))
    with pytest.raises(FetchError):
        fetch(site, fetcher, cpv_codes=["72000000-5", "45000000-7"])


# -- the open-data export ------------------------------------------------------------------------


def test_the_open_data_export_is_read_as_eforms_instead_of_html(site, fetcher) -> None:
    [batch] = fetch(site, fetcher, opendata_url=site.server.url_for("/Satellite/opendata"))
    assert site.requested("list") == []
    [record] = batch.records
    assert (record.source, record.source_notice_id) == ("dtvp", "17750180")
    assert record.portal_references == (f"cosinex:{HUMBOLDT}",)
    assert record.title == "Enterprise Architecture Management"
    assert record.submission_deadline == datetime(2022, 5, 16, 12, 0, tzinfo=BERLIN)
    assert batch.scope == "opendata" and not batch.problems


def test_an_unchanged_export_is_not_read_again(site, fetcher) -> None:
    client = ConditionalFetcher(fetcher, ConditionalCache())
    config = SourceConfig(
        key="dtvp", adapter="cosinex", settings=site.settings(opendata_url=site.server.url_for("/Satellite/opendata"))
    )
    first = list(CosinexAdapter().fetch(config=config, fetcher=client, now=NOW))
    second = list(CosinexAdapter().fetch(config=config, fetcher=client, now=NOW))
    assert len(first[0].records) == 1
    assert (second[0].records, second[0].not_modified) == ((), 1)
    assert site.hits[-1][2].get("If-None-Match") == '"export-1"'


def test_an_export_that_is_no_zip_fails_the_run(site, fetcher) -> None:
    site.answer("opendata", "", lambda request: Response("<html>Wartung</html>", content_type="text/html"))
    with pytest.raises(AdapterError) as caught:
        fetch(site, fetcher, opendata_url=site.server.url_for("/Satellite/opendata"))
    assert caught.value.reason == "bad_zip"


# -- saved files ---------------------------------------------------------------------------------


def parse(paths: list[Path]) -> FetchedBatch:
    config = SourceConfig(key="dtvp", adapter="cosinex", settings={"base_url": "https://www.dtvp.de/Satellite"})
    [batch] = list(CosinexAdapter().parse_files(config=config, paths=paths))
    return batch


def test_a_saved_list_and_project_page_are_joined() -> None:
    batch = parse([DATA / LIST_PAGES["1"], DATA / f"project_{FLENSBURG}.html"])
    records = by_id([batch])
    assert list(records) == PAGE_1_IDS and not batch.problems
    flensburg = records[FLENSBURG]
    assert flensburg.buyer_name == "Stadt Flensburg - Zentrale Vergabestelle"  # the row wins
    assert flensburg.cpv_codes == ("45112000", "71351914")
    assert (flensburg.postal_code, flensburg.town, flensburg.bundesland) == ("24937", "Flensburg", "Schleswig-Holstein")
    assert str(flensburg.estimated_value) == "185000.00" and flensburg.currency == "EUR"
    assert flensburg.procedure_type == "public_tender"
    assert "€-Einheitspreise" in flensburg.description
    assert flensburg.url == f"https://www.dtvp.de/Satellite/notice/{FLENSBURG}"


def test_a_saved_project_page_alone_is_a_notice() -> None:
    [record] = parse([DATA / f"project_{FLENSBURG}.html"]).records
    assert record.source_notice_id == FLENSBURG and record.buyer_name == "Stadt Flensburg"
    assert record.submission_deadline == datetime(2023, 9, 28, 10, 0, tzinfo=BERLIN)


def test_saved_exports_xml_and_unknown_files(tmp_path: Path) -> None:
    legacy = (
        Path(__file__).resolve().parents[2]
        / "data"
        / "doe"
        / "eforms-sdk-0.1_cn-standard_legacy-prefixed_17750180-1.xml"
    )
    (tmp_path / "junk.html").write_text("<html><body>Wartungsarbeiten</body></html>", encoding="utf-8")
    batch = parse([DATA / "opendata_eforms.zip", legacy, tmp_path / "junk.html"])
    assert [r.source_notice_id for r in batch.records] == ["17750180", "17750180"]
    assert len(batch.problems) == 1 and "neither a cosinex announcement list nor a project page" in batch.problems[0]


def test_list_pages_report_their_yield_and_rows_without_links_are_a_changed_layout(site, fetcher) -> None:
    from sources.adapters.yields import LayoutChanged

    batches = fetch(site, fetcher)
    assert [(y.layout, y.rows_seen, y.parsed) for b in batches for y in b.yields] == [("table", 4, 4), ("table", 2, 2)]
    body = (DATA / LIST_PAGES["1"]).read_bytes()
    body = re.sub(rb'href="[^"]*(?:notice|projectForwarding)[^"]*"', b'href="#"', body)
    site.answer("list", "1", lambda request: page_response(request, body))
    with pytest.raises(LayoutChanged) as caught:
        fetch(site, fetcher)
    assert caught.value.page_yield.rejected == {"no project link (/notice/CX… or projectForwarding.do?pid=…)": 4}
