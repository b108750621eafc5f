"""Deadline reminders of the board: the due-finder (pure), mails once through a real worker and SMTP server, a
newer notice moving the Teilnahmefrist through the hand-off (reminders move, the card says so at once), and the
calendar feed's items."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from config.celery import app as celery_app
from kernel.errors import NotFound, PermissionRefused
from kernel.records import Deadline
from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.handoff import deltas_match_pending
from notifications.bid_cards import moved_items
from notifications.bid_dates import DatedItem, clean_reminder_days, dated_items
from notifications.bids import reminders, services
from notifications.models import BidCard, BidStage, CardEvent, CardEventKind, Delivery, DeliveryKind, DeliveryStatus
from notifications.preferences.services import user_preference_calendar_token_rotate
from tests.notifications.alerts.helpers import changed_notice, ingest, notice, settle, smtp_to, user, wait_for

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=UTC)


def _item(days: float, kind: str = "teilnahmefrist") -> DatedItem:
    return DatedItem(kind=kind, at=NOW + timedelta(days=days))


# --- pure -------------------------------------------------------------------------------------------------------


def test_every_deadline_the_tender_states_is_an_item_once_in_order():
    items = dated_items(
        deadlines=[
            {"kind": "angebotsfrist", "at": "2026-10-15T10:00:00+02:00", "lot_id": ""},
            {"kind": "teilnahmefrist", "at": "2026-10-01T12:00:00+02:00", "lot_id": ""},
            {"kind": "fragenfrist", "at": "2026-09-28T12:00", "lot_id": "LOT-0002"},
            {"kind": "", "at": "2026-09-01"},
            {"kind": "bindefrist", "at": "kaputt"},
        ],
        submission_deadline=datetime(2026, 10, 16, 8, 0, tzinfo=UTC),  # the list states the Angebotsfrist
        questions_deadline=datetime(2026, 9, 25, 8, 0, tzinfo=UTC),  # the list states a Fragenfrist (one lot's)
        contract_start=datetime(2027, 1, 4).date(),
    )
    assert [(i.key, i.label) for i in items] == [
        ("fragenfrist:LOT-0002", "Bieterfragen"),
        ("teilnahmefrist", "Teilnahmefrist"),
        ("angebotsfrist", "Angebotsfrist"),
        ("start", "Ausführungsbeginn"),
    ]
    assert items[0].at == datetime(2026, 9, 28, 12, 0, tzinfo=BERLIN)  # without offset: Berlin time
    assert items[-1].at == datetime(2027, 1, 4, 9, 0, tzinfo=BERLIN)
    # Without a list the tender's own fields are the items.
    only = dated_items(submission_deadline=NOW, questions_deadline=NOW - timedelta(days=3))
    assert [i.kind for i in only] == ["fragenfrist", "angebotsfrist"]


def test_a_lot_is_named_only_where_the_deadlines_name_several_lots():
    one = dated_items(deadlines=[{"kind": "angebotsfrist", "at": "2026-10-15T10:00:00+02:00", "lot_id": "LOT-0000"}])
    assert [(i.key, i.lot_shown) for i in one] == [("angebotsfrist:LOT-0000", False)]  # key kept, lot not told
    two = dated_items(
        deadlines=[
            {"kind": "angebotsfrist", "at": "2026-10-15T10:00:00+02:00", "lot_id": "LOT-0001"},
            {"kind": "angebotsfrist", "at": "2026-10-16T10:00:00+02:00", "lot_id": "LOT-0002"},
            {"kind": "teilnahmefrist", "at": "2026-10-01T10:00:00+02:00", "lot_id": ""},
        ]
    )
    assert [(i.key, i.lot_shown) for i in two] == [
        ("teilnahmefrist", False),
        ("angebotsfrist:LOT-0001", True),
        ("angebotsfrist:LOT-0002", True),
    ]


def test_only_the_nearest_threshold_passed_is_due_and_only_soon_after_it():
    days = [7, 3, 1]
    assert reminders.reminders_due(items=[_item(8)], days=days, now=NOW) == []
    assert [d.days for d in reminders.reminders_due(items=[_item(6.9)], days=days, now=NOW)] == [7]
    # 2 days 23 hours ahead: the 7- and 3-day thresholds passed; only the 3-day one is sent.
    assert [d.days for d in reminders.reminders_due(items=[_item(2.96)], days=days, now=NOW)] == [3]
    # A card that lands 1.5 days ahead: the 3-day reminder is stale (more than a day late), the 1-day one waits.
    assert reminders.reminders_due(items=[_item(1.5)], days=days, now=NOW) == []
    assert reminders.reminders_due(items=[_item(-0.1)], days=days, now=NOW) == []
    assert reminders.reminders_due(items=[_item(0.5)], days=[], now=NOW) == []
    assert clean_reminder_days(["3", 7, 7, 0, 99, "x", 1, 2, 5, 14]) == [14, 7, 5, 3, 2]


def test_a_moved_deadline_has_another_key_and_is_told_once():
    before, after = _item(3), _item(10)
    key = reminders.reminder_key(card_id=4, item=before, days=3, user_id=9)
    assert key == "reminder:4:teilnahmefrist:2026-09-23T08:00Z:3:9"
    assert reminders.reminder_key(card_id=4, item=after, days=3, user_id=9) != key
    long_lot = DatedItem(kind="fragenfrist", at=NOW, lot_id="L" * 100)
    assert len(reminders.reminder_key(card_id=1, item=long_lot, days=1, user_id=1)) <= 200
    known = {"teilnahmefrist": before.at.isoformat()}
    assert moved_items(known, [after, _item(5, "angebotsfrist")]) == [(after, before.at)]
    assert moved_items({"teilnahmefrist": after.at.isoformat()}, [after]) == []


# --- through the stack ------------------------------------------------------------------------------------------


def _participation(at: datetime, offer: datetime | None = None) -> tuple[Deadline, ...]:
    return (Deadline(kind="teilnahmefrist", at=at), Deadline(kind="angebotsfrist", at=offer or at + timedelta(days=20)))


def _reminders(schema: str) -> list[Delivery]:
    with schema_context(schema):
        return list(Delivery.objects.filter(kind=DeliveryKind.REMINDER).order_by("id"))


@pytest.mark.usefixtures("celery_worker")
def test_the_3_day_reminder_arrives_once_through_the_tenants_route(committed_tenants, smtp_server):
    alpha, _beta = committed_tenants
    now = timezone.now()
    # Within three days (the reminder is due) and on the third Berlin calendar day ("in 3 Tagen") at any hour:
    # two hours short of three days, or the third day's midnight when that is later (from 00:00 to 02:00).
    third_day = datetime.combine(now.astimezone(BERLIN).date() + timedelta(days=3), datetime.min.time(), BERLIN)
    due = max(now + timedelta(days=3) - timedelta(hours=2), third_day)
    delta = ingest(notice(title="Rahmenvertrag Gebäudereinigung", deadlines=_participation(due)))
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        card = services.bid_card_ensure(tender_id=delta.created[0])
        member_id = user(alpha.member_email).pk
        services.bid_card_assign(card_id=card.pk, actor=user(alpha.admin_email), owner_id=member_id)

    for _ in range(2):  # what the periodic fan-out does, twice (two beats, a retry)
        celery_app.send_task("notifications.send_due_reminders", headers={"_schema_name": alpha.schema_name})
    wait_for(lambda: len(smtp_server.messages) == 1, what="the reminder mail")
    settle(alpha.schema_name)
    with schema_context(alpha.schema_name):
        assert reminders.reminders_send_due().queued == 0
    settle(alpha.schema_name)

    assert len(smtp_server.messages) == 1
    [delivery] = _reminders(alpha.schema_name)
    assert delivery.status == DeliveryStatus.SENT
    assert delivery.dedupe_key.startswith(f"reminder:{card.pk}:teilnahmefrist:") and delivery.dedupe_key.endswith(
        f":3:{member_id}"
    )
    message = smtp_server.messages[0]
    assert message["To"] == alpha.member_email and message["From"] == "radar@alpha.example"
    assert "Teilnahmefrist in 3 Tagen" in message["Subject"] and "Gebäudereinigung" in message["Subject"]
    body = message.get_body(("plain",)).get_content()
    assert due.astimezone(BERLIN).strftime("%d.%m.%Y %H:%M") in body and f"/angebote/karte/{card.pk}/" in body


def _match_pending(tenant):
    """What the tenant's matching task runs for the deltas handed off to it, in its schema."""
    connection.set_tenant(tenant)
    try:
        return deltas_match_pending()
    finally:
        connection.set_schema_to_public()


