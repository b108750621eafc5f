"""The claim protocol shared by the mail outbox and the webhook outbox."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import Delivery, DeliveryStatus
from notifications.outbox import outbox_claim_next, outbox_release_stale


def _delivery(user, key: str, *, due_in: timedelta = timedelta(0), status=DeliveryStatus.PENDING, claimed_at=None):
    return Delivery.objects.create(
        kind="instant",
        user=user,
        dedupe_key=key,
        recipient=user.email,
        subject=key,
        text_body="…",
        status=status,
        claimed_at=claimed_at,
        next_attempt_at=timezone.now() + due_in,
    )


def test_the_oldest_due_row_is_claimed_and_the_claim_is_stored(alpha):
    with schema_context(alpha.schema_name):
        user = get_user_model().objects.get(username=alpha.member_email)
        later = _delivery(user, "later", due_in=-timedelta(minutes=1))
        oldest = _delivery(user, "oldest", due_in=-timedelta(minutes=5))
        _delivery(user, "future", due_in=timedelta(minutes=5))
        now = timezone.now()

        claimed = outbox_claim_next(Delivery.objects.all(), now=now)
        assert claimed.pk == oldest.pk
        assert (claimed.status, claimed.claimed_at, claimed.attempts) == (DeliveryStatus.SENDING, now, 1)
        stored = Delivery.objects.get(pk=oldest.pk)
        assert (stored.status, stored.claimed_at, stored.attempts) == (DeliveryStatus.SENDING, now, 1)

        assert outbox_claim_next(Delivery.objects.all(), now=now).pk == later.pk
        assert outbox_claim_next(Delivery.objects.all(), now=now) is None  # the future row is not due yet


def test_only_claims_older_than_the_limit_become_uncertain(alpha):
    with schema_context(alpha.schema_name):
        user = get_user_model().objects.get(username=alpha.member_email)
        now = timezone.now()
        dead = _delivery(user, "dead", status=DeliveryStatus.SENDING, claimed_at=now - timedelta(hours=1))
        busy = _delivery(user, "busy", status=DeliveryStatus.SENDING, claimed_at=now - timedelta(seconds=5))
        waiting = _delivery(user, "waiting")

        released = outbox_release_stale(
            Delivery.objects.all(), claimed_before=now - timedelta(minutes=10), reason="unklar"
        )
        assert released == 1
        rows = dict(Delivery.objects.values_list("pk", "status"))
        assert rows == {
            dead.pk: DeliveryStatus.UNCERTAIN,
            busy.pk: DeliveryStatus.SENDING,
            waiting.pk: DeliveryStatus.PENDING,
        }
        assert Delivery.objects.get(pk=dead.pk).last_error == "unklar"
