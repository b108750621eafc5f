"""Delivery against a real HTTP server on loopback (pytest-httpserver)."""

from __future__ import annotations

import json
import time
from datetime import timedelta

from django.test.utils import override_settings
from django.utils import timezone
from werkzeug import Response

from notifications.models import DeliveryStatus, WebhookEvent
from notifications.webhooks.delivery import SENDING_STALE_AFTER, webhook_events_send_due
from notifications.webhooks.signing import verify_signature
from tests.fixtures.network import free_loopback_port
from tests.notifications.webhooks.conftest import ingest_tenders


def _posts(httpserver):
    return [request for request, _response in httpserver.log]


def test_matched_event_is_posted_once_with_a_valid_signature(scene, httpserver):
    httpserver.expect_request("/hook", method="POST").respond_with_data("ok", status=200)
    tender = ingest_tenders(1, title="Neubau Feuerwache – Los 1")[0]
    event = scene.matched_event(tender)

    summary = webhook_events_send_due()
    assert (summary.sent, summary.retrying, summary.failed) == (1, 0, 0)
    assert webhook_events_send_due().sent == 0  # nothing left to send

    [request] = _posts(httpserver)
    body = request.get_data()
    assert verify_signature(
        secret=scene.secret, body=body, header=request.headers["X-TenderRadar-Signature"], now=int(time.time())
    )
    assert not verify_signature(
        secret="whsec_wrong", body=body, header=request.headers["X-TenderRadar-Signature"], now=int(time.time())
    )
    assert request.headers["X-TenderRadar-Event"] == "tender.matched"
    assert request.headers["X-TenderRadar-Delivery"] == event.payload["id"]
    assert request.headers["Content-Type"].startswith("application/json")
    sent = json.loads(body)
    assert sent == event.payload
    assert sent["tender"]["title"] == "Neubau Feuerwache – Los 1"

    event.refresh_from_db()
    assert (event.status, event.response_status, event.attempts) == ("sent", 200, 1)
    assert event.sent_at is not None


def test_503_is_retried_later_and_then_delivered_with_the_same_delivery_id(scene, httpserver):
    httpserver.expect_oneshot_request("/hook").respond_with_data("Wartung", status=503)
    httpserver.expect_request("/hook").respond_with_data("", status=204)
    event = scene.matched_event(ingest_tenders(1)[0])

    first = webhook_events_send_due()
    assert (first.sent, first.retrying) == (0, 1)
    event.refresh_from_db()
    assert (event.status, event.attempts, event.response_status) == ("pending", 1, 503)
    assert "Wartung" in event.last_error
    assert event.next_attempt_at > timezone.now() + timedelta(seconds=10)

    assert webhook_events_send_due().sent == 0  # not due yet
    assert len(_posts(httpserver)) == 1

    second = webhook_events_send_due(now=event.next_attempt_at + timedelta(seconds=1))
    assert second.sent == 1
    event.refresh_from_db()
    assert (event.status, event.attempts, event.response_status, event.last_error) == ("sent", 2, 204, "")
    first_post, second_post = _posts(httpserver)
    assert first_post.headers["X-TenderRadar-Delivery"] == second_post.headers["X-TenderRadar-Delivery"]
    assert first_post.get_data() == second_post.get_data()


def test_retry_after_is_honoured(scene, httpserver):
    httpserver.expect_request("/hook").respond_with_data("slow down", status=429, headers={"Retry-After": "900"})
    event = scene.matched_event(ingest_tenders(1)[0])
    before = timezone.now()
    webhook_events_send_due(now=before)
    event.refresh_from_db()
    assert event.status == "pending"
    assert event.next_attempt_at >= before + timedelta(seconds=900)


def test_410_fails_for_good(scene, httpserver):
    httpserver.expect_request("/hook").respond_with_data("gone", status=410)
    event = scene.matched_event(ingest_tenders(1)[0])

    assert webhook_events_send_due().failed == 1
    assert webhook_events_send_due(now=timezone.now() + timedelta(days=2)).failed == 0
    event.refresh_from_db()
    assert (event.status, event.response_status) == ("failed", 410)
    assert "HTTP 410" in event.last_error
    assert len(_posts(httpserver)) == 1


def test_redirects_are_not_followed(scene, httpserver):
    httpserver.expect_request("/hook").respond_with_data("", status=302, headers={"Location": "http://10.0.0.1/"})
    httpserver.expect_request("/elsewhere").respond_with_data("ok")
    event = scene.matched_event(ingest_tenders(1)[0])
    webhook_events_send_due()
    event.refresh_from_db()
    assert (event.status, event.response_status) == ("failed", 302)
    assert [r.path for r in _posts(httpserver)] == ["/hook"]


