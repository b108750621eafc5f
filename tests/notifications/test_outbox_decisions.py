"""Uncertain mails and webhook events: the tenant admin sends them again or marks them delivered."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.alerts.deliveries import RECIPIENT_INACTIVE_REASON, deliveries_mark_uncertain, deliveries_send_due
from notifications.models import Delivery, DeliveryStatus, WebhookEvent
from notifications.outbox_decisions import (
    OutboxDecisionRefused,
    RecipientInactive,
    delivery_mark_delivered,
    delivery_resend,
    webhook_event_mark_delivered,
    webhook_event_resend,
)
from notifications.webhooks.delivery import webhook_events_release_stuck
from tests.notifications.alerts.helpers import user
from tests.notifications.outbox_rows import delivery_in, webhook_event_in

pytestmark = pytest.mark.django_db

LOG = "/einstellungen/zustellungen/"


def test_an_uncertain_mail_is_sent_again_only_when_the_admin_decides(alpha):
    row = delivery_in(alpha.schema_name, status="uncertain", email=alpha.member_email)
    with schema_context(alpha.schema_name):
        admin = user(alpha.admin_email)
        delivery_resend(delivery_id=row.pk, actor=admin)
        row.refresh_from_db()
        assert (row.status, row.attempts) == (DeliveryStatus.PENDING, 0)
        assert row.next_attempt_at <= timezone.now()
        assert row.last_error == f"Erneut gesendet auf Entscheidung von {alpha.admin_email} (kann doppelt ankommen)."
        with pytest.raises(OutboxDecisionRefused):
            delivery_mark_delivered(delivery_id=row.pk, actor=admin)  # pending now: nothing to decide


def test_an_uncertain_mail_marked_delivered_counts_as_sent_and_is_never_sent_again(alpha):
    row = delivery_in(alpha.schema_name, status="uncertain", email=alpha.member_email)
    with schema_context(alpha.schema_name):
        admin = user(alpha.admin_email)
        delivery_mark_delivered(delivery_id=row.pk, actor=admin)
        row.refresh_from_db()
        assert row.status == DeliveryStatus.SENT and row.sent_at is not None
        assert row.last_error == f"Als zugestellt markiert von {alpha.admin_email}."
        with pytest.raises(OutboxDecisionRefused):
            delivery_resend(delivery_id=row.pk, actor=admin)
        assert Delivery.objects.get(pk=row.pk).status == DeliveryStatus.SENT


def test_webhook_events_get_the_same_two_decisions(alpha):
    resend = webhook_event_in(alpha.schema_name, status="uncertain", email=alpha.admin_email)
    delivered = webhook_event_in(alpha.schema_name, status="uncertain", email=alpha.admin_email)
    sent = webhook_event_in(alpha.schema_name, status="sent", email=alpha.admin_email)
    with schema_context(alpha.schema_name):
        admin = user(alpha.admin_email)
        webhook_event_resend(event_id=resend.pk, actor=admin)
        webhook_event_mark_delivered(event_id=delivered.pk, actor=admin)
        with pytest.raises(OutboxDecisionRefused):
            webhook_event_mark_delivered(event_id=sent.pk, actor=admin)
        statuses = dict(WebhookEvent.objects.values_list("pk", "status"))
    assert statuses == {resend.pk: "pending", delivered.pk: "sent", sent.pk: "sent"}


def test_the_delivery_log_offers_both_decisions_with_a_warning_and_they_work(alpha, alpha_admin_client):
    mail = delivery_in(alpha.schema_name, status="uncertain", email=alpha.member_email, last_error="abgebrochen")
    delivery_in(alpha.schema_name, status="sent", email=alpha.member_email)
    event = webhook_event_in(alpha.schema_name, status="uncertain", email=alpha.admin_email)

    page = alpha_admin_client.get(LOG).content.decode()
    assert 'data-testid="uncertain-warning"' in page
    assert "„Erneut senden“ kann eine doppelte Zustellung verursachen." in page
    assert page.count('data-testid="delivery-resend"') == 1  # only the uncertain row, not the sent one
    assert page.count('data-testid="delivery-mark-delivered"') == 1
    assert f"/einstellungen/zustellungen/webhook/{event.pk}/erneut-senden/" in page
    assert f"/einstellungen/zustellungen/webhook/{event.pk}/zugestellt/" in page

    response = alpha_admin_client.post(f"/einstellungen/zustellungen/{mail.pk}/zugestellt/")
    assert response.status_code == 302
    response = alpha_admin_client.post(f"/einstellungen/zustellungen/webhook/{event.pk}/erneut-senden/")
    assert response.status_code == 302
    with schema_context(alpha.schema_name):
        assert Delivery.objects.get(pk=mail.pk).status == DeliveryStatus.SENT
        assert WebhookEvent.objects.get(pk=event.pk).status == DeliveryStatus.PENDING
    # A second click on a row that was decided meanwhile says so instead of acting twice.
    again = alpha_admin_client.post(f"/einstellungen/zustellungen/{mail.pk}/zugestellt/", follow=True)
    assert "inzwischen einen anderen Status" in again.content.decode()


def test_only_the_tenants_admin_decides(alpha, beta, alpha_client, beta_admin_client):
    mail = delivery_in(alpha.schema_name, status="uncertain", email=alpha.member_email)
    assert alpha_client.post(f"/einstellungen/zustellungen/{mail.pk}/erneut-senden/").status_code == 403
    # Another tenant's admin does not see the row at all (ids are per schema).
    assert beta_admin_client.post(f"/einstellungen/zustellungen/{mail.pk}/erneut-senden/").status_code == 404
    with schema_context(alpha.schema_name):
        assert Delivery.objects.get(pk=mail.pk).status == DeliveryStatus.UNCERTAIN


def test_rows_turning_uncertain_are_logged_with_their_count(alpha, caplog):
    delivery_in(alpha.schema_name, status="sending", email=alpha.member_email)
    delivery_in(alpha.schema_name, status="sending", email=alpha.member_email)
    webhook_event_in(alpha.schema_name, status="sending", email=alpha.admin_email)
    with schema_context(alpha.schema_name), caplog.at_level(logging.WARNING, logger="notifications.outbox"):
        assert deliveries_mark_uncertain() == 2
        assert webhook_events_release_stuck() == 1
    messages = [r.getMessage() for r in caplog.records if r.name == "notifications.outbox"]
    assert any("tenant alpha: 2 delivery rows stuck in sending" in m and "are now uncertain" in m for m in messages)
    assert any("tenant alpha: 1 webhook event rows stuck in sending" in m for m in messages)


def test_a_mail_dropped_for_a_deactivated_recipient_is_not_sent_again_on_request(alpha, alpha_admin_client):
    with schema_context(alpha.schema_name):
        member = user(alpha.member_email)
    pending = delivery_in(alpha.schema_name, status="pending", email=alpha.member_email)
    uncertain = delivery_in(alpha.schema_name, status="uncertain", email=alpha.member_email)
    alpha_admin_client.post(f"/konto/team/{member.pk}/deaktivieren/")
    with schema_context(alpha.schema_name):
        admin = user(alpha.admin_email)
        assert Delivery.objects.get(pk=pending.pk).status == DeliveryStatus.FAILED  # dropped at deactivation
        for row in (pending, uncertain):
            with pytest.raises(RecipientInactive):
                delivery_resend(delivery_id=row.pk, actor=admin)

    answer = alpha_admin_client.post(f"/einstellungen/zustellungen/{pending.pk}/erneut-senden/", follow=True)

    assert "Der Empfänger wurde im Team deaktiviert." in answer.content.decode()
    with schema_context(alpha.schema_name):
        statuses = dict(Delivery.objects.filter(pk__in=[pending.pk, uncertain.pk]).values_list("pk", "status"))
    assert statuses == {pending.pk: DeliveryStatus.FAILED, uncertain.pk: DeliveryStatus.UNCERTAIN}


def test_a_mail_back_in_the_queue_after_its_recipient_left_is_dropped_by_the_sender(alpha):
    # In flight when the person was deactivated, then back to pending after a temporary failure.
    row = delivery_in(alpha.schema_name, status="pending", email=alpha.member_email)
    with schema_context(alpha.schema_name):
        get_user_model().objects.filter(username=alpha.member_email).update(is_active=False)
        summary = deliveries_send_due()
        row.refresh_from_db()
    assert (row.status, row.last_error) == (DeliveryStatus.FAILED, RECIPIENT_INACTIVE_REASON)
    assert summary.sent == 0
