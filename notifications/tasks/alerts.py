"""Celery edges of the alert flow; each task parses its input and calls one service.

Platform tasks (public schema, fan out to tenants): ``notifications.digest_fanout`` and
``notifications.send_due_fanout`` (beat, see ``PLATFORM_PERIODIC_TASKS``). Tenant tasks
(run in the schema they were sent from): ``notifications.match_pending_deltas`` (sent by
``tenders.dispatch_deltas`` by name), ``notifications.digest_tenant``,
``notifications.send_due_deliveries``. All are idempotent.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django_tenants.utils import get_public_schema_name

logger = logging.getLogger(__name__)

_DB_BLIPS = (OperationalError, InterfaceError)


def _in_tenant(task_name: str) -> bool:
    if connection.schema_name == get_public_schema_name():
        logger.error("%s needs a tenant schema and was sent without one; ignored", task_name)
        return False
    return True


@shared_task(
    name="notifications.match_pending_deltas",
    bind=True,
    acks_late=True,
    autoretry_for=_DB_BLIPS,
    retry_backoff=10,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=8,
)
def match_pending_deltas(self) -> dict:
    """Every ingest delta this tenant has not matched yet, as one (sent by ``tenders.dispatch_deltas``)."""
    from notifications.alerts.handoff import deltas_match_pending

    if not _in_tenant(self.name):
        return {}
    run = deltas_match_pending()
    return {"deltas": run.deltas, "matches": run.matches, "changes": run.changes, "mails": run.mails}


@shared_task(name="notifications.digest_fanout", acks_late=True)
def digest_fanout() -> int:
    """Every 15 minutes: each tenant looks for users whose digest is due (starts spread by jitter)."""
    from accounts.fanout import tenants_fan_out

    return len(tenants_fan_out(task_name=digest_tenant.name, jitter_seconds=settings.ALERTS_DIGEST_JITTER_SECONDS).sent)


@shared_task(
    name="notifications.digest_tenant",
    bind=True,
    acks_late=True,
    autoretry_for=_DB_BLIPS,
    retry_backoff=30,
    retry_backoff_max=600,
    max_retries=5,
)
def digest_tenant(self) -> dict:
    from notifications.alerts.digest import digests_create_due

    if not _in_tenant(self.name):
        return {}
    run = digests_create_due()
    return {"due": run.due, "sent": run.sent, "quiet": run.quiet, "errors": run.errors}


@shared_task(name="notifications.send_due_fanout", acks_late=True)
def send_due_fanout() -> int:
    """Every minute: each tenant sends what is due (retries, and rows whose first kick was lost)."""
    from accounts.fanout import tenants_fan_out

    return len(tenants_fan_out(task_name=send_due_deliveries.name).sent)


@shared_task(
    name="notifications.send_due_deliveries",
    bind=True,
    acks_late=True,
    autoretry_for=_DB_BLIPS,
    retry_backoff=10,
    retry_backoff_max=300,
    max_retries=5,
)
def send_due_deliveries(self) -> dict:
    from notifications.alerts.deliveries import deliveries_send_due

    if not _in_tenant(self.name):
        return {}
    summary = deliveries_send_due()
    if summary.more_due:
        self.apply_async()  # same schema: continue with the next slice
    return {"sent": summary.sent, "retrying": summary.retrying, "failed": summary.failed}
