"""The outbox against a real SMTP server: never twice, never lost, every failure recorded."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.alerts.deliveries import deliveries_send_due, delivery_create, retry_delay, smtp_send_test
from notifications.alerts.sending import NO_SMTP_SETTINGS, PermanentSendError, SendError, TemporarySendError
from notifications.models import Delivery, DeliveryStatus, SmtpSettings, TlsMode
from tests.notifications.alerts.helpers import smtp_to, user


def _queue(owner, key="k1", **overrides) -> Delivery:
    values = {
        "kind": "instant",
        "user": owner,
        "recipient": owner.email,
        "subject": f"Betreff {key}",
        "text_body": "Text",
        "html_body": "<p>HTML</p>",
        "headers": {"List-Unsubscribe": "<https://alpha.localhost/abmelden-alert/x/>"},
        "dedupe_key": key,
    }
    return delivery_create(**{**values, **overrides})


def _make_due(delivery: Delivery) -> None:
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))


@pytest.mark.django_db
def test_a_queued_mail_is_sent_once_with_text_html_and_unsubscribe_headers(alpha, smtp_server):
    connection.set_tenant(alpha.tenant)
    smtp_to(smtp_server)
    owner = user(alpha.member_email)
    delivery = _queue(owner)
    assert _queue(owner, subject="anders").pk == delivery.pk  # idempotent on the dedupe key

    summary = deliveries_send_due()
    assert (summary.sent, summary.failed, summary.retrying) == (1, 0, 0)
    assert deliveries_send_due().sent == 0
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == (DeliveryStatus.SENT, 1, "")
    assert delivery.sent_at is not None
    [message] = smtp_server.messages
    assert message["To"] == alpha.member_email and message["From"] == "radar@alpha.example"
    assert message["List-Unsubscribe"] == "<https://alpha.localhost/abmelden-alert/x/>"
    assert {part.get_content_type() for part in message.walk()} >= {"text/plain", "text/html"}


@pytest.mark.django_db
def test_a_recipient_with_a_line_break_or_no_address_is_refused(alpha):
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    for bad in ("a@example.org\r\nBcc: b@example.org", "kein-mail"):
        with pytest.raises(ValidationError):
            _queue(owner, recipient=bad)
    assert Delivery.objects.count() == 0


@pytest.mark.django_db
def test_smtp_421_is_retried_with_backoff_and_delivered_later(alpha, smtp_server):
    connection.set_tenant(alpha.tenant)
    smtp_to(smtp_server)
    delivery = _queue(user(alpha.member_email))
    smtp_server.reply_next_with("421 4.3.0 Try again later")

    assert deliveries_send_due().retrying == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 1
    assert "421" in delivery.last_error
    assert delivery.next_attempt_at > timezone.now() + timedelta(seconds=50)
    assert deliveries_send_due().sent == 0  # not due yet: backoff

    _make_due(delivery)
    assert deliveries_send_due().sent == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.SENT, 2)
    assert len(smtp_server.messages) == 1


@pytest.mark.django_db
def test_smtp_550_is_recorded_as_failed_and_never_retried(alpha, smtp_server):
    connection.set_tenant(alpha.tenant)
    smtp_to(smtp_server)
    delivery = _queue(user(alpha.member_email))
    smtp_server.reply_next_with("550 5.1.1 Mailbox unknown")

    assert deliveries_send_due().failed == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED and "550" in delivery.last_error
    _make_due(delivery)
    assert deliveries_send_due().sent == 0 and smtp_server.messages == []


@pytest.mark.django_db
def test_a_refused_connection_is_temporary_and_gives_up_after_the_last_attempt(alpha, settings):
    settings.ALERTS_MAIL_BACKOFF = {**settings.ALERTS_MAIL_BACKOFF, "max_attempts": 2}
    connection.set_tenant(alpha.tenant)
    SmtpSettings.objects.create(host="127.0.0.1", port=1, tls_mode=TlsMode.NONE, from_email="radar@alpha.example")
    delivery = _queue(user(alpha.member_email))

    assert deliveries_send_due().retrying == 1
    _make_due(delivery)
    assert deliveries_send_due().failed == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.last_error.startswith("aufgegeben nach 2 Versuchen")


@pytest.mark.django_db
def test_a_tenant_without_smtp_settings_is_recorded_and_others_are_unaffected(alpha, beta, smtp_server):
    connection.set_tenant(alpha.tenant)
    waiting = _queue(user(alpha.member_email), key="alpha")
    connection.set_tenant(beta.tenant)
    smtp_to(smtp_server)
    _queue(user(beta.member_email), key="beta")

    connection.set_tenant(alpha.tenant)
    for _ in range(3):  # however often the sweep comes by, a missing route spends no attempt
        assert deliveries_send_due().waiting == 1
    connection.set_tenant(beta.tenant)
    assert deliveries_send_due().sent == 1

    connection.set_tenant(alpha.tenant)
    waiting.refresh_from_db()
    assert waiting.status == DeliveryStatus.PENDING and waiting.last_error == NO_SMTP_SETTINGS
    assert waiting.attempts == 0
    assert [m["To"] for m in smtp_server.messages] == [beta.member_email]
    smtp_to(smtp_server)  # the admin saves the settings: the waiting mail goes out on the next run
    assert deliveries_send_due().sent == 1


@pytest.mark.django_db
def test_the_platform_esp_is_used_only_when_the_platform_allows_it(alpha, settings, mailoutbox):
    connection.set_tenant(alpha.tenant)
    delivery = _queue(user(alpha.member_email))
    assert deliveries_send_due().waiting == 1

    settings.ALERTS_PLATFORM_ESP_ENABLED = True
    settings.ALERTS_PLATFORM_ESP_BACKEND = "anymail.backends.test.EmailBackend"
    settings.ALERTS_PLATFORM_FROM_EMAIL = "radar@tender-radar.example"
    _make_due(delivery)
    assert deliveries_send_due().sent == 1
    [message] = mailoutbox
    assert message.from_email == "radar@tender-radar.example" and message.to == [alpha.member_email]


def test_retry_delay_doubles_and_is_capped():
    assert [retry_delay(n).total_seconds() for n in (1, 2, 3)] == [60, 120, 240]
    assert retry_delay(50) == timedelta(hours=4)


def test_the_outbox_reads_its_backoff_from_settings(settings):
    settings.ALERTS_MAIL_BACKOFF = {
        "base_seconds": 10,
        "factor": 3,
        "cap_seconds": 50,
        "max_attempts": 3,
        "jitter": "none",
    }
    assert [retry_delay(n).total_seconds() for n in (1, 2, 3)] == [10, 30, 50]


@pytest.mark.django_db
def test_send_test_mail_reports_the_servers_answer(alpha, smtp_server):
    connection.set_tenant(alpha.tenant)
    with pytest.raises(TemporarySendError, match=NO_SMTP_SETTINGS):
        smtp_send_test(to=alpha.admin_email)
    smtp_to(smtp_server)
    smtp_send_test(to=alpha.admin_email)
    assert smtp_server.messages[0]["Subject"] == "Testmail von Tender Radar"
    smtp_server.reply_next_with("550 5.7.1 Relaying denied")
    with pytest.raises(PermanentSendError, match="550 5.7.1 Relaying denied"):
        smtp_send_test(to=alpha.admin_email)
    with pytest.raises(SendError, match="Ungültige Empfängeradresse"):
        smtp_send_test(to="x@example.org\r\nBcc: y@example.org")
    assert len(smtp_server.messages) == 1  # only the first test mail: nothing was sent for the forged address


def test_a_crashed_send_becomes_uncertain_and_two_concurrent_senders_never_mail_twice(committed_tenants, smtp_server):
    """A row left in "sending" by a dead worker, then two beat ticks at once on two connections."""
    alpha, _beta = committed_tenants
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        owner = user(alpha.member_email)
        queued = [_queue(owner, key=f"k{i}") for i in range(12)]
        crashed = queued[0]
        Delivery.objects.filter(pk=crashed.pk).update(
            status=DeliveryStatus.SENDING, claimed_at=timezone.now() - timedelta(hours=1), attempts=1
        )

    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def tick():
        try:
            connection.set_tenant(alpha.tenant)
            barrier.wait(timeout=10)
            deliveries_send_due()
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=tick) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []

    subjects = [m["Subject"] for m in smtp_server.messages]
    assert len(subjects) == len(set(subjects)) == 11  # each once; the uncertain one not at all
    assert "Betreff k0" not in subjects
    with schema_context(alpha.schema_name):
        statuses = dict(Delivery.objects.values_list("dedupe_key", "status"))
        assert statuses.pop("k0") == DeliveryStatus.UNCERTAIN
        assert set(statuses.values()) == {DeliveryStatus.SENT}
        assert "unklar" in Delivery.objects.get(dedupe_key="k0").last_error


@pytest.mark.django_db
def test_an_unreadable_smtp_password_is_recorded_not_fatal(alpha, smtp_server):
    connection.set_tenant(alpha.tenant)
    smtp_to(smtp_server)
    delivery = _queue(user(alpha.member_email))
    with connection.cursor() as cursor:  # ciphertext of a key the platform no longer has
        cursor.execute("UPDATE notifications_smtpsettings SET password = 'gAAAAABnotdecryptable'")
    assert deliveries_send_due().waiting == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and "nicht entschlüsselbar" in delivery.last_error
    assert delivery.attempts == 0


@pytest.mark.django_db
def test_one_batch_of_many_alert_mails_asks_for_one_sender_run(alpha, monkeypatch, django_capture_on_commit_callbacks):
    """Each sender run sweeps the outbox and opens one SMTP connection; a run per mail would hammer the server."""
    from config.celery import app
    from notifications.alerts.deliveries import SEND_TASK_NAME
    from notifications.alerts.services import delta_process
    from tests.notifications.alerts.helpers import ingest, notice, saved_search

    sent = []
    monkeypatch.setattr(app, "send_task", lambda name, **options: sent.append(name))  # the broker is off-machine
    delta = ingest(notice(title="Dachsanierung Rathaus"), notice(title="Dachsanierung Schule"))
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    for name in ("A", "B", "C"):
        saved_search(owner, name=name, q="Dachsanierung", instant_alert=True)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = delta_process(created=delta.created, changed={})
    assert len(outcome.delivery_ids) == 3
    assert sent == [SEND_TASK_NAME]
