"""What the operators' readiness view reports: database, broker, workers per queue, beat's last tick,
the oldest ingest delta not yet matched by every tenant, the oldest due mail and the uncertain mails.

The report is slow by nature (a broadcast that waits for every worker's reply, a read of every tenant
schema), so no request computes it: the periodic task ``config.health_snapshot`` (``config.tasks``)
stores it as a snapshot in the Django cache, which every web process reads in one round trip. The
cache and not a table: in production it is the Redis every process already shares, the snapshot is
a few hundred bytes rewritten every minute, and no migration is needed for a value that may be lost
at any time (a lost snapshot reads as "unknown", which is 503, never as green). A Redis outage takes
the broker with it, so a readiness view that then answers 503 tells the truth.

Reads only, across the apps (hence in config's top layer); the views in ``config.health`` stay thin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from django_tenants.utils import get_public_schema_name, schema_context

# Read and written in the public schema only (the task is a public task, the view is on the public
# host), so the schema prefix django-tenants adds to every key is always the same.
SNAPSHOT_CACHE_KEY = "health:snapshot"


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


@dataclass(frozen=True)
class HealthSnapshot:
    """The latest stored report and how old it is; ``ok`` is False once it is older than the limit."""

    computed_at: datetime | None
    age_seconds: float | None
    limit_seconds: int
    report_ok: bool
    checks: dict

    @property
    def fresh(self) -> bool:
        return self.age_seconds is not None and self.age_seconds <= self.limit_seconds

    @property
    def ok(self) -> bool:
        return self.fresh and self.report_ok

    @property
    def status(self) -> str:
        if self.computed_at is None:
            return "unknown"
        if not self.fresh:
            return "stale"
        return "ok" if self.report_ok else "failing"


def health_snapshot_refresh(*, now: datetime | None = None) -> HealthReport:
    """Compute the report and store it for the readiness view (run by the periodic task only)."""
    now = now or timezone.now()
    report = health_report(now=now)
    # Kept well past the staleness limit, so the view can say how old it is instead of "unknown".
    keep = max(3600, 10 * settings.HEALTH_SNAPSHOT_MAX_AGE_SECONDS)
    # Cache keys carry the schema (django_tenants.cache.make_key): the snapshot is the platform's, written and
    # read under the public schema whichever schema the computing connection was last switched to.
    with schema_context(get_public_schema_name()):
        cache.set(SNAPSHOT_CACHE_KEY, {"computed_at": now.isoformat(), "ok": report.ok, "checks": report.checks}, keep)
    return report


def health_snapshot_read(*, now: datetime | None = None) -> HealthSnapshot:
    """The stored snapshot (one cache read); never computes a check."""
    now = now or timezone.now()
    limit = settings.HEALTH_SNAPSHOT_MAX_AGE_SECONDS
    try:
        with schema_context(get_public_schema_name()):
            stored = cache.get(SNAPSHOT_CACHE_KEY)
    except Exception:  # the cache's Redis is the broker's too: not ready, and the view must still answer
        stored = None
    if not stored:
        return HealthSnapshot(computed_at=None, age_seconds=None, limit_seconds=limit, report_ok=False, checks={})
    computed_at = datetime.fromisoformat(stored["computed_at"])
    return HealthSnapshot(
        computed_at=computed_at,
        age_seconds=_age(computed_at, now),
        limit_seconds=limit,
        report_ok=bool(stored["ok"]),
        checks=stored["checks"],
    )
