"""Runs of a portal source through ``source_poll``: statuses, reasons, counts, conditional requests.

The real service, the real Fetcher (SSRF guard, robots.txt, retries) and the real database;
the portal is the constructed NetServer site on the local test server (loopback is allowed
in test settings only).
"""

from __future__ import annotations

import pytest
from werkzeug import Response

from kernel.network import Fetcher
from sources.models import ConditionalCacheEntry, FetchRun, FetchRunStatus, Source
from sources.services import source_poll
from tenders.models import Tender, TenderSource
from tests.sources.adapters.test_netserver import (
    ALL_IDS,
    DATA,
    GOEPPINGEN,
    MICADO,
    RESULT_PAGES,
    NetServerSite,
    page_response,
)


@pytest.fixture
def site(httpserver) -> NetServerSite:
    return NetServerSite(httpserver)


@pytest.fixture
def tender24(db, site) -> Source:
    source = Source.objects.get(key="tender24")
    source.settings = site.settings()
    source.save()
    return source


@pytest.fixture
def sleeps() -> list[float]:
    return []


def poll(source: Source, sleeps: list[float] | None = None, **kwargs) -> FetchRun:
    waits = sleeps if sleeps is not None else []
    outcome = source_poll(
        source_id=source.pk, fetcher_factory=lambda policy: Fetcher(policy, sleep=waits.append), **kwargs
    )
    return outcome.run


def test_a_complete_run_succeeds_with_its_counts(tender24, site) -> None:
    run = poll(tender24)
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    assert (run.fetched, run.new, run.requests, run.not_modified) == (5, 5, 8, 0)
    assert run.bytes > 0 and run.scope == "InvitationToTender Start=0"
    assert set(TenderSource.objects.filter(source="tender24").values_list("source_notice_id", flat=True)) == set(
        ALL_IDS
    )


def test_a_redirect_to_a_login_page_blocks_the_run_and_names_the_final_url(tender24, site) -> None:
    site.answer("search", "0", lambda request: Response(status=302, headers={"Location": "login"}))
    run = poll(tender24)
    assert run.status == FetchRunStatus.BLOCKED
    assert run.error_reason == "blocked"
    assert f"{site.base_url}login" in run.error and "not an empty result" in run.error
    assert run.fetched == 0 and not Tender.objects.exists()


def test_a_changed_layout_blocks_the_run_instead_of_reporting_zero_tenders(tender24, site) -> None:
    body = (DATA / "changed_layout.html").read_bytes()
    site.answer("search", "0", lambda request: page_response(request, body))
    run = poll(tender24)
    assert (run.status, run.error_reason) == (FetchRunStatus.BLOCKED, "changed_layout")
    assert "Layout geändert" in run.error and "kein leeres Ergebnis" in run.error
    # The breakage alarm is raised, the page is kept for the operator, the yield report says why.
    assert run.low_yield is True
    assert bytes(run.sample_page) == body and run.sample_page_url.startswith(site.base_url)
    assert run.layout == "cards"
    assert run.yield_report == [
        {
            "page": run.sample_page_url,
            "layout": "cards",
            "rows_seen": 1,
            "parsed": 0,
            "rejected": {"no title (p.mb-3)": 1},
        }
    ]


def test_robots_txt_disallow_fails_the_run_and_the_page_is_never_requested(db, httpserver) -> None:
    site = NetServerSite(httpserver, robots="User-agent: *\nDisallow: /NetServer/\n")
    source = Source.objects.get(key="tender24")
    source.settings = site.settings()
    source.save()
    run = poll(source)
    assert (run.status, run.error_reason) == (FetchRunStatus.FAILED, "robots")
    assert "robots.txt" in run.error
    assert site.hits == []
    assert [request.path for request, _ in httpserver.log] == ["/robots.txt"]


def test_429_with_retry_after_is_waited_out_and_the_run_succeeds(tender24, site, sleeps) -> None:
    answers = iter([Response("slow down", status=429, headers={"Retry-After": "7"})])
    body = (DATA / RESULT_PAGES["0"]).read_bytes()
    site.answer("search", "0", lambda request: next(answers, None) or page_response(request, body))
    run = poll(tender24, sleeps)
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    assert 7.0 in sleeps
    assert site.requested("search")[:2] == ["0", "0"] and run.fetched == 5


def test_a_failing_page_makes_the_run_partial_with_the_page_in_missing(tender24, site) -> None:
    site.answer("search", "2", lambda request: Response("down", status=500))
    run = poll(tender24)
    assert run.status == FetchRunStatus.PARTIAL
    assert len(run.missing) == 1 and "Start=2" in run.missing[0]
    assert run.fetched == 3


def test_caps_make_the_run_partial(tender24, site) -> None:
    run = poll(tender24, settings_overrides={"max_pages": 1})
    assert run.status == FetchRunStatus.PARTIAL
    assert run.fetched == 2 and "max_pages=1" in run.missing[0]


