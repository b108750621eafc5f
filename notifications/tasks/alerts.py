"""Celery edges of the alert flow; each task parses its input and calls one service.

Platform tasks (public schema, fan out to tenants): ``notifications.match_delta`` (sent by
the ingest after each batch), ``notifications.digest_fanout`` and
``notifications.send_due_fanout`` (beat, see ``PLATFORM_PERIODIC_TASKS``). Tenant tasks
(run in the schema they were sent from): ``notifications.match_delta_tenant``,
``notifications.digest_tenant``, ``notifications.send_due_deliveries``. All are idempotent.
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


@shared_task(name="notifications.match_delta", acks_late=True)
def match_delta(delta: dict) -> int:
    """Hand one ingest batch to every active tenant's matching."""
    from notifications.alerts.fanout import tenants_fan_out
    from notifications.alerts.services import delta_parse

    created, changed = delta_parse(delta)
    if not created and not changed:
        return 0
    payload = {"created": list(created), "changed": {str(k): v for k, v in changed.items()}}
    return len(tenants_fan_out(match_delta_tenant, kwargs={"delta": payload}).sent)


@shared_task(
    name="notifications.match_delta_tenant",
    bind=True,
    acks_late=True,
    autoretry_for=_DB_BLIPS,
    retry_backoff=10,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=8,
)
def match_delta_tenant(self, delta: dict) -> dict:
    from notifications.alerts.services import delta_parse, delta_process

    if not _in_tenant(self.name):
        return {}
    created, changed = delta_parse(delta)
    outcome = delta_process(created=created, changed=changed)
    return {"matches": len(outcome.match_ids), "changes": len(outcome.change_ids), "mails": len(outcome.delivery_ids)}


@shared_task(name="notifications.digest_fanout", acks_late=True)
def digest_fanout() -> int:
    """Every 15 minutes: each tenant looks for users whose digest is due (starts spread by jitter)."""
    from notifications.alerts.fanout import tenants_fan_out

    return len(tenants_fan_out(digest_tenant, jitter_seconds=settings.ALERTS_DIGEST_JITTER_SECONDS).sent)


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
    from notifications.alerts.fanout import tenants_fan_out

    return len(tenants_fan_out(send_due_deliveries).sent)


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
