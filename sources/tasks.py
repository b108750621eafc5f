"""Celery edges for sources: parse ids, call one service."""

from __future__ import annotations

from celery import shared_task


@shared_task(
    name="sources.poll_source",
    bind=True,
    acks_late=True,
    autoretry_for=(ConnectionError,),
    retry_backoff=30,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=5,
)
def source_poll_task(self, source_id: int) -> int:
    """One run of one source. Source-level failures are recorded on the FetchRun, not raised."""
    from sources.services import source_poll

    return source_poll(source_id=source_id, trigger="schedule").run.pk


@shared_task(name="sources.poll_source_now", acks_late=True)
def source_poll_now_task(source_id: int, run_id: int | None = None) -> int:
    from sources.services import source_poll

    return source_poll(source_id=source_id, trigger="manual", run_id=run_id).run.pk


@shared_task(name="sources.fail_stuck_runs", acks_late=True)
def fetch_runs_fail_stuck_task() -> int:
    from sources.services import fetch_runs_fail_stuck

    return fetch_runs_fail_stuck()