# -- conditional requests across runs -------------------------------------------------------------


def test_a_second_run_against_unchanged_pages_costs_only_conditional_requests(tender24, site) -> None:
    first = poll(tender24)
    assert first.status == FetchRunStatus.SUCCEEDED
    assert ConditionalCacheEntry.objects.filter(source=tender24).count() == 8  # 3 result + 5 detail pages
    site.hits.clear()
    second = poll(tender24)
    assert second.status == FetchRunStatus.SUCCEEDED, second.error
    assert [(hit.kind, hit.key) for hit in site.hits] == [("search", "0"), ("search", "2"), ("search", "4")]
    assert all(hit.headers.get("If-None-Match") for hit in site.hits)
    assert (second.fetched, second.not_modified, second.requests, second.new) == (0, 3, 3, 0)
    assert not second.low_yield


def test_a_changed_result_page_refetches_only_it_and_revalidates_its_details(tender24, site) -> None:
    poll(tender24)
    changed = (DATA / RESULT_PAGES["0"]).read_bytes().replace(b"Aktuelle Ausschreibungen", b"Neue Ausschreibungen")
    site.answer("search", "0", lambda request: page_response(request, changed))
    site.hits.clear()
    run = poll(tender24)
    details = [hit for hit in site.hits if hit.kind == "detail"]
    assert [hit.key for hit in details] == [MICADO, GOEPPINGEN]
    assert all(hit.headers.get("If-None-Match") for hit in details)
    assert (run.fetched, run.not_modified) == (0, 4)  # two details, result pages Start=2 and 4


def test_a_run_that_fails_remembers_no_validators(tender24, site) -> None:
    site.answer("search", "4", lambda request: Response(status=302, headers={"Location": "login"}))
    run = poll(tender24)
    assert run.status == FetchRunStatus.BLOCKED
    assert not ConditionalCacheEntry.objects.filter(source=tender24).exists()
    # The notices of the pages read before the wall are kept all the same.
    assert TenderSource.objects.filter(source="tender24").count() == 4


def test_a_notice_whose_detail_failed_is_fetched_in_full_by_the_next_run(tender24, site) -> None:
    site.answer("detail", GOEPPINGEN, lambda request: Response("down", status=500))
    first = poll(tender24)
    assert first.status == FetchRunStatus.PARTIAL
    del site.answers[("detail", GOEPPINGEN)]
    site.hits.clear()
    second = poll(tender24)
    assert second.status == FetchRunStatus.SUCCEEDED
    search_zero = next(hit for hit in site.hits if hit.kind == "search")
    assert search_zero.key == "0" and "If-None-Match" not in search_zero.headers  # forgotten: read again
    goeppingen = [hit for hit in site.hits if hit.kind == "detail" and hit.key == GOEPPINGEN]
    assert len(goeppingen) == 1 and "If-None-Match" not in goeppingen[0].headers
    tender = TenderSource.objects.get(source="tender24", source_notice_id=GOEPPINGEN).tender
    assert tender.cpv_codes == ["45261210", "45321000"] and "Dachabdichtung" in tender.description


def test_portals_without_validators_still_skip_unchanged_pages_by_their_bytes(db, httpserver) -> None:
    site = NetServerSite(httpserver, etag=False)
    source = Source.objects.get(key="tender24")
    source.settings = site.settings()
    source.save()
    poll(source)
    site.hits.clear()
    second = poll(source)
    assert [hit.kind for hit in site.hits] == ["search", "search", "search"]
    assert (second.fetched, second.not_modified) == (0, 3)


def test_sources_without_conditional_requests_keep_no_validators(db) -> None:
    from sources.registry import get_adapter

    assert get_adapter("doe").conditional_requests is False
    assert get_adapter("netserver").conditional_requests is True
    assert get_adapter("cosinex").conditional_requests is True


@pytest.mark.parametrize(
    ("change", "reason", "expected"),
    [
        ({"adapter": "retired-portal"}, "configuration", "Unknown adapter type"),
        (
            {"settings": {"base_url": "https://www.tender24.de/NetServer/", "unknown_option": 1}},
            "invalid_settings",
            "unknown_option",
        ),
    ],
)
def test_a_source_whose_setup_is_broken_fails_its_run_with_the_reason(tender24, change, reason, expected) -> None:
    # The admin validates settings on save; a renamed adapter or an edited row can still break later.
    Source.objects.filter(pk=tender24.pk).update(**change)
    run = source_poll(source_id=tender24.pk).run
    run.refresh_from_db()
    assert (run.status, run.error_reason) == (FetchRunStatus.FAILED, reason)
    assert expected in run.error and run.finished_at is not None
    assert not FetchRun.objects.filter(status=FetchRunStatus.RUNNING).exists()
