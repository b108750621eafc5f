from __future__ import annotations

from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from kernel.errors import ApplicationError
from kernel.vocabulary.time_zone import BERLIN
from notifications.models import DeliveryStatus, SavedSearch, Webhook, WebhookEvent
from notifications.outbox_decisions import RecipientInactive, webhook_event_resend
from notifications.team.services import team_member_deactivate
from notifications.webhooks.services import (
    CREATOR_LEFT_REASON,
    webhook_create,
    webhook_delete,
    webhook_events_for_changes,
    webhook_events_for_matches,
    webhook_set_active,
)
from tests.notifications.webhooks.conftest import ingest_tenders


def test_created_webhook_stores_the_secret_encrypted(scene):
    assert scene.secret.startswith("whsec_")
    with connection.cursor() as cursor:
        cursor.execute("SELECT secret FROM notifications_webhook WHERE id = %s", [scene.webhook.pk])
        raw = cursor.fetchone()[0]
    assert scene.secret not in raw
    assert Webhook.objects.get(pk=scene.webhook.pk).secret == scene.secret


@override_settings(SOURCES_ALLOW_LOOPBACK=False)
@pytest.mark.parametrize(
    "url",
    ["http://93.184.215.14/hook", "https://10.0.0.8/hook", "https://127.0.0.1/hook", "https://u:p@93.184.215.14/"],
)
def test_create_refuses_urls_we_must_not_call(scene, url):
    with pytest.raises(ApplicationError) as refused:
        webhook_create(saved_search=scene.search, url=url, created_by=scene.search.owner)
    assert list(refused.value.fields) == ["url"] and refused.value.status == 400
    assert Webhook.objects.count() == 1


def test_matched_event_carries_tender_profile_and_a_stable_key(scene):
    deadline = datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN)
    tender = ingest_tenders(1, title="Sanierung Turnhalle <script>", submission_deadline=deadline)[0]
    match = scene.match(tender)

    assert webhook_events_for_matches(match_ids=[match.pk]) == 1
    assert webhook_events_for_matches(match_ids=[match.pk]) == 0  # same key: nothing new

    event = WebhookEvent.objects.get()
    assert (event.event, event.event_key, event.status) == ("tender.matched", f"matched:{tender.pk}", "pending")
    payload = event.payload
    assert payload["event"] == "tender.matched" and payload["version"] == 1
    assert payload["id"]
    assert payload["saved_search"] == {"id": scene.search.pk, "name": "Dachsanierung Bayern"}
    assert payload["tender"]["id"] == tender.pk
    assert payload["tender"]["title"] == "Sanierung Turnhalle <script>"
    assert payload["tender"]["deadline"].startswith("2026-10-01T12:00:00+02:00")
    assert payload["tender"]["sources"][0]["portal"] == "tender24"
    assert "versions" not in payload["tender"]
    assert payload["occurred_at"] == "2026-09-02T08:30:00+02:00"


def test_one_event_per_active_webhook_of_the_profile_only(scene, alpha):
    second = webhook_create(
        saved_search=scene.search, url="http://127.0.0.1:9/other", created_by=scene.search.owner
    ).webhook
    inactive = webhook_create(
        saved_search=scene.search, url="http://127.0.0.1:9/off", created_by=scene.search.owner
    ).webhook
    webhook_set_active(webhook=inactive, is_active=False)
    other_search = SavedSearch.objects.create(
        owner=scene.search.owner, name="Ohne Webhook", filters={}, active_since=scene.search.active_since
    )
    tender = ingest_tenders(1)[0]
    matches = [scene.match(tender), scene.match(tender, search=other_search)]

    assert webhook_events_for_matches(match_ids=[m.pk for m in matches]) == 2
    assert set(WebhookEvent.objects.values_list("webhook_id", flat=True)) == {scene.webhook.pk, second.pk}


def test_no_events_for_an_inactive_profile(scene):
    tender = ingest_tenders(1)[0]
    match = scene.match(tender)
    SavedSearch.objects.filter(pk=scene.search.pk).update(is_active=False)
    assert webhook_events_for_matches(match_ids=[match.pk]) == 0


def test_event_creation_is_set_based(scene):
    tenders = ingest_tenders(6)
    few = [scene.match(t).pk for t in tenders[:2]]
    many = [scene.match(t).pk for t in tenders[2:]]
    with CaptureQueriesContext(connection) as small:
        assert webhook_events_for_matches(match_ids=few) == 2
    with CaptureQueriesContext(connection) as large:
        assert webhook_events_for_matches(match_ids=many) == 4
    assert len(large.captured_queries) == len(small.captured_queries)


