"""Celery edges of the alert flow; each task parses its input and calls one service.

Platform tasks (public schema, fan out to tenants): ``notifications.digest_fanout`` and
``notifications.send_due_fanout`` (beat, see ``PLATFORM_PERIODIC_TASKS``). Tenant tasks
(run in the schema they were sent from): ``notifications.match_pending_deltas`` (sent by
``tenders.dispatch_deltas`` by name), ``notifications.digest_tenant``,
``notifications.send_due_deliveries``. All are idempotent.
"""

from __future__ import annotations

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from config.enqueue import SCHEMA_HEADER
from config.task_policy import public_task, tenant_task

_DB_BLIPS = (OperationalError, InterfaceError)


@tenant_task(name="notifications.match_pending_deltas", autoretry_for=_DB_BLIPS, refused={})
def match_pending_deltas() -> dict:
    """Every ingest delta this tenant has not matched yet, as one (sent by ``tenders.dispatch_deltas``)."""
    from notifications.alerts.handoff import deltas_match_pending

    run = deltas_match_pending()
    return {"deltas": run.deltas, "matches": run.matches, "changes": run.changes, "mails": run.mails}


@public_task(name="notifications.digest_fanout", refused=0)
def digest_fanout() -> int:
    """Every 15 minutes: each tenant looks for users whose digest is due (starts spread by jitter)."""
    from accounts.fanout import tenants_fan_out

    return len(tenants_fan_out(task_name=digest_tenant.name, jitter_seconds=settings.ALERTS_DIGEST_JITTER_SECONDS).sent)


@tenant_task(name="notifications.digest_tenant", autoretry_for=_DB_BLIPS, refused={})
def digest_tenant() -> dict:
    from notifications.alerts.digest import digests_create_due

    run = digests_create_due()
    return {"due": run.due, "sent": run.sent, "quiet": run.quiet, "errors": run.errors}


@public_task(name="notifications.send_due_fanout", refused=0)
def send_due_fanout() -> int:
    """Every minute: each tenant sends what is due (retries, and rows whose first kick was lost)."""
    from accounts.fanout import tenants_fan_out

    return len(tenants_fan_out(task_name=send_due_deliveries.name).sent)


@tenant_task(name="notifications.send_due_deliveries", bind=True, autoretry_for=_DB_BLIPS, refused={})
def send_due_deliveries(self) -> dict:
    from notifications.alerts.deliveries import deliveries_send_due

    summary = deliveries_send_due()
    if summary.more_due:
        # Continue with the next slice, in this tenant's schema.
        self.apply_async(headers={SCHEMA_HEADER: connection.schema_name})
    return {"sent": summary.sent, "retrying": summary.retrying, "failed": summary.failed}
