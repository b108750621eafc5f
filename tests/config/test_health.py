"""Health: liveness is one cheap database ping; readiness is a snapshot a periodic task stores.

The readiness checks run with a real worker, beat and Redis broker; the view only reads the stored
snapshot, red when a check is past its limit or when the snapshot itself is too old.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.test import Client, override_settings
from django.utils import timezone
from django_tenants.utils import schema_context

from config.enqueue import send_now
from config.health_checks import health_snapshot_read, health_snapshot_refresh
from notifications.models import MailboxSettings, SmtpSettings
from tenders.models import TenderDelta
from tests.fixtures.tenants import PUBLIC_HOST, operator_sign_in
from tests.notifications.alerts.helpers import wait_for


@pytest.fixture(autouse=True)
def _no_snapshot_left_over():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def _ready(client: Client) -> tuple[int, dict]:
    response = client.get("/health/ready/")
    return response.status_code, json.loads(response.content)


@pytest.mark.django_db
def test_an_old_pending_delta_turns_readiness_red(public_client, settings):
    operator_sign_in(public_client)
    settings.HEALTH_DELTA_MAX_AGE_SECONDS = 900
    TenderDelta.objects.create(created_at=timezone.now() - timedelta(seconds=60), created_ids=[1])
    health_snapshot_refresh()
    _status, body = _ready(public_client)
    assert body["checks"]["oldest_pending_delta"]["ok"] is True
    TenderDelta.objects.create(created_at=timezone.now() - timedelta(seconds=1000), created_ids=[2])
    health_snapshot_refresh()
    status, body = _ready(public_client)
    assert status == 503 and body["status"] == "failing"
    assert body["checks"]["oldest_pending_delta"]["ok"] is False
    assert body["checks"]["oldest_pending_delta"]["age_seconds"] >= 1000


@pytest.mark.django_db
def test_the_readiness_view_only_reads_the_snapshot(public_client, monkeypatch):
    operator_sign_in(public_client)
    health_snapshot_refresh()

    def computed_by_the_request(**kwargs):
        raise AssertionError("the request computed the report")

    monkeypatch.setattr("config.health_checks.health_report", computed_by_the_request)
    status, body = _ready(public_client)
    assert status in (200, 503) and body["status"] in ("ok", "failing")
    assert body["age_seconds"] < 60 and "beat" in body["checks"]


@pytest.mark.django_db
def test_no_snapshot_or_a_stale_one_is_503_with_its_age(public_client, settings):
    operator_sign_in(public_client)
    settings.HEALTH_SNAPSHOT_MAX_AGE_SECONDS = 180
    status, body = _ready(public_client)
    assert status == 503 and body["status"] == "unknown" and body["age_seconds"] is None

    health_snapshot_refresh(now=timezone.now() - timedelta(seconds=200))
    status, body = _ready(public_client)
    assert status == 503 and body["status"] == "stale"
    assert body["age_seconds"] >= 200 and body["limit_seconds"] == 180


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/healthz", "/health/"])
def test_liveness_is_one_database_ping_without_broker_or_tenant_reads(public_client, monkeypatch, path):
    def forbidden(*args, **kwargs):
        raise AssertionError("liveness must not do this")

    monkeypatch.setattr("config.health_checks.health_report", forbidden)
    monkeypatch.setattr("config.health_checks._check_broker_and_workers", forbidden)
    monkeypatch.setattr("notifications.alerts.selectors.outbox_health_all_tenants", forbidden)
    response = public_client.get(path)
    assert response.status_code == 200
    assert json.loads(response.content) == {"status": "ok"}


@pytest.mark.django_db
def test_liveness_is_503_when_the_database_does_not_answer(public_client, alpha, monkeypatch):
    def down():
        raise OSError("connection refused")

    monkeypatch.setattr("config.health.database_ping", down)
    for client, path in (
        (public_client, "/health/"),
        (public_client, "/healthz"),
        (Client(HTTP_HOST=alpha.host), "/healthz"),
    ):
        response = client.get(path)
        assert response.status_code == 503 and json.loads(response.content) == {"status": "unavailable"}


@pytest.mark.django_db
def test_the_periodic_task_registered_by_its_name_stores_the_snapshot(monkeypatch):
    # Run as a worker runs it (the app's registry, by name, in the public schema). Replies of live
    # workers are the green test's business below; here no worker answers, so the report is red.
    from config.celery import app

    app.loader.import_default_modules()
    monkeypatch.setattr("config.health_checks._check_broker_and_workers", lambda report: report.add("broker", True))
    assert health_snapshot_read().computed_at is None
    app.tasks["config.health_snapshot"]()
    snapshot = health_snapshot_read()
    assert snapshot.fresh and {"database", "broker", "beat", "oldest_pending_delta"} <= set(snapshot.checks)


def test_the_snapshot_is_scheduled_every_minute_on_the_match_queue(settings):
    from config.celery import queue_of

    spec = settings.PLATFORM_PERIODIC_TASKS["config: health snapshot"]
    assert spec["task"] == "config.health_snapshot" and spec["minutes"] == 1 and spec["queue"] == "match"
    assert queue_of("config.health_snapshot") == "match"
    # Three missed runs make it stale, one late run does not.
    assert 60 < settings.HEALTH_SNAPSHOT_MAX_AGE_SECONDS <= 300


@pytest.mark.usefixtures("committed")
def test_readiness_is_green_with_worker_and_beat_and_red_when_the_worker_is_gone(
    processes, committed_tenants, tmp_path
):
    # The production path: the worker computes the snapshot (the periodic task, sent by name) into the cache
    # every process shares, and the readiness view of this process reads it.
    shared_cache = tmp_path / "cache"
    cache_settings = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(shared_cache),
            "KEY_FUNCTION": "django_tenants.cache.make_key",
            "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        }
    }
    with override_settings(CACHES=cache_settings):
        worker = processes.worker(queues="ingest,match,notify", TEST_CACHE_DIR=str(shared_cache))
        processes.beat(TEST_CACHE_DIR=str(shared_cache))
        client = operator_sign_in(Client(HTTP_HOST=PUBLIC_HOST))
        last: list = []

        def green():
            send_now("config.health_snapshot")
            time.sleep(1.0)
            last[:] = [_ready(client)]
            return last[0][0] == 200 and last[0]

        try:
            status, body = wait_for(green, what="green readiness", timeout=90)
        except AssertionError as error:
            raise AssertionError(f"{error}; last answer {last}") from None
        assert body["checks"]["workers"]["per_queue"] == {"ingest": 1, "match": 1, "notify": 1}
        assert body["checks"]["beat"]["ok"] and body["checks"]["broker"]["ok"]

        # The worker gone: the next snapshot (computed here, as no worker is left to run the task) is red.
        worker.kill()
        health_snapshot_refresh()
        status, body = _ready(client)
        assert status == 503
        assert body["checks"]["workers"] == {"ok": False, "per_queue": {"ingest": 0, "match": 0, "notify": 0}}

        processes.broker.stop()
        health_snapshot_refresh()
        status, body = _ready(client)
        assert status == 503 and body["checks"]["broker"]["ok"] is False


@pytest.mark.django_db
def test_a_tenant_has_at_most_one_smtp_and_one_mailbox_row(alpha):
    with schema_context(alpha.schema_name):
        SmtpSettings.objects.create(host="smtp.example.org", from_email="radar@alpha.example")
        with pytest.raises(IntegrityError), transaction.atomic():
            SmtpSettings.objects.create(host="other.example.org", from_email="radar@alpha.example")
        MailboxSettings.objects.create(host="imap.example.org", username="radar", password="x")
        with pytest.raises(IntegrityError), transaction.atomic():
            MailboxSettings.objects.create(host="imap2.example.org", username="radar", password="y")
