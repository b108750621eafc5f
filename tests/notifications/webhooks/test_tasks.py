"""Committed data, real worker threads: the at-most-once claim across connections."""

from __future__ import annotations

import threading
import time

from django.db import connection
from django.utils import timezone
from werkzeug import Response

from notifications.models import WebhookEvent
from notifications.tasks.webhooks import send_due_webhooks_task, webhooks_fanout_task
from notifications.webhooks.delivery import webhook_events_send_due
from notifications.webhooks.services import SEND_DUE_TASK_NAME, webhook_events_for_matches
from tests.notifications.webhooks.conftest import build_scene, ingest_tenders


def _wait_for(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _recording_handler(received: list[str], lock: threading.Lock, *, delay: float = 0.0):
    def handle(request):
        time.sleep(delay)
        with lock:
            received.append(request.headers["X-TenderRadar-Delivery"])
        return Response("ok", status=200)

    return handle


def test_concurrent_runs_post_every_event_exactly_once(committed_tenants, httpserver, monkeypatch):
    alpha, _beta = committed_tenants
    from config.celery import app

    # Sends are recorded, not delivered: the three runs below send the events themselves.
    started: list[str] = []
    monkeypatch.setattr(app, "send_task", lambda name, **options: started.append(name))
    received: list[str] = []
    lock = threading.Lock()
    httpserver.expect_request("/hook").respond_with_handler(_recording_handler(received, lock, delay=0.05))
    scene = build_scene(alpha, httpserver.url_for("/hook"))
    matches = [scene.match(tender).pk for tender in ingest_tenders(8)]
    assert webhook_events_for_matches(match_ids=matches) == 8
    assert started.count(SEND_DUE_TASK_NAME) == 1  # sending is started after commit, once per batch

    barrier = threading.Barrier(3)
    summaries = []

    def run():
        try:
            connection.set_tenant(alpha.tenant)
            barrier.wait(timeout=10)
            summaries.append(webhook_events_send_due())
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert len(summaries) == 3
    assert sum(s.sent for s in summaries) == 8
    assert len(received) == 8 and len(set(received)) == 8
    connection.set_tenant(alpha.tenant)
    assert set(WebhookEvent.objects.values_list("status", flat=True)) == {"sent"}


def test_worker_delivers_a_new_match_once_even_when_the_task_runs_again(celery_worker, committed_tenants, httpserver):
    alpha, _beta = committed_tenants
    received: list[str] = []
    lock = threading.Lock()
    httpserver.expect_request("/hook").respond_with_handler(_recording_handler(received, lock))
    scene = build_scene(alpha, httpserver.url_for("/hook"))
    first, second = ingest_tenders(2)

    # Matching creates the event; after commit the worker sends it (in alpha's schema).
    assert webhook_events_for_matches(match_ids=[scene.match(first).pk]) == 1
    assert _wait_for(lambda: WebhookEvent.objects.filter(status="sent").count() == 1)

    send_due_webhooks_task.delay()
    send_due_webhooks_task.delay()
    # A later event's task queues behind those two; once it is delivered, they have run.
    assert webhook_events_for_matches(match_ids=[scene.match(second).pk]) == 1
    assert _wait_for(lambda: WebhookEvent.objects.filter(status="sent").count() == 2)

    assert len(received) == 2 and len(set(received)) == 2


def test_fanout_sends_due_events_of_every_tenant(celery_worker, committed_tenants, httpserver):
    alpha, beta = committed_tenants
    received: list[str] = []
    lock = threading.Lock()
    httpserver.expect_request("/hook").respond_with_handler(_recording_handler(received, lock))
    now = timezone.now()
    for test_tenant in (alpha, beta):
        scene = build_scene(test_tenant, httpserver.url_for("/hook"))
        # Rows written directly: only the periodic fan-out may pick them up in this test.
        WebhookEvent.objects.create(
            webhook=scene.webhook,
            event="tender.matched",
            event_key="matched:1",
            payload={"id": f"evt-{test_tenant.schema_name}", "event": "tender.matched"},
            next_attempt_at=now,
        )

    connection.set_schema_to_public()
    webhooks_fanout_task.delay()

    def all_sent() -> bool:
        for test_tenant in (alpha, beta):
            connection.set_tenant(test_tenant.tenant)
            if not WebhookEvent.objects.filter(status="sent").exists():
                return False
        return True

    assert _wait_for(all_sent)
    assert sorted(received) == ["evt-alpha", "evt-beta"]
