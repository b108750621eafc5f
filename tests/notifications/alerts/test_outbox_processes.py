"""Never twice, with real processes: a worker killed mid-send, two beat schedulers, concurrent digests."""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from datetime import datetime

import pytest
from django.db import connection
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask
from django_tenants.utils import schema_context

from config.celery import app as celery_app
from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.digest import digests_create_due
from notifications.models import Delivery, DeliveryKind, DeliveryStatus, TenderMatch
from tests.notifications.alerts.helpers import (
    ingest,
    notice,
    preference,
    saved_search,
    settle,
    smtp_to,
    user,
    wait_for,
)

pytestmark = pytest.mark.usefixtures("committed")


def _delivery(schema: str) -> Delivery | None:
    with schema_context(schema):
        return Delivery.objects.first()


def test_a_worker_killed_mid_send_leaves_the_mail_uncertain_and_it_is_never_sent_again(
    processes, committed_tenants, smtp_server
):
    alpha, _beta = committed_tenants
    with schema_context("alpha"):
        smtp_to(smtp_server)
        saved_search(user(alpha.member_email), q="Dach", instant_alert=True)
    release = smtp_server.hold_data()
    worker = processes.worker()
    ingest(notice(title="Dach Turnhalle"), hand_off=True)

    assert smtp_server.handler.entered.wait(timeout=60), "the mail never reached the SMTP server"
    worker.kill(signal.SIGKILL)  # the sender dies after handing over the message, before hearing the answer
    release.set()
    assert len(smtp_server.messages) == 1
    assert _delivery("alpha").status == DeliveryStatus.SENDING

    smtp_server.handler.hold = None
    processes.worker(ALERTS_SENDING_STALE_SECONDS="1")
    time.sleep(1.2)
    for _ in range(2):  # what the per-minute sweep does, twice
        celery_app.send_task("notifications.send_due_deliveries", headers={"_schema_name": "alpha"})
    wait_for(lambda: _delivery("alpha").status == DeliveryStatus.UNCERTAIN, what="the row to become uncertain")
    time.sleep(2)
    delivery = _delivery("alpha")
    assert delivery.status == DeliveryStatus.UNCERTAIN and delivery.attempts == 1
    assert "unklar" in delivery.last_error
    assert len(smtp_server.messages) == 1


def _every_second(name: str, task: str) -> None:
    every, _ = IntervalSchedule.objects.get_or_create(every=1, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.update_or_create(name=name, defaults={"task": task, "interval": every, "enabled": True})


def test_two_beat_schedulers_at_once_make_one_mail_per_tenant_tender_and_profile(
    processes, committed_tenants, smtp_server
):
    alpha, beta = committed_tenants
    profiles = {}
    for tenant, names in ((alpha, ("Dach", "Turnhalle")), (beta, ("Dach",))):
        with schema_context(tenant.schema_name):
            smtp_to(smtp_server)
            for name in names:
                search = saved_search(
                    user(tenant.member_email), name=f"{tenant.schema_name} {name}", q=name, instant_alert=True
                )
                profiles[search.name] = tenant.schema_name
    _every_second("test: dispatch deltas", "tenders.dispatch_deltas")
    _every_second("test: send due mails", "notifications.send_due_fanout")
    processes.worker(concurrency=2)
    processes.beat()
    processes.beat()

    ingest(notice(title="Dach Turnhalle"), notice(title="Dach Rathaus"), hand_off=True)
    wait_for(lambda: len(smtp_server.messages) >= 3, what="the mails", timeout=60)
    time.sleep(5)  # both beats keep dispatching and sweeping meanwhile
    settle("alpha", "beta")

    subjects = Counter(message["Subject"] for message in smtp_server.messages)
    assert len(smtp_server.messages) == 3, subjects
    for name in profiles:
        assert sum(count for subject, count in subjects.items() if subject.startswith(f"[{name}]")) == 1, subjects
    for schema, expected in (("alpha", {("Dach", 2), ("Turnhalle", 1)}), ("beta", {("Dach", 2)})):
        with schema_context(schema):
            pairs = list(TenderMatch.objects.values_list("saved_search_id", "tender_id"))
            assert len(pairs) == len(set(pairs))
            assert {
                (name.split(" ", 1)[1], n)
                for name, n in Counter(TenderMatch.objects.values_list("saved_search__name", flat=True)).items()
            } == expected
            assert Delivery.objects.filter(status=DeliveryStatus.SENT).count() == len(expected)


def test_concurrent_digest_runs_for_one_user_make_one_digest(committed_tenants):
    alpha, _beta = committed_tenants
    with schema_context("alpha"):
        member = user(alpha.member_email)
        preference(member, digest_hour=7)
        saved_search(member, q="Dach")
    ingest(notice(title="Dach Turnhalle"))
    from tenders.models import Tender

    with schema_context("alpha"):
        search = member.saved_searches.get()
        TenderMatch.objects.create(saved_search=search, tender=Tender.objects.get(), matched_at=timezone.now())

    now = datetime(2026, 9, 15, 9, 0, tzinfo=BERLIN)
    start = threading.Barrier(4)
    results, errors = [], []

    def run():
        try:
            connection.set_tenant(alpha.tenant)
            start.wait()
            results.append(digests_create_due(now=now).sent)
        except Exception as exc:  # surfaced below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(results) == [0, 0, 0, 1]
    with schema_context("alpha"):
        assert Delivery.objects.filter(kind=DeliveryKind.DIGEST).count() == 1