@pytest.mark.django_db
def test_a_newer_notice_moving_the_teilnahmefrist_moves_its_reminders_and_says_so_at_once(alpha, alpha_client):
    first = (timezone.now() + timedelta(days=3) - timedelta(hours=2)).replace(second=0, microsecond=0)
    offer = first + timedelta(days=30)
    record = notice(title="Winterdienst Bauhof", deadlines=_participation(first, offer))
    delta = ingest(record, hand_off=True)
    assert _match_pending(alpha.tenant).deltas == 1
    with schema_context(alpha.schema_name):
        member = user(alpha.member_email)
        card = services.bid_card_ensure(tender_id=delta.created[0])
        services.bid_card_watchers_set(card_id=card.pk, actor=member, watcher_ids=[member.pk])
        assert reminders.reminders_send_due().queued == 1  # the 3-day reminder of the old Teilnahmefrist
        [old] = Delivery.objects.filter(kind=DeliveryKind.REMINDER)
        Delivery.objects.filter(pk=old.pk).update(status=DeliveryStatus.SENT)

    moved = first + timedelta(days=7)
    newer = ingest(changed_notice(record, deadlines=_participation(moved, offer)), hand_off=True)
    assert set(newer.changed[card.tender_id]) == {"deadlines"}  # only the Teilnahmefrist moved
    assert _match_pending(alpha.tenant).deltas == 1  # matching, not the reminders' quarter-hour, tells it
    with schema_context(alpha.schema_name):
        event = CardEvent.objects.get(card=card, kind=CardEventKind.DEADLINE)
        assert (event.data["from"], event.data["to"]) == (first.isoformat(), moved.isoformat())
        assert BidCard.objects.get(pk=card.pk).known_deadlines["teilnahmefrist"] == moved.isoformat()
        run = reminders.reminders_send_due()
        assert (run.moved, run.queued) == (0, 0)  # told already; ten days ahead now: nothing due
        # At the old date's 1-day threshold nothing goes out for the old date (nor is the sent one repeated) …
        assert reminders.reminders_send_due(now=first - timedelta(days=1) + timedelta(minutes=5)).queued == 0
        # … and the new date's reminders fall due at their own time, under a key of the new instant.
        assert reminders.reminders_send_due(now=moved - timedelta(days=3) + timedelta(minutes=5)).queued == 1
        keys = [d.dedupe_key for d in Delivery.objects.filter(kind=DeliveryKind.REMINDER).order_by("id")]
        assert keys[0] == old.dedupe_key and len(keys) == 2
        assert moved.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ") in keys[1] and keys[1].endswith(f":3:{member.pk}")

    page = alpha_client.get(f"/angebote/karte/{card.pk}/").content.decode()
    told = f"vom {first.astimezone(BERLIN):%d.%m.} auf {moved.astimezone(BERLIN):%d.%m.}"
    history = re.search(r'data-testid="card-deadline-moved">([^<]*)<', page).group(1)
    assert history == f"Teilnahmefrist verschoben {told}"
    items = re.search(r'data-testid="card-dated-items">(.*?)</ul>', page, re.S).group(1)
    participation = next(line for line in items.split("<li>") if line.startswith("Teilnahmefrist:"))
    assert f"verschoben {told}" in participation
    assert "verschoben" not in next(line for line in items.split("<li>") if line.startswith("Angebotsfrist:"))
    # In English the history names the item in English, although the row was written in German.
    alpha_client.post("/sprache/", {"language": "en", "next": "/"})
    english = alpha_client.get(f"/angebote/karte/{card.pk}/").content.decode()
    moved_en = f"from {first.astimezone(BERLIN):%d.%m.} to {moved.astimezone(BERLIN):%d.%m.}"
    assert re.search(r'data-testid="card-deadline-moved">([^<]*)<', english).group(1) == (
        f"Deadline for requests to participate moved {moved_en}"
    )
    assert f"moved {moved_en}" in re.search(r'data-testid="card-item-moved">([^<]*)<', english).group(1)


