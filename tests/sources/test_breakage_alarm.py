"""Breakage alarm: a scheduled run far below its recent median is flagged, shown, and harms nothing.

A portal that silently breaks (a filter stops matching, a page shows fewer rows) still
answers 200 with a result table, so no wall is detected. The alarm compares the run's
yield with the median of the last successful scheduled runs.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from kernel.network import Fetcher
from sources.models import FetchRun, FetchRunStatus, Source
from sources.selectors import source_health_list
from sources.services import source_poll
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory
from tests.sources.adapters.test_netserver import NetServerSite


@pytest.fixture
def tender24(db, httpserver) -> Source:
    site = NetServerSite(httpserver)
    source = Source.objects.get(key="tender24")
    source.settings = site.settings()
    source.save()
    return source


def history(source: Source, *fetched: int, not_modified: int = 0) -> None:
    """Earlier successful scheduled runs, oldest first."""
    start = timezone.now() - timedelta(days=len(fetched) + 1)
    FetchRun.objects.bulk_create(
        [
            FetchRun(
                source=source,
                started_at=start + timedelta(days=i),
                finished_at=start + timedelta(days=i, minutes=5),
                status=FetchRunStatus.SUCCEEDED,
                trigger="schedule",
                fetched=count,
                not_modified=not_modified,
            )
            for i, count in enumerate(fetched)
        ]
    )


def poll(source: Source, *, trigger: str = "schedule", **overrides) -> FetchRun:
    return source_poll(
        source_id=source.pk,
        trigger=trigger,
        settings_overrides=overrides or None,
        fetcher_factory=lambda policy: Fetcher(policy, sleep=lambda s: None),
    ).run


def test_a_scheduled_run_with_zero_rows_is_flagged_and_shown_in_source_health(tender24) -> None:
    history(tender24, 40, 50, 45)
    run = poll(tender24, categories=["PriorInformation"])  # the portal's "nothing found" page
    assert run.status == FetchRunStatus.SUCCEEDED and run.fetched == 0
    assert run.low_yield is True
    health = source_health_list().get(key="tender24")
    assert health.last_run_low_yield is True
    assert health.last_run_status == FetchRunStatus.SUCCEEDED


def test_far_fewer_rows_than_the_median_is_flagged_but_a_normal_yield_is_not(tender24) -> None:
    history(tender24, 40, 50, 45)
    assert poll(tender24).low_yield is True  # 5 rows against a median of 45
    FetchRun.objects.all().delete()
    history(tender24, 5, 6, 4)
    assert poll(tender24).low_yield is False
    assert source_health_list().get(key="tender24").last_run_low_yield is False


def test_no_alarm_without_enough_history_or_for_manual_runs(tender24) -> None:
    history(tender24, 40, 50)
    assert poll(tender24, categories=["PriorInformation"]).low_yield is False
    history(tender24, 45)
    assert poll(tender24, trigger="manual", categories=["PriorInformation"]).low_yield is False


def test_runs_answered_not_modified_are_neither_judged_nor_counted(tender24) -> None:
    history(tender24, 40, 50, 45)
    first = poll(tender24, trigger="manual")  # remembers the validators
    assert first.status == FetchRunStatus.SUCCEEDED
    second = poll(tender24)
    assert (second.fetched, second.not_modified, second.low_yield) == (0, 3, False)
    # Runs with not-modified pages do not pull the median down either.
    history(tender24, 0, 0, 0, not_modified=3)
    assert poll(tender24, categories=["PriorInformation"]).low_yield is True


def test_a_low_yield_run_never_marks_tenders_withdrawn(tender24) -> None:
    deadline = timezone.now() + timedelta(days=30)
    records = [NoticeRecordFactory(source="tender24", submission_deadline=deadline) for _ in range(3)]
    notices_ingest(records=records, use_fingerprint=False)
    before = list(Tender.objects.order_by("id").values_list("id", "status", "sources__last_seen_at"))
    history(tender24, 40, 50, 45)
    run = poll(tender24, categories=["PriorInformation"])
    assert run.low_yield is True
    after = list(Tender.objects.order_by("id").values_list("id", "status", "sources__last_seen_at"))
    assert after == before and {status for _, status, _ in after} == {"active"}
    assert Tender.objects.filter(sources__source="tender24").count() == 3
