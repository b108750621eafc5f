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
"""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from django.db import models, transaction
from django.db.models import F

from notifications.models import DeliveryStatus

Row = TypeVar("Row", bound=models.Model)


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
    return queryset.filter(status=DeliveryStatus.SENDING, claimed_at__lt=claimed_before).update(
        status=DeliveryStatus.UNCERTAIN, last_error=reason
    )
