"""The secret iCal feed: only the token's owner's triaged deadlines, stable UIDs, moved deadlines update in place."""

from __future__ import annotations

import re
from datetime import UTC, timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from kernel.records import Deadline, NoticeKind
from notifications.bids.services import bid_card_assign, bid_card_ensure
from notifications.models import UserPreference, calendar_token_hash
from notifications.portal.services import triage_set
from notifications.preferences.services import user_preference_calendar_token_rotate
from tenders.models import TenderSource
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory


def _feed(test_tenant, token: str) -> str:
    response = Client(HTTP_HOST=test_tenant.host).get(f"/kalender/{token}.ics")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return response.content.decode("utf-8").replace("\r\n ", "")


def _events(text: str) -> dict[str, dict[str, str]]:
    events = {}
    for block in text.split("BEGIN:VEVENT")[1:]:
        block = block.split("END:VEVENT")[0].split("BEGIN:VALARM")[0]
        props = dict(line.split(":", 1) for line in block.strip().split("\r\n") if ":" in line)
        events[props["UID"]] = props
    return events


@pytest.fixture
def token(alpha, alpha_member) -> str:
    with schema_context(alpha.schema_name):
        return user_preference_calendar_token_rotate(user=alpha_member)


def test_feed_holds_deadlines_of_interesting_reviewed_and_applied_tenders(
    alpha, alpha_member, alpha_admin, corpus, token
):
    with schema_context(alpha.schema_name):
        triage_set(user=alpha_member, tender_id=corpus["bauarbeit"], status="interessant")
        triage_set(user=alpha_member, tender_id=corpus["winterdienst"], status="pruefung")
        triage_set(user=alpha_member, tender_id=corpus["muell"], status="beworben")
        triage_set(user=alpha_member, tender_id=corpus["planung"], status="abgelehnt")
        triage_set(user=alpha_member, tender_id=corpus["streugut"], status="neu")
        triage_set(user=alpha_member, tender_id=corpus["hlf"], status="interessant")  # no deadline
        triage_set(user=alpha_admin, tender_id=corpus["ortsdurchfahrt"], status="interessant")  # someone else's
    events = _events(_feed(alpha, token))
    assert set(events) == {f"tender-{corpus[key]}@alpha.localhost" for key in ("bauarbeit", "winterdienst", "muell")}
    muell = events[f"tender-{corpus['muell']}@alpha.localhost"]
    assert muell["SUMMARY"] == "Frist: Abholung von Müll und Wertstoffen"
    assert "Bewertung: beworben" in muell["DESCRIPTION"]
    assert muell["URL"] == f"http://alpha.localhost/ausschreibung/{corpus['muell']}/"
    assert muell["LOCATION"] == "50667 Köln"


def _tracked_with_deadline(alpha, user, notice_id: str, deadline) -> int:
    notices_ingest(
        records=[NoticeRecordFactory(source_notice_id=notice_id, submission_deadline=deadline)],
        now=deadline - timedelta(days=20),
        use_fingerprint=False,
    )
    tender_id = TenderSource.objects.get(source_notice_id=notice_id).tender_id
    with schema_context(alpha.schema_name):
        triage_set(user=user, tender_id=tender_id, status="beworben")
    return tender_id


def test_feed_keeps_passed_deadlines_for_the_configured_days(alpha, alpha_member, token, settings):
    # A subscribed calendar keeps past events: a bid under evaluation is still found by its deadline.
    now = timezone.now()
    days = {"soon": 5, "recent": -100, "old": -130}
    ids = {
        key: _tracked_with_deadline(alpha, alpha_member, f"cal-{key}", now + timedelta(days=d))
        for key, d in days.items()
    }
    assert settings.PORTAL_CALENDAR_PAST_DAYS == 120
    assert set(_events(_feed(alpha, token))) == {f"tender-{ids[key]}@alpha.localhost" for key in ("soon", "recent")}
    settings.PORTAL_CALENDAR_PAST_DAYS = 30
    assert set(_events(_feed(alpha, token))) == {f"tender-{ids['soon']}@alpha.localhost"}


