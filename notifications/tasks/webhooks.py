"""Celery edges; each task parses ids and calls one service."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError


@shared_task(
    name="notifications.send_due_webhooks",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=30,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=5,
)
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


@shared_task(name="notifications.webhooks_fanout", acks_late=True)
def webhooks_fanout_task() -> int:
    """Periodic, in the public schema: one ``send_due_webhooks`` per active tenant (retries fall due here)."""
    from accounts.fanout import tenants_fan_out

    return len(tenants_fan_out(task_name=send_due_webhooks_task.name).sent)
