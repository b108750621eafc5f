"""The outbox: every alert mail is a ``Delivery`` row, created once and sent at most once.

Never twice: ``delivery_create`` is idempotent on ``dedupe_key`` (unique). The sender
claims ONE row at a time (``notifications.outbox``: pending → sending, committed before
any network traffic), sends it, and marks it sent only after the server accepted it. If a
worker dies between acceptance and marking, the row stays in ``sending``; once its claim is
older than ``ALERTS_SENDING_STALE_SECONDS`` it becomes ``uncertain`` for the operator
instead of being sent again: a duplicate mail is worse than a question. The same holds when the
sender lives but the connection broke after the message's end of data went out without an answer
(``UncertainSendError``, see ``sending``): the row becomes uncertain at once.

Never lost: temporary failures go back to pending with capped exponential backoff
(``attempts``, ``next_attempt_at``; ``ALERTS_MAIL_BACKOFF``) until its attempts are used up;
permanent failures are ``failed`` with the reason. Nothing is deleted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.translation import get_language

from config.enqueue import enqueue_on_commit
from kernel.network import BackoffPolicy
from notifications.alerts.rendering import header_safe, render_test_mail
from notifications.alerts.sending import MailTransport, PermanentSendError, SendError, classify, mail_route
from notifications.models import Delivery, DeliveryStatus
from notifications.outbox import outbox_claim_next, outbox_release_stale

logger = logging.getLogger(__name__)

SEND_TASK_NAME = "notifications.send_due_deliveries"
# A person deactivated in the team gets no more mail: what still waits for them is kept in the log as failed.
RECIPIENT_INACTIVE_REASON = "Nicht gesendet: Empfänger wurde im Team deaktiviert."
_ALLOWED_HEADERS = {"List-Unsubscribe", "List-Unsubscribe-Post", "Auto-Submitted", "Reply-To"}


def mail_backoff() -> BackoffPolicy:
    """The outbox's retry policy (``ALERTS_MAIL_BACKOFF``; by default 1, 2, 4 … minutes up to 4 hours, 16 attempts)."""
    return BackoffPolicy.from_setting(settings.ALERTS_MAIL_BACKOFF)


def retry_delay(attempts: int) -> timedelta:
    return timedelta(seconds=mail_backoff().wait_seconds(attempts))


def _clean_headers(headers: dict | None) -> dict[str, str]:
    return {
        name: header_safe(value, max_length=900)
        for name, value in (headers or {}).items()
        if name in _ALLOWED_HEADERS and value
    }


def delivery_create(
    *,
    kind: str,
    user,
    recipient: str,
    subject: str,
    text_body: str,
    html_body: str = "",
    headers: dict | None = None,
    dedupe_key: str,
    saved_search=None,
    match_ids: Sequence[int] = (),
    change_ids: Sequence[int] = (),
    send_soon: bool = True,
) -> Delivery:
    """Queue one mail; a second call with the same ``dedupe_key`` returns the first row unchanged.

    ``send_soon``: ask a worker to send after commit. Services creating many mails at once pass
    False and call ``deliveries_send_soon`` once, so one batch is one sender run, not one per mail.
    Raises ValidationError for a recipient that is not one plain address.
    """
    recipient = (recipient or "").strip()
    if "\r" in recipient or "\n" in recipient:
        raise ValidationError("Empfängeradresse enthält einen Zeilenumbruch.")
    validate_email(recipient)
    with transaction.atomic():
        delivery, created = Delivery.objects.get_or_create(
            dedupe_key=dedupe_key[:200],
            defaults={
                "kind": kind,
                "user": user,
                "saved_search": saved_search,
                "recipient": recipient,
                "subject": header_safe(subject, max_length=300),
                "text_body": text_body,
                "html_body": html_body,
                "headers": _clean_headers(headers),
                "match_ids": sorted(int(i) for i in match_ids),
                "change_ids": sorted(int(i) for i in change_ids),
                "next_attempt_at": timezone.now(),
            },
        )
        if created and send_soon:
            deliveries_send_soon()
    return delivery


def deliveries_send_soon() -> None:
    """Ask a worker to send this tenant's due mails once the current transaction commits (now, outside one).

    A broker error is logged, never raised: the committed row is found by the periodic sweep anyway.
    """
    enqueue_on_commit(SEND_TASK_NAME)


def deliveries_drop_for_inactive_recipients(*, user_id: int | None = None) -> int:
    """Waiting mails to a deactivated person (``user_id``: only theirs) become failed with the reason.

    Run by the deactivation itself and again by every sender run, so a mail that was in flight when
    the person left and came back to ``pending`` (a temporary failure) does not go out later either.
    """
    rows = Delivery.objects.filter(status=DeliveryStatus.PENDING, user__is_active=False)
    if user_id is not None:
        rows = rows.filter(user_id=user_id)
    return rows.update(status=DeliveryStatus.FAILED, last_error=RECIPIENT_INACTIVE_REASON)


