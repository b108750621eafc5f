"""Celery edges; each task parses ids and calls one service."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError


@shared_task(
    name="notifications.check_mailbox",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=60,
    retry_backoff_max=900,
    retry_jitter=True,
    max_retries=3,
)
def check_mailbox_task() -> dict:
    """Check the mailbox of the tenant whose schema the task was sent from.

    Mailbox failures are recorded on ``MailboxSettings.last_error``, not raised; only a lost
    database connection is retried. Running twice is harmless (mails are processed once).
    """
    from notifications.inbox.services import mailbox_check

    return mailbox_check().as_dict()


@shared_task(name="notifications.check_all_mailboxes", acks_late=True)
def check_all_mailboxes_task() -> int:
    """Public schema, periodic: one ``notifications.check_mailbox`` per tenant with an active mailbox."""
    from notifications.inbox.services import mailbox_check_fan_out

    return len(mailbox_check_fan_out())
