"""Celery edges of the board's deadline reminders (``notifications.bids.reminders``).

``notifications.reminders_fanout`` (platform, beat: ``PLATFORM_PERIODIC_TASKS``) sends one
``notifications.send_due_reminders`` per active tenant; that tenant task tells moved deadlines on their cards
and queues the reminders due now. Idempotent: a reminder's dedupe key makes a second run queue nothing.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError

from config.task_policy import public_task, tenant_task

SEND_DUE_REMINDERS = "notifications.send_due_reminders"


@tenant_task(name=SEND_DUE_REMINDERS, autoretry_for=(OperationalError, InterfaceError), refused={})
def send_due_reminders_task() -> dict:
    from notifications.bids.reminders import reminders_send_due

    run = reminders_send_due()
    return {"moved": run.moved, "due": run.due, "queued": run.queued}


@public_task(name="notifications.reminders_fanout", refused=0)
def reminders_fanout_task() -> int:
    """Every 15 minutes: each tenant looks for due reminders and moved deadlines of its board."""
    from accounts.fanout import tenants_fan_out

    return len(tenants_fan_out(task_name=SEND_DUE_REMINDERS).sent)