def test_moved_deadline_updates_the_same_event(alpha, alpha_member, token):
    now = timezone.now()
    first = NoticeRecordFactory(source_notice_id="cal-1", submission_deadline=now + timedelta(days=10))
    notices_ingest(records=[first], now=now - timedelta(hours=3), use_fingerprint=False)
    tender_id = TenderSource.objects.get(source_notice_id="cal-1").tender_id
    with schema_context(alpha.schema_name):
        triage_set(user=alpha_member, tender_id=tender_id, status="interessant")
    before = _events(_feed(alpha, token))
    moved = first.replace(version="02", kind=NoticeKind.CHANGE, submission_deadline=now + timedelta(days=17))
    notices_ingest(records=[moved], now=now - timedelta(hours=1), use_fingerprint=False)
    after = _events(_feed(alpha, token))
    uid = f"tender-{tender_id}@alpha.localhost"
    assert list(before) == list(after) == [uid]
    assert after[uid]["DTSTART"] != before[uid]["DTSTART"]
    assert after[uid]["DTSTART"] == (now + timedelta(days=17)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    assert int(after[uid]["SEQUENCE"]) > int(before[uid]["SEQUENCE"])
    assert after[uid]["LAST-MODIFIED"] > before[uid]["LAST-MODIFIED"]


def test_unknown_or_foreign_token_is_404(alpha, beta, token, db):
    assert Client(HTTP_HOST=alpha.host).get("/kalender/falsch.ics").status_code == 404
    assert Client(HTTP_HOST=beta.host).get(f"/kalender/{token}.ics").status_code == 404


def _shown_token(html: str) -> str:
    return re.search(r"http://alpha\.localhost/kalender/([^\"/]+)\.ics", html).group(1)


def test_rotating_the_token_retires_the_old_link(alpha, alpha_client, alpha_member, token):
    response = alpha_client.post("/kalender/neuer-link/")
    assert response.status_code == 200
    new_token = _shown_token(response.content.decode())
    assert new_token != token
    with schema_context(alpha.schema_name):
        assert UserPreference.objects.get(user=alpha_member).calendar_token_hash == calendar_token_hash(new_token)
    assert Client(HTTP_HOST=alpha.host).get(f"/kalender/{token}.ics").status_code == 404
    assert Client(HTTP_HOST=alpha.host).get(f"/kalender/{new_token}.ics").status_code == 200


def test_feed_of_a_deactivated_user_is_gone(alpha, alpha_member, token):
    with schema_context(alpha.schema_name):
        alpha_member.is_active = False
        alpha_member.save(update_fields=["is_active"])
    assert Client(HTTP_HOST=alpha.host).get(f"/kalender/{token}.ics").status_code == 404


def test_the_calendar_link_is_shown_once_and_stored_only_as_a_hash(alpha, alpha_client, alpha_member):
    first_visit = alpha_client.get("/pipeline/").content.decode()
    assert "/kalender/" not in first_visit.replace("/kalender/neuer-link/", "")
    assert 'data-testid="calendar-create"' in first_visit

    created = alpha_client.post("/kalender/neuer-link/").content.decode()
    token = _shown_token(created)
    assert f"webcal://alpha.localhost/kalender/{token}.ics" in created

    later = alpha_client.get("/pipeline/").content.decode()
    assert token not in later and 'data-testid="calendar-link-exists"' in later
    with schema_context(alpha.schema_name):
        stored = UserPreference.objects.filter(user=alpha_member).values()[0]
    assert token not in str(stored)
    assert stored["calendar_token_hash"] == calendar_token_hash(token)
    assert Client(HTTP_HOST=alpha.host).get(f"/kalender/{token}.ics").status_code == 200


def test_feed_in_the_owners_language(alpha, alpha_member, corpus, token):
    from notifications.preferences.services import user_preference_update

    with schema_context(alpha.schema_name):
        user_preference_update(user=alpha_member, language="en")
        triage_set(user=alpha_member, tender_id=corpus["muell"], status="interessant")
    event = next(iter(_events(_feed(alpha, token)).values()))
    assert event["SUMMARY"] == "Deadline: Abholung von Müll und Wertstoffen"


def test_a_passed_item_of_my_card_stays_as_long_as_a_triaged_deadline(
    alpha, alpha_member, alpha_admin, token, settings
):
    # Calendar clients delete an event that leaves the feed: a card's Teilnahmefrist passed ten days ago
    # stays for the same PORTAL_CALENDAR_PAST_DAYS as the deadline of a triaged tender.
    now = timezone.now()
    passed = now - timedelta(days=10)
    record = NoticeRecordFactory(
        source_notice_id="cal-card",
        submission_deadline=now + timedelta(days=20),
        deadlines=(
            Deadline(kind="teilnahmefrist", at=passed),
            Deadline(kind="angebotsfrist", at=now + timedelta(days=20)),
        ),
    )
    notices_ingest(records=[record], now=now - timedelta(hours=1), use_fingerprint=False)
    tender_id = TenderSource.objects.get(source_notice_id="cal-card").tender_id
    with schema_context(alpha.schema_name):
        card = bid_card_ensure(tender_id=tender_id)
        bid_card_assign(card_id=card.pk, actor=alpha_admin, owner_id=alpha_member.pk)
    participation = f"card-{card.pk}-teilnahmefrist@alpha.localhost"
    assert participation in _events(_feed(alpha, token))
    settings.PORTAL_CALENDAR_PAST_DAYS = 5
    events = _events(_feed(alpha, token))
    assert participation not in events and f"card-{card.pk}-angebotsfrist@alpha.localhost" in events
