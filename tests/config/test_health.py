"""/health/: red when a check is past its limit, with a real worker, beat and Redis broker."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import MailboxSettings, SmtpSettings
from tenders.models import TenderDelta
from tests.notifications.alerts.helpers import wait_for


def _health(client: Client) -> tuple[int, dict]:
    response = client.get("/health/")
    return response.status_code, json.loads(response.content)


@pytest.mark.django_db
def test_an_old_pending_delta_turns_health_red(public_client, settings):
    settings.HEALTH_DELTA_MAX_AGE_SECONDS = 900
    TenderDelta.objects.create(created_at=timezone.now() - timedelta(seconds=60), created_ids=[1])
    _status, body = _health(public_client)
    assert body["checks"]["oldest_pending_delta"]["ok"] is True
    TenderDelta.objects.create(created_at=timezone.now() - timedelta(seconds=1000), created_ids=[2])
    status, body = _health(public_client)
    assert status == 503 and body["status"] == "failing"
    assert body["checks"]["oldest_pending_delta"]["ok"] is False
    assert body["checks"]["oldest_pending_delta"]["age_seconds"] >= 1000


@pytest.mark.usefixtures("committed")
def test_health_is_green_with_worker_and_beat_and_red_when_the_worker_is_gone(processes, committed_tenants):
    worker = processes.worker(queues="ingest,match,notify")
    processes.beat()
    client = Client(HTTP_HOST="localhost")
    status, body = wait_for(lambda: (r := _health(client))[0] == 200 and r, what="green health", timeout=90)
    assert body["checks"]["workers"]["per_queue"] == {"ingest": 1, "match": 1, "notify": 1}
    assert body["checks"]["beat"]["ok"] and body["checks"]["broker"]["ok"]

    worker.kill()
    status, body = _health(client)
    assert status == 503
    assert body["checks"]["workers"] == {"ok": False, "per_queue": {"ingest": 0, "match": 0, "notify": 0}}

    processes.broker.stop()
    status, body = _health(client)
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
