"""The claim protocol of both outboxes (alert mails, webhook events): one row at a time, never sent twice.

A row is ``pending`` until its ``next_attempt_at``. A sender claims the oldest due row
with ``SELECT … FOR UPDATE SKIP LOCKED`` and marks it ``sending`` (``claimed_at``,
``attempts`` + 1) in its own short transaction, committed *before* anything leaves the
machine: a second sender running at the same time skips the locked row and afterwards no
longer sees it as due. A row still ``sending`` long after any attempt could last means its
sender died mid-send; nobody can know whether the other side got it, so it becomes
``uncertain`` for a person to decide, never sent again automatically.

Both models carry ``status``, ``next_attempt_at``, ``claimed_at``, ``attempts`` and
``last_error``; what counts as sent, retried or failed stays with each outbox.

An uncertain row waits for a person (the tenant admin): ``outbox_resend`` sends it again,
knowing the recipient may then have it twice; ``outbox_mark_delivered`` records that the
recipient confirmed it arrived. Both are recorded on the row and in the log.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TypeVar

from django.db import connection, models, transaction
from django.db.models import F
from django.utils.translation import gettext_lazy

from kernel.errors import ApplicationError
from notifications.models import DeliveryStatus

logger = logging.getLogger(__name__)

Row = TypeVar("Row", bound=models.Model)


class OutboxDecisionRefused(ApplicationError):
    """The row is not in a state this decision applies to (e.g. it was sent meanwhile); ``extra["status"]``."""

    default_code = "state_changed"

    def __init__(self, status: object = ""):
        message = gettext_lazy("Der Eintrag hat inzwischen einen anderen Status; bitte die Liste neu prüfen.")
        super().__init__(message, extra={"status": status})


def outbox_claim_next(queryset: models.QuerySet[Row], *, now: datetime) -> Row | None:
    """Claim the oldest row of ``queryset`` that is due at ``now``, for this sender alone (committed)."""
    with transaction.atomic():
        row = (
            queryset.select_for_update(skip_locked=True, of=("self",))
            .filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
            .order_by("next_attempt_at", "pk")
            .first()
        )
        if row is None:
            return None
        type(row).objects.filter(pk=row.pk).update(
            status=DeliveryStatus.SENDING, claimed_at=now, attempts=F("attempts") + 1
        )
    row.status, row.claimed_at, row.attempts = DeliveryStatus.SENDING, now, row.attempts + 1
    return row


def outbox_release_stale(queryset: models.QuerySet, *, claimed_before: datetime, reason: str) -> int:
    """Rows whose sender died mid-send become ``uncertain`` (never re-sent automatically); returns how many."""
    count = queryset.filter(status=DeliveryStatus.SENDING, claimed_at__lt=claimed_before).update(
        status=DeliveryStatus.UNCERTAIN, last_error=reason
    )
    if count:
        # Someone has to decide about each of these rows: say so where operators look.
        logger.warning(
            "tenant %s: %d %s rows stuck in sending since before %s are now uncertain",
            connection.schema_name,
            count,
            queryset.model._meta.verbose_name,
            claimed_before.isoformat(timespec="seconds"),
        )
    return count


def outbox_resend(
    model: type[models.Model], *, row_id: int, now: datetime, note: str, from_states: tuple[str, ...]
) -> models.Model:
    """A person's decision: send this row again now (from ``from_states``); raises OutboxDecisionRefused."""
    with transaction.atomic():
        row = model.objects.select_for_update().get(pk=row_id)
        if row.status not in from_states:
            raise OutboxDecisionRefused(row.status)
        previous = row.status
        row.status, row.next_attempt_at, row.attempts, row.last_error = DeliveryStatus.PENDING, now, 0, note
        row.save(update_fields=["status", "next_attempt_at", "attempts", "last_error"])
    logger.info(
        "tenant %s: %s %s resent from %s: %s", connection.schema_name, model._meta.verbose_name, row_id, previous, note
    )
    return row


def outbox_mark_delivered(model: type[models.Model], *, row_id: int, now: datetime, note: str) -> models.Model:
    """A person's decision: the recipient got this uncertain row; it counts as sent, never sent again."""
    with transaction.atomic():
        row = model.objects.select_for_update().get(pk=row_id)
        if row.status != DeliveryStatus.UNCERTAIN:
            raise OutboxDecisionRefused(row.status)
        row.status, row.sent_at, row.last_error = DeliveryStatus.SENT, now, note
        row.save(update_fields=["status", "sent_at", "last_error"])
    logger.info("tenant %s: %s %s marked delivered: %s", connection.schema_name, model._meta.verbose_name, row_id, note)
    return row
