"""The shared side of the hand-off: a delta row per batch, who still has to match it, coalescing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Tenant
from notifications.alerts.handoff import deltas_match_pending
from notifications.models import TenderMatch
from tenders.handoff import (
    PendingDelta,
    deltas_coalesce,
    deltas_dispatch,
    deltas_mark_completed,
    deltas_oldest_pending_age,
    tenants_with_pending_deltas,
)
from tenders.models import TenderDelta, TenderDeltaCompletion
from tests.notifications.alerts.helpers import changed_notice, ingest, notice, saved_search, user


def test_coalescing_keeps_every_new_id_once_and_the_first_old_and_last_new_value():
    first = PendingDelta(id=1, created_ids=(3, 4), changed={"7": {"status": ["active", "awarded"]}})
    second = PendingDelta(
        id=2,
        created_ids=(4, 5),
        changed={"7": {"status": ["awarded", "cancelled"]}, "8": {"submission_deadline": ["a", "b"]}},
    )
    broken = PendingDelta(id=3, created_ids=(), changed={"9": "not a mapping", "8": {"title": ["only one"]}})
    created, changed = deltas_coalesce([first, second, broken])
    assert created == (3, 4, 5)
    assert changed == {7: {"status": ["active", "cancelled"]}, 8: {"submission_deadline": ["a", "b"]}}


@pytest.mark.django_db
def test_the_delta_is_written_in_the_batch_transaction_and_vanishes_with_it():
    with pytest.raises(RuntimeError), transaction.atomic():
        ingest(notice(title="Dach Turnhalle"), hand_off=True)
        assert TenderDelta.objects.count() == 1
        raise RuntimeError("the batch fails after the ingest")
    assert TenderDelta.objects.count() == 0

    delta = ingest(notice(title="Dach Turnhalle"), hand_off=True)
    row = TenderDelta.objects.get()
    assert row.created_ids == list(delta.created) and row.completed_at is None


@pytest.mark.django_db
def test_an_unchanged_batch_hands_nothing_on():
    record = notice(title="Dach Turnhalle")
    ingest(record, hand_off=True)
    ingest(record, hand_off=True)
    assert TenderDelta.objects.count() == 1


@pytest.mark.django_db
def test_each_tenant_completes_on_its_own_and_a_tenant_created_later_gets_no_old_deltas(alpha, beta):
    record = notice(title="Dach Turnhalle")
    ingest(record, hand_off=True)
    assert set(tenants_with_pending_deltas()) >= {"alpha", "beta"}

    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dach")
    assert deltas_match_pending().deltas == 1
    assert TenderMatch.objects.count() == 1
    assert deltas_match_pending().deltas == 0  # completed: nothing to repeat
    connection.set_schema_to_public()
    assert "alpha" not in tenants_with_pending_deltas() and "beta" in tenants_with_pending_deltas()
    assert deltas_mark_completed(now=timezone.now()) == 0  # beta has not matched it yet

    # A tenant whose row is newer than the delta (created afterwards) is not waited for and gets nothing.
    late = Tenant.objects.get(schema_name="beta")
    Tenant.objects.filter(pk=late.pk).update(created_at=timezone.now() + timedelta(seconds=1))
    assert "beta" not in tenants_with_pending_deltas()
    assert deltas_mark_completed(now=timezone.now()) == 1
    assert deltas_oldest_pending_age() is None


@pytest.mark.django_db
def test_a_tenant_matches_several_pending_deltas_in_one_round(alpha):
    record = notice(title="Dach Turnhalle")
    ingest(record, hand_off=True)
    ingest(notice(title="Dach Rathaus"), hand_off=True)
    # A change, not a cancellation: cancelled tenders are left out of new alerts (tenders.filters.effective_filters).
    ingest(changed_notice(record, title="Dach Turnhalle Nord"), hand_off=True)
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dach")
    run = deltas_match_pending()
    assert (run.rounds, run.deltas, run.matches) == (1, 3, 2)
    assert TenderDeltaCompletion.objects.filter(tenant=alpha.tenant).count() == 3


@pytest.mark.django_db
def test_with_the_broker_unreachable_dispatch_gives_up_at_once_and_the_deltas_stay_pending(alpha, beta):
    from config.celery import app
    from tests.fixtures.network import free_loopback_port
    from tests.fixtures.processes import _point_app_at

    previous = app.conf.broker_url
    _point_app_at(f"redis://127.0.0.1:{free_loopback_port()}/0")  # nothing listens there
    try:
        ingest(notice(title="Dach Turnhalle"), hand_off=True)
        result = deltas_dispatch()
    finally:
        _point_app_at(previous)
    assert result.sent == [] and set(result.not_sent) >= {"alpha", "beta"}
    assert TenderDelta.objects.get().completed_at is None
