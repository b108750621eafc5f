"""Which tracked changes become news, and that each is recorded once per match."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.utils import timezone

from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.change_labels import DEADLINE, change_label
from notifications.alerts.changes import ChangeNotice, change_notices, match_changes_insert
from notifications.models import ChangeKind, MatchChange, TenderMatch
from tests.notifications.alerts.helpers import changed_notice, ingest, notice, saved_search, user

OLD = "2026-10-01T12:00:00+02:00"
LATER = "2026-11-03T10:00:00+01:00"


def test_deadline_moves_are_keyed_by_the_new_deadline_in_berlin_time():
    assert change_notices({"submission_deadline": [OLD, "2026-11-03T09:00:00+00:00"]}) == [
        ChangeNotice(
            kind="deadline",
            change_key="deadline:2026-11-03T10:00+01:00",
            old_value="2026-10-01T12:00+02:00",
            new_value="2026-11-03T10:00+01:00",
        )
    ]


def test_cancelled_and_awarded_are_news_other_statuses_and_titles_are_not():
    assert [n.change_key for n in change_notices({"status": ["active", "cancelled"]})] == ["status:cancelled"]
    assert [n.kind for n in change_notices({"status": ["active", "awarded"]})] == ["awarded"]
    assert change_notices({"status": ["active", "expired"]}) == []
    assert change_notices({"title": ["a", "b"], "estimated_value": ["1", "2"]}) == []


@pytest.mark.parametrize(
    "deadline",
    [[OLD, None], [OLD, "nächste Woche"], [OLD, OLD.replace(":00+02:00", ":30+02:00")], "kaputt", [OLD]],
)
def test_unreadable_removed_or_same_minute_deadlines_are_not_news(deadline):
    assert change_notices({"submission_deadline": deadline}) == []


def test_labels_say_which_way_the_deadline_moved():
    assert change_label(kind="deadline", old_value=OLD, new_value=LATER) == "deadline_extended"
    assert change_label(kind="deadline", old_value=LATER, new_value=OLD) == "deadline_shortened"
    assert change_label(kind="deadline", old_value="", new_value=LATER) == "deadline_set"
    assert change_label(kind="cancelled", old_value="active", new_value="cancelled") == "cancelled"


def test_the_pure_label_module_names_the_models_deadline_kind():
    assert DEADLINE == ChangeKind.DEADLINE


@pytest.mark.django_db
def test_real_ingest_changes_become_one_notice_per_match_and_change(alpha):
    record = notice(title="Dach", submission_deadline=datetime(2026, 10, 1, 12, tzinfo=BERLIN))
    first = ingest(record)
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    searches = [saved_search(owner, name="A", q="Dach"), saved_search(owner, name="B", q="Dach")]
    now = timezone.now()
    for search in searches:
        TenderMatch.objects.create(saved_search=search, tender_id=first.created[0], matched_at=now)
    connection.set_schema_to_public()

    moved = ingest(changed_notice(record, submission_deadline=datetime(2026, 10, 15, 12, tzinfo=BERLIN)))
    assert list(moved.changed) == [first.created[0]]
    connection.set_tenant(alpha.tenant)
    created = match_changes_insert(changed=moved.changed, now=now)
    assert len(created) == 2
    assert set(MatchChange.objects.values_list("change_key", flat=True)) == {"deadline:2026-10-15T12:00+02:00"}

    # The same change reported again (re-poll, re-run of the task) is not news again.
    assert match_changes_insert(changed=moved.changed, now=now + timedelta(minutes=5)) == []
    assert MatchChange.objects.count() == 2


@pytest.mark.django_db
def test_changes_of_tenders_nobody_matched_create_nothing(alpha):
    connection.set_tenant(alpha.tenant)
    assert match_changes_insert(changed={999999: {"status": ["active", "cancelled"]}}, now=timezone.now()) == []


def test_a_change_the_owner_cannot_be_mailed_now_is_not_used_up(alpha):
    """A change is told once; while its owner's address is unusable it must stay for later (digest, fixed address)."""
    from notifications.alerts.services import change_alerts_create

    record = notice(title="Dach", submission_deadline=datetime(2026, 10, 1, 12, tzinfo=BERLIN))
    first = ingest(record)
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    search = saved_search(owner, name="A", q="Dach", instant_alert=True)
    now = timezone.now()
    TenderMatch.objects.create(saved_search=search, tender_id=first.created[0], matched_at=now, notified_at=now)
    connection.set_schema_to_public()
    moved = ingest(changed_notice(record, submission_deadline=datetime(2026, 10, 15, 12, tzinfo=BERLIN)))
    connection.set_tenant(alpha.tenant)
    [change] = match_changes_insert(changed=moved.changed, now=now)

    type(owner).objects.filter(pk=owner.pk).update(email="kaputt")
    assert change_alerts_create(change_ids=[change], now=now) == []
    assert MatchChange.objects.get(pk=change).notified_at is None

    type(owner).objects.filter(pk=owner.pk).update(email=alpha.member_email)
    assert len(change_alerts_create(change_ids=[change], now=now)) == 1
    assert MatchChange.objects.get(pk=change).notified_at is not None
