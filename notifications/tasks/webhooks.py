"""Celery edges; each task parses ids and calls one service."""

from __future__ import annotations

from django.db import OperationalError

from config.task_policy import public_task, tenant_task
from notifications.webhooks.services import SEND_DUE_TASK_NAME


@tenant_task(name=SEND_DUE_TASK_NAME, autoretry_for=(OperationalError,), refused={})
def send_due_webhooks_task() -> dict:
    """Due webhook events of the tenant this task was sent from (its schema travels in the headers)."""
    from notifications.webhooks.delivery import webhook_events_send_due

    summary = webhook_events_send_due()
    return {
        "sent": summary.sent,
        "retrying": summary.retrying,
        "failed": summary.failed,
        "uncertain": summary.uncertain,
    }


@public_task(name="notifications.webhooks_fanout", refused=0)
def webhooks_fanout_task() -> int:
    """Periodic, in the public schema: one ``send_due_webhooks`` per active tenant (retries fall due here)."""
    from accounts.fanout import tenants_fan_out

    return len(tenants_fan_out(task_name=SEND_DUE_TASK_NAME).sent)
