"""Celery edges for sources: parse ids, call one service. Platform tasks: the public schema."""

from __future__ import annotations

from config.task_policy import public_task


@public_task(name="sources.poll_source", bind=True, autoretry_for=(ConnectionError,))
def source_poll_task(self, source_id: int) -> int:
    """One run of one source. Source-level failures are recorded on the FetchRun, not raised."""
    from sources.services import source_poll

    return source_poll(source_id=source_id, trigger="schedule").run.pk


@public_task(name="sources.poll_source_now")
def source_poll_now_task(source_id: int, run_id: int | None = None) -> int:
    from sources.services import source_poll

    return source_poll(source_id=source_id, trigger="manual", run_id=run_id).run.pk


@public_task(name="sources.fail_stuck_runs", refused=0)
def fetch_runs_fail_stuck_task() -> int:
    from sources.services import fetch_runs_fail_stuck

    return fetch_runs_fail_stuck()


@public_task(name="sources.fetch_portal_page")
def portal_page_request_fetch_task(request_id: int) -> str:
    """One tender's page, requested because an alert mail pointed at it; the outcome is on the request."""
    from sources.tender_pages import portal_page_request_fetch

    request = portal_page_request_fetch(request_id=request_id)
    return request.status if request is not None else "done"


@public_task(name="sources.sweep_portal_page_requests", refused=0)
def portal_page_requests_sweep_task() -> int:
    from sources.tender_pages import portal_page_requests_sweep

    return portal_page_requests_sweep()


@public_task(name="sources.send_operator_digest", refused=0)
def operator_digest_send_task() -> int:
    """Hourly; sends the operators' digest once per Berlin day (the service decides whether it is due)."""
    from sources.operator_digest import operator_digest_send

    return 1 if operator_digest_send() is not None else 0
