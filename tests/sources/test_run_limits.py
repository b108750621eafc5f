"""Operations of source runs: time limits per queue, one run per source, stuck runs swept (real worker processes)."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from werkzeug import Response

from config.celery import app as celery_app
from config.celery import queue_of
from sources.models import FetchRun, FetchRunStatus, Source
from sources.services import fetch_runs_fail_stuck, source_ingest_files
from tests.notifications.alerts.helpers import wait_for

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "doe" / "exports"


def test_every_task_carries_the_time_limits_of_its_queue(settings):
    from notifications.tasks.alerts import match_pending_deltas, send_due_deliveries
    from sources.tasks import source_poll_task
    from tenders.tasks import deltas_dispatch_task

    limits = settings.CELERY_QUEUE_TIME_LIMITS
    for task in (source_poll_task, deltas_dispatch_task, match_pending_deltas, send_due_deliveries):
        assert (task.soft_time_limit, task.time_limit) == limits[queue_of(task.name)], task.name
    assert queue_of("tenders.dispatch_deltas") == "match" and queue_of("tenders.expire_tenders") == "ingest"


@pytest.mark.django_db
def test_a_second_run_of_a_running_source_is_skipped_and_moves_nothing():
    source = Source.objects.get(key="doe")
    source.cursor = {"last_day": "2026-09-13"}
    source.save()
    running = FetchRun.objects.create(source=source, started_at=timezone.now(), trigger="schedule")

    outcome = source_ingest_files(source_key="doe", paths=[EXPORTS / "2026-09-14_ocds.zip"])
    assert outcome.run.status == FetchRunStatus.SKIPPED and outcome.run.error_reason == "overlap"
    assert str(running.pk) in outcome.run.error
    assert outcome.run.fetched == 0
    source.refresh_from_db()
    assert source.cursor == {"last_day": "2026-09-13"}

    FetchRun.objects.filter(pk=running.pk).update(status=FetchRunStatus.SUCCEEDED)
    assert source_ingest_files(source_key="doe", paths=[EXPORTS / "2026-09-14_ocds.zip"]).run.status == "succeeded"


@pytest.mark.django_db
def test_only_runs_older_than_the_limit_are_swept(settings):
    settings.SOURCES_RUN_STUCK_SECONDS = 600
    now = timezone.now()
    old = FetchRun.objects.create(source=Source.objects.get(key="doe"), started_at=now - timedelta(seconds=601))
    fresh = FetchRun.objects.create(source=Source.objects.get(key="ted"), started_at=now - timedelta(seconds=60))
    assert fetch_runs_fail_stuck(now=now) == 1
    old.refresh_from_db()
    fresh.refresh_from_db()
    assert (old.status, old.error_reason, old.finished_at) == ("failed", "stuck", now)
    assert fresh.status == "running"
    assert fetch_runs_fail_stuck(now=now) == 0


def _slow_portal(httpserver, seconds: float):
    def slow(request):
        time.sleep(seconds)
        return Response("", status=404)

    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/api/notice-exports").respond_with_handler(slow)


def _doe_at(httpserver) -> Source:
    source = Source.objects.get(key="doe")
    source.settings = {"base_url": httpserver.url_for("/").rstrip("/"), "allowed_hosts": ["localhost", "127.0.0.1"]}
    source.cursor = {"last_day": "2026-09-13"}
    source.politeness_seconds = 0.1
    source.save()
    return source


@pytest.mark.usefixtures("committed")
def test_a_run_hitting_the_soft_time_limit_is_recorded_as_failed(processes, httpserver):
    _slow_portal(httpserver, seconds=8)
    source = _doe_at(httpserver)
    processes.worker(queues="ingest")
    # The limits travel in the message (a sender's task options win over the worker's), as from beat.
    celery_app.send_task("sources.poll_source", args=[source.pk], soft_time_limit=2, time_limit=60)
    run = wait_for(lambda: FetchRun.objects.filter(source=source).exclude(status="running").first(), what="run end")
    assert (run.status, run.error_reason) == ("failed", "time_limit")


@pytest.mark.usefixtures("committed")
def test_a_run_whose_worker_died_stays_running_until_the_sweep_fails_it(processes, httpserver, settings):
    """What the hard time limit does to a run (its process is killed): nobody can record the end."""
    _slow_portal(httpserver, seconds=8)
    source = _doe_at(httpserver)
    worker = processes.worker(queues="ingest")
    celery_app.send_task("sources.poll_source", args=[source.pk])
    run = wait_for(lambda: FetchRun.objects.filter(source=source).first(), what="run start")
    worker.kill()
    time.sleep(0.5)
    run.refresh_from_db()
    assert run.status == "running"
    assert source_ingest_files(source_key="doe", paths=[EXPORTS / "2026-09-14_ocds.zip"]).run.status == "skipped"

    settings.SOURCES_RUN_STUCK_SECONDS = 600
    assert fetch_runs_fail_stuck() == 0  # not yet past the limit
    assert fetch_runs_fail_stuck(now=run.started_at + timedelta(seconds=601)) == 1
    run.refresh_from_db()
    assert (run.status, run.error_reason) == ("failed", "stuck")
    assert source_ingest_files(source_key="doe", paths=[EXPORTS / "2026-09-14_ocds.zip"]).run.status == "succeeded"
