"""What ``/health/`` reports, read for the view: database, broker, workers per queue, beat's last tick,
the oldest ingest delta not yet matched by every tenant, the oldest due mail and the uncertain mails.

Reads only, across the apps (hence in config's top layer); the views in ``config.health`` stay thin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.utils import timezone


def database_ping() -> None:
    """Raises when the database does not answer."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


@dataclass
class HealthReport:
    checks: dict[str, dict] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(check["ok"] for check in self.checks.values())

    def add(self, name: str, ok: bool, **details) -> None:
        self.checks[name] = {"ok": bool(ok), **details}


def _age(moment: datetime | None, now: datetime) -> float | None:
    return None if moment is None else round(max(0.0, (now - moment).total_seconds()), 1)


def _check_database(report: HealthReport) -> bool:
    try:
        database_ping()
    except Exception as exc:
        report.add("database", False, error=type(exc).__name__)
        return False
    report.add("database", True)
    return True


def _check_broker_and_workers(report: HealthReport) -> None:
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
    except Exception as exc:
        report.add("broker", False, error=type(exc).__name__)
        report.add("workers", False, error="broker unreachable")
        return
    report.add("broker", True)
    replies = app.control.inspect(timeout=settings.HEALTH_WORKER_REPLY_SECONDS).active_queues() or {}
    per_queue = {queue: 0 for queue in settings.HEALTH_QUEUES}
    for queues in replies.values():
        for queue in {q.get("name") for q in queues or ()}:
            if queue in per_queue:
                per_queue[queue] += 1
    report.add("workers", all(per_queue.values()), per_queue=per_queue)


def health_report(*, now: datetime | None = None) -> HealthReport:
    now = now or timezone.now()
    report = HealthReport()
    if _check_database(report):
        from notifications.alerts.selectors import outbox_health_all_tenants
        from sources.selectors import heartbeat_at
        from tenders.handoff import deltas_oldest_pending_age

        beat_age = _age(heartbeat_at(name="beat"), now)
        limit = settings.HEALTH_BEAT_MAX_AGE_SECONDS
        report.add("beat", beat_age is not None and beat_age <= limit, age_seconds=beat_age, limit_seconds=limit)

        delta_age = deltas_oldest_pending_age(now=now)
        delta_seconds = None if delta_age is None else round(delta_age.total_seconds(), 1)
        limit = settings.HEALTH_DELTA_MAX_AGE_SECONDS
        report.add(
            "oldest_pending_delta",
            delta_seconds is None or delta_seconds <= limit,
            age_seconds=delta_seconds,
            limit_seconds=limit,
        )

        outbox = outbox_health_all_tenants(now=now)
        due_age = _age(outbox.oldest_due_at, now)
        limit = settings.HEALTH_DELIVERY_MAX_AGE_SECONDS
        report.add("oldest_due_delivery", due_age is None or due_age <= limit, age_seconds=due_age, limit_seconds=limit)
        # Informational: an uncertain mail needs a person, but it is not an outage.
        report.add("uncertain_deliveries", True, count=outbox.uncertain)
    _check_broker_and_workers(report)
    return report
