"""The tenant admin's decisions about mails and webhook events nobody can know the fate of.

An ``uncertain`` row was handed to the mail server or the partner's endpoint when its
sender died; whether it arrived is unknown, so it is never sent again by itself. The
admin asks the recipient and then either sends it again ("erneut senden", which may
deliver it twice) or records that it arrived ("als zugestellt markieren"). A ``failed``
row can be sent again too (after the cause was fixed). Each decision names who made it,
on the row and in the log.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from config.enqueue import enqueue_on_commit
from notifications.models import Delivery, DeliveryStatus, WebhookEvent
from notifications.outbox import OutboxDecisionRefused, outbox_mark_delivered, outbox_resend
from notifications.webhooks.services import SEND_DUE_TASK_NAME as WEBHOOKS_SEND_DUE_TASK_NAME

RESENDABLE = (DeliveryStatus.UNCERTAIN, DeliveryStatus.FAILED)


class RecipientInactive(OutboxDecisionRefused):
    """The receiving end is off: a mail's recipient was deactivated in the team, or an event's webhook is
    switched off. Nothing is sent there again, not even on request."""


__all__ = [
    "OutboxDecisionRefused",
    "RecipientInactive",
    "delivery_mark_delivered",
    "delivery_resend",
    "webhook_event_mark_delivered",
    "webhook_event_resend",
]


def _who(actor: AbstractBaseUser) -> str:
    return getattr(actor, "email", "") or str(actor)


def _resend_note(actor: AbstractBaseUser) -> str:
    return f"Erneut gesendet auf Entscheidung von {_who(actor)} (kann doppelt ankommen)."


def _delivered_note(actor: AbstractBaseUser) -> str:
    return f"Als zugestellt markiert von {_who(actor)}."


def delivery_resend(*, delivery_id: int, actor: AbstractBaseUser) -> Delivery:
    """Send an uncertain or failed mail again now; raises OutboxDecisionRefused for any other state and
    RecipientInactive when its recipient was deactivated (a dropped mail stays dropped)."""
    from notifications.alerts.deliveries import deliveries_send_soon

    with transaction.atomic():
        if Delivery.objects.filter(pk=delivery_id, user__is_active=False).exists():
            raise RecipientInactive(delivery_id)
        delivery = outbox_resend(
            Delivery, row_id=delivery_id, now=timezone.now(), note=_resend_note(actor), from_states=RESENDABLE
        )
        deliveries_send_soon()
    return delivery


def delivery_mark_delivered(*, delivery_id: int, actor: AbstractBaseUser) -> Delivery:
    """The recipient has the uncertain mail: it counts as sent and is never sent again."""
    return outbox_mark_delivered(Delivery, row_id=delivery_id, now=timezone.now(), note=_delivered_note(actor))


def webhook_event_resend(*, event_id: int, actor: AbstractBaseUser) -> WebhookEvent:
    """Send an uncertain or failed webhook event again now (the partner de-duplicates by its delivery id);
    raises RecipientInactive while its webhook is switched off (the event would wait unsent for ever)."""
    with transaction.atomic():
        if WebhookEvent.objects.filter(pk=event_id, webhook__is_active=False).exists():
            raise RecipientInactive(event_id)
        event = outbox_resend(
            WebhookEvent, row_id=event_id, now=timezone.now(), note=_resend_note(actor), from_states=RESENDABLE
        )
        # By name (the task module imports the services, not the other way round); a broker error is logged
        # and the row, pending and committed, goes out with the periodic fan-out.
        enqueue_on_commit(WEBHOOKS_SEND_DUE_TASK_NAME)
    return event


def webhook_event_mark_delivered(*, event_id: int, actor: AbstractBaseUser) -> WebhookEvent:
    """The partner has the uncertain event: it counts as sent and is never sent again."""
    return outbox_mark_delivered(WebhookEvent, row_id=event_id, now=timezone.now(), note=_delivered_note(actor))