@pytest.mark.django_db
def test_a_person_sets_their_reminder_days_on_the_settings_page(alpha, alpha_client):
    url = "/einstellungen/benachrichtigungen/erinnerungen/"
    assert alpha_client.post(url, {"reminder_days": "3; 10, 1"}).status_code == 302
    with schema_context(alpha.schema_name):
        assert user(alpha.member_email).preference.reminder_days == [10, 3, 1]
    assert 'value="10, 3, 1"' in alpha_client.get("/einstellungen/benachrichtigungen/").content.decode()
    assert alpha_client.post(url, {"reminder_days": "0, drei"}).status_code == 400
    assert alpha_client.post(url, {"reminder_days": ""}).status_code == 302
    with schema_context(alpha.schema_name):
        assert user(alpha.member_email).preference.reminder_days == []


@pytest.mark.django_db
def test_closed_stages_switched_off_stages_and_people_without_days_get_no_reminders(alpha):
    due = timezone.now() + timedelta(days=1) - timedelta(hours=1)
    delta = ingest(notice(title="Schulmensa", deadlines=_participation(due)))
    with schema_context(alpha.schema_name):
        admin, member = user(alpha.admin_email), user(alpha.member_email)
        card = services.bid_card_ensure(tender_id=delta.created[0])
        services.bid_card_assign(card_id=card.pk, actor=admin, owner_id=member.pk)
        reminders.user_reminder_days_set(user=member, days=[])
        assert reminders.reminders_send_due().queued == 0
        reminders.user_reminder_days_set(user=member, days=["1"])
        entry = BidStage.objects.get(pk=card.stage_id)
        with pytest.raises(PermissionRefused):
            reminders.bid_stage_reminders_set(actor=member, stage_id=entry.pk, enabled=False)
        with pytest.raises(NotFound):  # another tenant's or a deleted stage: "not found", not a crash
            reminders.bid_stage_reminders_set(actor=admin, stage_id=987654, enabled=False)
        reminders.bid_stage_reminders_set(actor=admin, stage_id=entry.pk, enabled=False)
        assert reminders.reminders_send_due().queued == 0
        reminders.bid_stage_reminders_set(actor=admin, stage_id=entry.pk, enabled=True)
        lost = BidStage.objects.get(name="verloren")
        assert lost.reminders is False  # the migration's default for closed stages
        services.bid_card_move(card_id=card.pk, actor=admin, stage_id=lost.pk)
        assert reminders.reminders_send_due().queued == 0
        services.bid_card_move(card_id=card.pk, actor=admin, stage_id=entry.pk)
        assert reminders.reminders_send_due().queued == 1