def deliveries_mark_uncertain(*, now: datetime | None = None) -> int:
    """Rows stuck in ``sending`` (a worker died mid-send) become uncertain; never resent automatically."""
    now = now or timezone.now()
    return outbox_release_stale(
        Delivery.objects.all(),
        claimed_before=now - timedelta(seconds=settings.ALERTS_SENDING_STALE_SECONDS),
        reason="Versand unterbrochen: unklar, ob der Server die Nachricht angenommen hat. Bitte prüfen.",
    )


def delivery_claim_next() -> Delivery | None:
    """Claim the next due row for this worker alone (committed before sending)."""
    return outbox_claim_next(Delivery.objects.all(), now=timezone.now())


def _message(delivery: Delivery, from_email: str) -> EmailMultiAlternatives:
    message = EmailMultiAlternatives(
        subject=header_safe(delivery.subject, max_length=300),
        body=delivery.text_body,
        from_email=from_email,
        to=[delivery.recipient],
        headers=_clean_headers(delivery.headers),
    )
    if delivery.html_body:
        message.attach_alternative(delivery.html_body, "text/html")
    return message


def _record_failure(delivery: Delivery, error: SendError) -> str:
    now = timezone.now()
    reason = str(error)[:4000] or type(error).__name__
    if error.uncertain:
        # The server may have it: a person decides (outbox_decisions), nothing resends it by itself.
        status, next_attempt = DeliveryStatus.UNCERTAIN, delivery.next_attempt_at
        logger.warning("delivery %s is uncertain: %s", delivery.pk, reason)
    elif error.temporary and not mail_backoff().exhausted(delivery.attempts):
        status, next_attempt = DeliveryStatus.PENDING, now + retry_delay(delivery.attempts)
    else:
        status, next_attempt = DeliveryStatus.FAILED, delivery.next_attempt_at
        if error.temporary:
            reason = f"aufgegeben nach {delivery.attempts} Versuchen: {reason}"
    Delivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.SENDING).update(
        status=status, next_attempt_at=next_attempt, last_error=reason
    )
    return status


def _record_sent(delivery: Delivery) -> None:
    # Also from "uncertain": the server did accept it, whatever the sweep concluded meanwhile.
    Delivery.objects.filter(pk=delivery.pk, status__in=[DeliveryStatus.SENDING, DeliveryStatus.UNCERTAIN]).update(
        status=DeliveryStatus.SENT, sent_at=timezone.now(), last_error=""
    )


@dataclass
class SendSummary:
    sent: int = 0
    retrying: int = 0
    failed: int = 0
    uncertain: int = 0  # no answer after the whole message was handed over (may have arrived)
    marked_uncertain: int = 0
    waiting: int = 0  # due rows held back because the tenant has no mail route yet (no attempt spent)
    more_due: bool = False


def deliveries_send_due(
    *, limit: int = 200, transport_factory: Callable[..., MailTransport] = MailTransport
) -> SendSummary:
    """Send this tenant's due mails, one claimed row at a time; every outcome is recorded on its row."""
    summary = SendSummary(marked_uncertain=deliveries_mark_uncertain())
    deliveries_drop_for_inactive_recipients()
    try:
        route = mail_route()
    except SendError as exc:
        # No route (yet): the mails are not at fault, so no attempt is spent. Rows that are due say why
        # they wait, and go out on the first run after the settings are saved.
        summary.waiting = Delivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=timezone.now()
        ).update(last_error=str(exc)[:4000])
        return summary
    transport: MailTransport | None = None
    route_error: SendError | None = None
    try:
        for _ in range(limit):
            delivery = delivery_claim_next()
            if delivery is None:
                return summary
            if transport is None and route_error is None:
                try:
                    transport = transport_factory(route)
                except Exception as exc:  # recorded on every row of this run below
                    route_error = classify(exc)
            try:
                if route_error is not None:
                    raise route_error
                transport.send(_message(delivery, transport.route.from_email))
            except Exception as exc:  # every failure is recorded on the row, none escapes unrecorded
                error = classify(exc)
                if not isinstance(exc, SendError):
                    logger.exception("unexpected error sending delivery %s", delivery.pk)
                status = _record_failure(delivery, error)
                if status == DeliveryStatus.PENDING:
                    summary.retrying += 1
                elif status == DeliveryStatus.UNCERTAIN:
                    summary.uncertain += 1
                else:
                    summary.failed += 1
                continue
            _record_sent(delivery)
            summary.sent += 1
        summary.more_due = True
        return summary
    finally:
        if transport is not None:
            transport.close()


def smtp_send_test(*, to: str) -> None:
    """Send a test mail through this tenant's route right now; raise SendError (German message) on failure."""
    to = (to or "").strip()
    try:
        if "\r" in to or "\n" in to:
            raise ValidationError("invalid")
        validate_email(to)
    except ValidationError as exc:
        raise PermanentSendError(f"Ungültige Empfängeradresse: {header_safe(to, max_length=100)!r}") from exc
    route = mail_route()
    mail = render_test_mail(language=(get_language() or settings.LANGUAGE_CODE)[:2], sender=route.from_email)
    message = EmailMultiAlternatives(subject=mail.subject, body=mail.text_body, from_email=route.from_email, to=[to])
    with MailTransport(route) as transport:
        transport.send(message)
