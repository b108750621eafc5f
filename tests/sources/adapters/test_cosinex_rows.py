"""cosinex list rows of every shape: four-cell rows of closed procedures are read, and every row that
gives no notice is a known layout row or a rejected row with its reason — none is dropped unseen.

The CONSTRUCTED pages ``list_award_rows_cp1252.html`` and ``list_odd_rows_cp1252.html`` in
``tests/data/portals/cosinex/satellite`` (README there) are served by the Satellite test host of
``test_cosinex_satellite.py`` through the real Fetcher.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from werkzeug import Response

from kernel.network import BackoffPolicy, Fetcher, FetchPolicy
from kernel.records import NoticeKind
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.cosinex import parse_list_page
from sources.adapters.html import parse_html
from sources.models import FetchRunStatus, Source
from tenders.models import TenderSource
from tests.fixtures.network import loopback_resolver
from tests.sources.adapters.test_cosinex_satellite import DATA, SatelliteSite, by_id, fetch, poll

AWARD_ROWS = DATA / "list_award_rows_cp1252.html"
ODD_ROWS = DATA / "list_odd_rows_cp1252.html"
BASE = "https://www.vergabe.metropoleruhr.de/VMPSatellite"
NO_LINK = "no project link (/notice/CX… or projectForwarding.do?pid=…)"
ODD_REASONS = {
    "4 cells without an award type": 1,
    NO_LINK: 1,
    "3 cells: no known row shape": 1,
    "Frist cell neither a date nor 'nv'": 1,
}


@pytest.fixture
def site(httpserver) -> SatelliteSite:
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


def parsed(path):
    page = parse_html(path.read_bytes(), content_type="text/html; charset=ISO-8859-1")
    return parse_list_page(page, base_url=BASE, page_url=f"{BASE}/company/welcome.do", label=path.name)


def serve(site, path) -> None:
    body = path.read_bytes()
    site.answers[("list", "1")] = lambda request: Response(body, content_type="text/html; charset=ISO-8859-1")


def test_four_cell_rows_of_awards_and_cancellations_are_read() -> None:
    listing = parsed(AWARD_ROWS)
    rows = {row.project_id: row for row in listing.rows}
    assert list(rows) == ["73003", "73004", "73005"]
    award, cancelled = rows["73004"], rows["73005"]
    assert (award.title, award.notice_type, award.buyer_name) == (
        "Winterdienst 2022/2023",
        "VgV Vergebener Auftrag",
        "Emschergenossenschaft",
    )
    assert award.published_at == datetime(2022, 4, 8, 0, 0, tzinfo=BERLIN)
    assert award.submission_deadline is None and not award.is_cx
    assert award.url == f"{BASE}/public/company/projectForwarding.do?pid=73004"
    assert cancelled.title == "Sanierung Turnhalle Nord – Dachabdichtung"  # windows-1252 en dash
    assert cancelled.published_at == datetime(2022, 4, 6, 14, 15, tzinfo=BERLIN)  # abbr[title] wins
    # The five-cell row beside them is read as before; header, spacer and pager are layout rows.
    assert rows["73003"].submission_deadline == datetime(2022, 5, 20, 23, 59, tzinfo=BERLIN)
    report = listing.page_yield("p")
    assert (report.rows_seen, report.parsed, dict(report.rejected)) == (3, 3, {})
    assert listing.problems == ()


def test_rows_of_no_known_shape_are_rejected_with_their_reason_never_dropped() -> None:
    listing = parsed(ODD_ROWS)
    assert [row.project_id for row in listing.rows] == ["73001", "73004"]
    report = listing.page_yield("p")
    assert (report.rows_seen, report.parsed) == (6, 2)  # header and pager are not result rows
    assert dict(report.rejected) == ODD_REASONS
    problems = "\n".join(listing.problems)
    assert "row 4: project 73006: 4 cells without an award type (Typ 'VgV Ausschreibung'); skipped" in problems
    assert f"row 5: {NO_LINK}; skipped" in problems
    assert "row 6: project 73007: 3 cells: no known row shape" in problems
    assert "row 7: project 73008: Frist cell neither a date nor 'nv' ('Reinigung Hallenbad Ost')" in problems


def test_award_rows_get_their_project_pages_like_every_pid_row(site, fetcher) -> None:
    serve(site, AWARD_ROWS)
    batches = fetch(site, fetcher)
    assert site.requested("forward") == ["73003", "73004", "73005"]
    records = by_id(batches)
    award, cancelled = records["73004"], records["73005"]
    assert (award.kind, award.status, award.submission_deadline) == (NoticeKind.AWARD, "awarded", None)
    assert award.portal_references == ("cosinex:CXUC9D4E5F6G",) and award.origin is Origin.PORTAL_DETAIL
    assert award.url == f"{site.base_url}/notice/CXUC9D4E5F6G"
    assert (cancelled.kind, cancelled.status) == (NoticeKind.CANCELLATION, "cancelled")
    assert cancelled.portal_references == ("cosinex:CXUD1E6F7G8H",) and cancelled.cpv_codes == ("45261420",)
    assert [(y.rows_seen, y.parsed, dict(y.rejected)) for b in batches for y in b.yields] == [(3, 3, {})]


def test_without_project_pages_award_rows_are_recorded_from_the_row(site, fetcher) -> None:
    serve(site, AWARD_ROWS)
    records = by_id(fetch(site, fetcher, max_details=0))
    award = records["73004"]
    assert (award.kind, award.status, award.origin) == (NoticeKind.AWARD, "awarded", Origin.PORTAL_LIST)
    assert award.published_at == datetime(2022, 4, 8, 0, 0, tzinfo=BERLIN) and award.portal_references == ()


def source_on(site, path) -> Source:
    serve(site, path)
    source = Source.objects.get(key="vergabe-metropoleruhr")
    source.settings = site.settings()
    source.save()
    return source


def test_a_list_with_award_rows_loses_none_of_them(db, site) -> None:
    run = poll(source_on(site, AWARD_ROWS))
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    [report] = run.yield_report
    assert (report["rows_seen"], report["parsed"], report["rejected"]) == (3, 3, {})
    assert run.fetched == 3 and not run.problems
    statuses = dict(
        TenderSource.objects.filter(source="vergabe-metropoleruhr").values_list("source_notice_id", "tender__status")
    )
    assert statuses == {"73003": "expired", "73004": "awarded", "73005": "cancelled"}  # 73003's deadline is past


def test_rejected_rows_are_counted_with_their_reasons_on_the_run(db, site) -> None:
    run = poll(source_on(site, ODD_ROWS))
    # Four of six rows rejected: more than the run's limit, so the run says the markup changed.
    assert (run.status, run.error_reason) == (FetchRunStatus.BLOCKED, "changed_layout")
    assert "4 von 6 Ergebniszeilen abgelehnt" in run.error
    [report] = run.yield_report
    assert (report["rows_seen"], report["parsed"], report["rejected"]) == (6, 2, ODD_REASONS)
    assert run.sample_page is not None
    # What could be read is kept.
    recorded = set(
        TenderSource.objects.filter(source="vergabe-metropoleruhr").values_list("source_notice_id", flat=True)
    )
    assert recorded == {"73001", "73004"}
