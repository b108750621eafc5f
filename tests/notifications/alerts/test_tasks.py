"""Task edges and the per-tenant service behind them: input checks, idempotency (fan-out: tests/accounts)."""

from __future__ import annotations

import pytest
from django.db import connection

from notifications.alerts.services import delta_parse, delta_process
from notifications.models import Delivery, DeliveryKind, TenderMatch
from notifications.tasks.alerts import send_due_deliveries
from tests.notifications.alerts.helpers import changed_notice, ingest, notice, saved_search, user


@pytest.mark.django_db
def test_tenant_tasks_sent_without_a_tenant_do_nothing():
    connection.set_schema_to_public()
    # Called as the worker calls it (the schema check precedes the body; ``run`` is the body alone).
    assert send_due_deliveries() == {}


def test_the_ingest_hand_off_is_validated():
    created, changed = delta_parse(
        payload={"created": ["3", 4, 4], "changed": {"5": {"status": ["active", "cancelled"]}}}
    )
    assert created == (3, 4)
    assert changed == {5: {"status": ["active", "cancelled"]}}
    with pytest.raises(ValueError):
        delta_parse(payload={"created": ["drei"]})
    with pytest.raises(ValueError):
        delta_parse(payload=["not", "a", "delta"])
    with pytest.raises(ValueError):
        delta_parse(payload={"created": [None], "changed": []})


@pytest.mark.django_db
def test_running_the_same_delta_again_creates_no_second_mail(alpha):
    record = notice(title="Dach Turnhalle")
    delta = ingest(record)
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dach", instant_alert=True)

    first = delta_process(created=delta.created, changed=delta.changed)
    again = delta_process(created=delta.created, changed=delta.changed)
    assert len(first.delivery_ids) == 1 and again.delivery_ids == ()
    assert Delivery.objects.get().kind == DeliveryKind.INSTANT

    connection.set_schema_to_public()
    cancelled = ingest(changed_notice(record, status="cancelled"))
    connection.set_tenant(alpha.tenant)
    assert len(delta_process(created=(), changed=cancelled.changed).delivery_ids) == 1
    assert delta_process(created=(), changed=cancelled.changed).delivery_ids == ()
    change_mail = Delivery.objects.get(kind=DeliveryKind.CHANGE)
    assert change_mail.subject == "[Dach Bayern] Aufgehoben: Dach Turnhalle"
    assert TenderMatch.objects.count() == 1


@pytest.mark.django_db
def test_matches_of_searches_without_instant_alerts_wait_for_the_digest(alpha):
    delta = ingest(notice(title="Dach Turnhalle"))
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dach")
    saved_search(user(alpha.member_email), name="stumm", q="Dach", instant_alert=True, email_enabled=False)
    outcome = delta_process(created=delta.created, changed={})
    assert len(outcome.match_ids) == 2 and outcome.delivery_ids == ()
    assert not TenderMatch.objects.filter(notified_at__isnull=False).exists()