def test_changes_become_changed_or_cancelled_events_once_each(scene):
    tender = ingest_tenders(1)[0]
    match = scene.match(tender)
    deadline = scene.change(
        match, kind="deadline", key="deadline:2026-10-15T12:00", old="2026-10-01T12:00", new="2026-10-15T12:00"
    )
    cancelled = scene.change(match, kind="cancelled", key="cancelled")
    long_key = scene.change(match, kind="value", key="value:" + "9" * 194)

    ids = [deadline.pk, cancelled.pk, long_key.pk]
    assert webhook_events_for_changes(change_ids=ids) == 3
    assert webhook_events_for_changes(change_ids=ids) == 0

    events = {e.event_key: e for e in WebhookEvent.objects.all()}
    changed = events[f"change:{tender.pk}:deadline:2026-10-15T12:00"]
    assert changed.event == "tender.changed"
    assert changed.payload["change"]["kind"] == "deadline"
    assert changed.payload["change"]["old_value"] == "2026-10-01T12:00"
    assert changed.payload["change"]["new_value"] == "2026-10-15T12:00"
    assert events[f"change:{tender.pk}:cancelled"].event == "tender.cancelled"
    assert all(len(key) <= 200 for key in events)
    assert any("#" in key for key in events)  # the over-long key was replaced by its hash


def test_unknown_ids_and_empty_input_create_nothing(scene):
    assert webhook_events_for_matches(match_ids=[]) == 0
    assert webhook_events_for_matches(match_ids=[987654]) == 0
    assert webhook_events_for_changes(change_ids=[987654]) == 0


def test_deactivating_drops_unsent_events_and_delete_removes_the_log(scene):
    event = scene.matched_event(ingest_tenders(1)[0])
    webhook_set_active(webhook=scene.webhook, is_active=False)
    event.refresh_from_db()
    assert event.status == DeliveryStatus.FAILED and "deaktiviert" in event.last_error

    webhook_delete(webhook=scene.webhook)
    assert not WebhookEvent.objects.exists()
    assert not Webhook.objects.exists()


def test_only_own_or_shared_profiles_get_a_webhook(scene, alpha):
    member = get_user_model().objects.get(username=alpha.member_email)
    private = SavedSearch.objects.create(
        owner=member, name="Privat", filters={}, active_since=scene.search.active_since, is_shared=False
    )
    with pytest.raises(ApplicationError) as refused:
        webhook_create(saved_search=private, url="http://127.0.0.1:9/x", created_by=scene.search.owner)
    assert refused.value.code == "saved_search"
    private.is_shared = True
    private.save(update_fields=["is_shared"])
    assert webhook_create(saved_search=private, url="http://127.0.0.1:9/x", created_by=scene.search.owner).webhook


def test_a_profile_made_private_stops_feeding_webhooks_others_connected(scene, alpha):
    member = get_user_model().objects.get(username=alpha.member_email)
    shared = SavedSearch.objects.create(
        owner=member, name="Geteilt", filters={}, active_since=scene.search.active_since, is_shared=True
    )
    webhook_create(saved_search=shared, url="http://127.0.0.1:9/partner", created_by=scene.search.owner)
    tender = ingest_tenders(1)[0]
    first = scene.match(tender, search=shared)
    assert webhook_events_for_matches(match_ids=[first.pk]) == 1

    SavedSearch.objects.filter(pk=shared.pk).update(is_shared=False)  # the owner takes it back
    second = scene.match(ingest_tenders(1)[0], search=shared)
    assert webhook_events_for_matches(match_ids=[second.pk]) == 0
    own = scene.match(ingest_tenders(1)[0])  # the admin's own profile still feeds the admin's webhook
    assert webhook_events_for_matches(match_ids=[own.pk]) == 1


def test_webhooks_a_deactivated_person_connected_stop_and_stay_off(scene, alpha):
    member = get_user_model().objects.get(username=alpha.member_email)
    own = SavedSearch.objects.create(owner=member, name="Meins", filters={}, active_since=scene.search.active_since)
    theirs = webhook_create(saved_search=own, url="http://127.0.0.1:9/theirs", created_by=member).webhook
    waiting = scene.match(ingest_tenders(1)[0], search=own)
    assert webhook_events_for_matches(match_ids=[waiting.pk]) == 1

    team_member_deactivate(user_id=member.pk)

    theirs.refresh_from_db()
    assert not theirs.is_active
    dropped = WebhookEvent.objects.get(webhook=theirs)
    assert (dropped.status, dropped.last_error) == (DeliveryStatus.FAILED, CREATOR_LEFT_REASON)
    later = scene.match(ingest_tenders(1)[0], search=own)
    assert webhook_events_for_matches(match_ids=[later.pk]) == 0
    with pytest.raises(ApplicationError) as refused:
        webhook_set_active(webhook=theirs, is_active=True)
    assert refused.value.code == "creator_inactive"
    admin = get_user_model().objects.get(username=alpha.admin_email)
    with pytest.raises(RecipientInactive):
        webhook_event_resend(event_id=dropped.pk, actor=admin)
    assert WebhookEvent.objects.get(pk=dropped.pk).status == DeliveryStatus.FAILED
    assert Webhook.objects.get(pk=scene.webhook.pk).is_active  # the admin's own webhook runs on
