"""Celery edges; each task parses ids and calls one service."""

from __future__ import annotations

from django.db import OperationalError

from config.task_policy import public_task, tenant_task
from notifications.inbox.services import CHECK_TASK_NAME


@tenant_task(name=CHECK_TASK_NAME, autoretry_for=(OperationalError,), refused={})
def check_mailbox_task() -> dict:
    """Check the mailbox of the tenant whose schema the task was sent from.

    Mailbox failures are recorded on ``MailboxSettings.last_error``, not raised; only a lost
    database connection is retried. Running twice is harmless (mails are processed once).
    """
    from notifications.inbox.services import mailbox_check

    return mailbox_check().as_dict()


@public_task(name="notifications.check_all_mailboxes", refused=0)
def check_all_mailboxes_task() -> int:
    """Public schema, periodic: one ``notifications.check_mailbox`` per tenant with an active mailbox."""
    from notifications.inbox.services import mailbox_check_fan_out

    return len(mailbox_check_fan_out())