def test_huge_error_bodies_are_cut(scene, httpserver):
    httpserver.expect_request("/hook").respond_with_data("ü" * 2_000_000, status=400)
    event = scene.matched_event(ingest_tenders(1)[0])
    webhook_events_send_due()
    event.refresh_from_db()
    assert event.status == "failed"
    assert len(event.last_error) <= 500 and "üüü" in event.last_error


def test_connection_refused_is_retried(scene):
    closed_port = free_loopback_port()
    scene.webhook.url = f"http://127.0.0.1:{closed_port}/hook"
    scene.webhook.save(update_fields=["url"])
    event = scene.matched_event(ingest_tenders(1)[0])

    assert webhook_events_send_due().retrying == 1
    event.refresh_from_db()
    assert (event.status, event.response_status) == ("pending", None)
    assert "ConnectError" in event.last_error


def test_last_attempt_gives_up(scene, httpserver, settings):
    settings.WEBHOOKS_BACKOFF = {**settings.WEBHOOKS_BACKOFF, "max_attempts": 3}  # read from settings
    httpserver.expect_request("/hook").respond_with_data("down", status=500)
    event = scene.matched_event(ingest_tenders(1)[0])
    WebhookEvent.objects.filter(pk=event.pk).update(attempts=2)
    webhook_events_send_due()
    event.refresh_from_db()
    assert (event.status, event.attempts) == ("failed", 3)
    assert event.last_error.startswith("nach 3 Versuchen aufgegeben")


def test_url_now_pointing_inwards_is_not_called(scene, httpserver):
    """Checked again before each request: what was fine when saved may resolve inwards today."""
    scene.webhook.url = f"https://127.0.0.1:{httpserver.port}/hook"
    scene.webhook.save(update_fields=["url"])
    event = scene.matched_event(ingest_tenders(1)[0])
    with override_settings(SOURCES_ALLOW_LOOPBACK=False):
        assert webhook_events_send_due().failed == 1
    event.refresh_from_db()
    assert event.status == "failed"
    assert "interne Adresse (loopback)" in event.last_error
    assert _posts(httpserver) == []


def test_event_stuck_in_sending_becomes_uncertain_and_is_not_resent(scene, httpserver):
    httpserver.expect_request("/hook").respond_with_data("ok")
    event = scene.matched_event(ingest_tenders(1)[0])
    claimed = timezone.now() - SENDING_STALE_AFTER - timedelta(seconds=5)
    WebhookEvent.objects.filter(pk=event.pk).update(status=DeliveryStatus.SENDING, claimed_at=claimed, attempts=1)

    summary = webhook_events_send_due()
    assert (summary.uncertain, summary.sent) == (1, 0)
    event.refresh_from_db()
    assert event.status == "uncertain" and "unbekannt" in event.last_error
    assert _posts(httpserver) == []


def test_recently_claimed_event_is_left_alone(scene, httpserver):
    event = scene.matched_event(ingest_tenders(1)[0])
    WebhookEvent.objects.filter(pk=event.pk).update(status=DeliveryStatus.SENDING, claimed_at=timezone.now())
    assert webhook_events_send_due().uncertain == 0
    event.refresh_from_db()
    assert event.status == "sending"
    assert _posts(httpserver) == []


def test_events_of_an_inactive_webhook_are_not_sent(scene, httpserver):
    event = scene.matched_event(ingest_tenders(1)[0])
    type(scene.webhook).objects.filter(pk=scene.webhook.pk).update(is_active=False)
    webhook_events_send_due()
    event.refresh_from_db()
    assert event.status == "pending"
    assert _posts(httpserver) == []


def test_slow_receiver_times_out_and_is_retried(scene, httpserver, monkeypatch):
    monkeypatch.setattr("notifications.webhooks.delivery.READ_TIMEOUT_SECONDS", 0.3)

    def slow(request):
        time.sleep(1.0)
        return Response("late", status=200)

    httpserver.expect_request("/hook").respond_with_handler(slow)
    event = scene.matched_event(ingest_tenders(1)[0])
    assert webhook_events_send_due().retrying == 1
    event.refresh_from_db()
    assert event.status == "pending" and "Timeout" in event.last_error


def test_an_unexpected_error_marks_only_that_event_uncertain(scene, httpserver, monkeypatch):
    """Simulates a defect while building one request: that event is not retried blindly, the batch goes on."""
    from notifications.webhooks import delivery

    httpserver.expect_request("/hook").respond_with_data("ok")
    first, second = ingest_tenders(2)
    broken, fine = scene.matched_event(first), scene.matched_event(second)
    real = delivery._request_headers

    def fails_once(claimed, body):
        if claimed.event_id == broken.pk:
            raise RuntimeError("defect")
        return real(claimed, body)

    monkeypatch.setattr(delivery, "_request_headers", fails_once)
    summary = webhook_events_send_due()
    assert (summary.uncertain, summary.sent) == (1, 1)
    broken.refresh_from_db()
    fine.refresh_from_db()
    assert (broken.status, fine.status) == ("uncertain", "sent")