@pytest.mark.django_db
def test_the_calendar_carries_every_item_of_my_cards_with_my_alarms(alpha):
    due = (timezone.now() + timedelta(days=12)).replace(second=0, microsecond=0)
    delta = ingest(notice(title="Kita Neubau", deadlines=_participation(due)))
    with schema_context(alpha.schema_name):
        member = user(alpha.member_email)
        card = services.bid_card_ensure(tender_id=delta.created[0])
        services.bid_card_assign(card_id=card.pk, actor=user(alpha.admin_email), owner_id=member.pk)
        token = user_preference_calendar_token_rotate(user=member)
        reminders.user_reminder_days_set(user=member, days=[5, 2])
    text = Client(HTTP_HOST=alpha.host).get(f"/kalender/{token}.ics").content.decode().replace("\r\n ", "")
    blocks = {
        re.search(r"UID:(\S+)", block).group(1): block
        for block in text.split("BEGIN:VEVENT")[1:]
        if "UID:card-" in block
    }
    host = alpha.host.split(":")[0]
    participation = blocks[f"card-{card.pk}-teilnahmefrist@{host}"]
    assert f"DTSTART:{due.astimezone(UTC):%Y%m%dT%H%M%SZ}" in participation
    assert "SUMMARY:Teilnahmefrist: Kita Neubau" in participation
    assert participation.count("BEGIN:VALARM") == 2
    assert "TRIGGER:-P5D" in participation and "TRIGGER:-P2D" in participation
    assert f"card-{card.pk}-angebotsfrist@{host}" in blocks


@pytest.mark.django_db
def test_a_board_written_anew_starts_with_reminders_off_in_its_closed_stages(alpha):
    from notifications.bid_cards import bid_defaults_ensure

    with schema_context(alpha.schema_name):
        BidCard.objects.all().delete()
        BidStage.objects.all().delete()
        bid_defaults_ensure()
        stages = {stage.name: (stage.kind, stage.reminders) for stage in BidStage.objects.all()}
    assert stages["neu"] == ("open", True) and stages["abgegeben"] == ("open", True)
    assert {name: reminders for name, (kind, reminders) in stages.items() if kind != "open"} == {
        "gewonnen": False,
        "verloren": False,
        "nicht angeboten": False,
    }
