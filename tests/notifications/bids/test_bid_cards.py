"""Matches land on the team board in matching's own transaction, as one statement for any batch size; deadlines a
newer notice moved are told on the cards of the delta's tenders, once."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from kernel.records import Deadline
from notifications.alerts.services import delta_process
from notifications.bid_cards import (
    StageMove,
    bid_card_deadlines_sync,
    bid_cards_deadlines_move,
    bid_cards_move,
    card_people_ids,
    items_before,
    items_with_moves,
)
from notifications.bid_dates import DatedItem
from notifications.bids.services import bid_card_ensure
from notifications.models import BidCard, BidStage, CardEvent, CardEventKind
from tests.notifications.alerts.helpers import changed_notice, ingest, notice, saved_search, user

pytestmark = pytest.mark.django_db


def _card_statements(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "notifications_bidcard" in q["sql"]]


@pytest.mark.parametrize("batch", [1, 12])
def test_new_matches_become_cards_in_neu_with_one_statement_whatever_the_batch(alpha, batch):
    delta = ingest(*(notice(title=f"Dachsanierung Los {i}") for i in range(batch)))
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    saved_search(owner, name="Dach", q="Dachsanierung")
    saved_search(owner, name="Dach 2", q="Dachsanierung Los")  # two matches of one tender: still one card

    with CaptureQueriesContext(connection) as queries:
        outcome = delta_process(created=delta.created, changed={}, now=timezone.now())

    assert len(outcome.match_ids) == 2 * batch
    assert len(_card_statements(queries)) == 1
    cards = BidCard.objects.filter(tender_id__in=delta.created)
    assert cards.count() == batch
    assert set(cards.values_list("stage__name", flat=True)) == {"neu"}
    assert CardEvent.objects.filter(card__in=cards, kind="created", data__via="match").count() == batch


def test_re_running_a_delta_lands_nothing_twice_and_keeps_the_teams_work(alpha):
    delta = ingest(notice(title="Dachsanierung"))
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dachsanierung")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    card = BidCard.objects.get(tender_id=delta.created[0])
    BidCard.objects.filter(pk=card.pk).update(stage=BidStage.objects.get(name="prüfen"))

    with CaptureQueriesContext(connection) as queries:
        delta_process(created=delta.created, changed={}, now=timezone.now())
    assert _card_statements(queries) == []  # no new match, nothing to land
    assert BidCard.objects.get(pk=card.pk).stage.name == "prüfen"


def test_a_schema_without_stages_gets_the_defaults_before_cards_land(alpha):
    delta = ingest(notice(title="Dachsanierung"))
    connection.set_tenant(alpha.tenant)
    BidCard.objects.all().delete()
    BidStage.objects.all().delete()
    saved_search(user(alpha.member_email), q="Dachsanierung")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    assert list(BidStage.objects.values_list("name", flat=True)) == [
        "neu",
        "prüfen",
        "Angebot in Arbeit",
        "abgegeben",
        "gewonnen",
        "verloren",
        "nicht angeboten",
    ]
    assert BidCard.objects.get().stage.name == "neu"


def test_matching_of_one_tenant_puts_nothing_on_another_tenants_board(alpha, beta):
    delta = ingest(notice(title="Dachsanierung"))
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dachsanierung")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    connection.set_tenant(beta.tenant)
    assert not BidCard.objects.filter(tender_id=delta.created[0]).exists()


# --- deadlines moved by a newer notice -------------------------------------------------------------------------


def _participation_notice(at):
    offer = Deadline(kind="angebotsfrist", at=at + timedelta(days=20))
    return notice(title="Winterdienst Bauhof", deadlines=(Deadline(kind="teilnahmefrist", at=at), offer))


def _moved(record, at):
    return changed_notice(record, deadlines=(Deadline(kind="teilnahmefrist", at=at), record.deadlines[1]))


def test_a_card_that_never_saw_the_deadlines_is_told_the_move_from_the_delta_once(
    alpha, django_capture_on_commit_callbacks
):
    first = (timezone.now() + timedelta(days=10)).replace(second=0, microsecond=0)
    record = _participation_notice(first)
    created = ingest(record)
    connection.set_tenant(alpha.tenant)
    card = bid_card_ensure(tender_id=created.created[0])  # landed after the last periodic run: knows nothing
    delta = ingest(_moved(record, first + timedelta(days=7)))
    connection.set_tenant(alpha.tenant)

    with django_capture_on_commit_callbacks() as asked:
        assert bid_cards_deadlines_move(changed=delta.changed, now=timezone.now()) == 1
    assert len(asked) == 1  # the reminders' run, after commit: one now due at the new date goes out at once
    event = CardEvent.objects.get(card=card, kind=CardEventKind.DEADLINE)
    assert (event.actor, event.data["item"], event.data["label"]) == (None, "teilnahmefrist", "Teilnahmefrist")
    assert event.data["from"] == first.isoformat()
    # The same delta again (matched twice after a crash) and the periodic run tell nothing more.
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks() as asked_again:
        assert bid_cards_deadlines_move(changed=delta.changed, now=timezone.now()) == 0
    assert not [q for q in queries.captured_queries if "INSERT" in q["sql"]] and asked_again == []
    assert bid_card_deadlines_sync(now=timezone.now()) == 0
    assert CardEvent.objects.filter(kind=CardEventKind.DEADLINE).count() == 1


def test_a_change_of_no_dated_field_reads_no_card_and_closed_cards_are_not_told(alpha):
    first = (timezone.now() + timedelta(days=10)).replace(second=0, microsecond=0)
    record = _participation_notice(first)
    created = ingest(record)
    connection.set_tenant(alpha.tenant)
    card = bid_card_ensure(tender_id=created.created[0])
    with CaptureQueriesContext(connection) as queries:
        assert bid_cards_deadlines_move(changed={card.tender_id: {"title": ["a", "b"]}}, now=timezone.now()) == 0
    assert _card_statements(queries) == []
    BidCard.objects.filter(pk=card.pk).update(stage=BidStage.objects.get(name="verloren"))
    delta = ingest(_moved(record, first + timedelta(days=7)))
    connection.set_tenant(alpha.tenant)
    assert bid_cards_deadlines_move(changed=delta.changed, now=timezone.now()) == 0
    assert not CardEvent.objects.filter(kind=CardEventKind.DEADLINE).exists()


def test_the_items_before_a_delta_come_from_its_old_values_and_else_from_the_tender():
    tender = SimpleNamespace(
        deadlines=[{"kind": "teilnahmefrist", "at": "2026-10-08T12:00:00+02:00", "lot_id": ""}],
        submission_deadline=None,
        questions_deadline=None,
        contract_start=date(2027, 1, 4),
    )
    old = [{"kind": "teilnahmefrist", "at": "2026-10-01T12:00:00+02:00", "lot_id": ""}]
    assert items_before(tender, {"deadlines": [old, tender.deadlines]}) == {
        "teilnahmefrist": "2026-10-01T12:00:00+02:00",
        "start": "2027-01-04T09:00:00+01:00",
    }
    assert (
        items_before(tender, {"contract_start": ["2027-02-01", "2027-01-04"]})["start"] == "2027-02-01T09:00:00+01:00"
    )
    assert items_before(tender, {"submission_deadline": ["kaputt", None]}) == items_before(tender, {})


# --- moving cards: one rule for people and award notices -------------------------------------------------------


def test_a_move_is_locked_recorded_with_both_stages_and_leaves_closed_or_unmoved_cards_alone(alpha):
    delta = ingest(notice(title="Dachsanierung A"), notice(title="Dachsanierung B"), notice(title="Dachsanierung C"))
    connection.set_tenant(alpha.tenant)
    first, second, third = (bid_card_ensure(tender_id=tender_id) for tender_id in delta.created)
    stages = {stage.name: stage for stage in BidStage.objects.all()}
    BidCard.objects.filter(pk=third.pk).update(stage=stages["verloren"])
    now = timezone.now()
    with CaptureQueriesContext(connection) as queries:
        events = bid_cards_move(
            moves=[
                StageMove(card_id=first.pk, stage_id=stages["gewonnen"].pk, note={"via": "award", "note": "Los 1"}),
                StageMove(card_id=second.pk, stage_id=stages["neu"].pk),  # already there
                StageMove(card_id=third.pk, stage_id=stages["gewonnen"].pk),  # closed: stays lost
            ],
            actor=None,
            now=now,
            open_only=True,
        )
    assert [(e.card_id, e.kind, e.data) for e in events] == [
        (first.pk, "stage", {"from": "neu", "to": "gewonnen", "kind": "won", "via": "award", "note": "Los 1"})
    ]
    assert "FOR UPDATE" in next(q["sql"] for q in queries.captured_queries if "notifications_bidcard" in q["sql"])
    assert dict(BidCard.objects.values_list("pk", "stage__name")) == {
        first.pk: "gewonnen",
        second.pk: "neu",
        third.pk: "verloren",
    }
    assert BidCard.objects.get(pk=first.pk).updated_at == now
    # Without open_only (a person on the board) a closed card moves like any other.
    [reopened] = bid_cards_move(
        moves=[StageMove(third.pk, stages["prüfen"].pk)], actor=user(alpha.admin_email), now=now
    )
    assert (reopened.actor.email, reopened.data["from"], reopened.data["to"]) == (
        alpha.admin_email,
        "verloren",
        "prüfen",
    )


def test_only_the_boards_stage_rule_writes_a_cards_stage():
    # Award notices once moved cards with their own UPDATE, past the board's services: the rule lives in
    # notifications.bid_cards (and the decision's move in the board's services) only.
    root = Path(__file__).resolve().parents[3] / "notifications"
    writes = re.compile(r"\.update\([^)]*\bstage(_id)?\s*=|\.stage(_id)?\s*=(?!=)")
    found = {
        path.relative_to(root.parent).as_posix()
        for path in root.rglob("*.py")
        if "migrations" not in path.parts and writes.search(path.read_text(encoding="utf-8"))
    }
    assert found == {"notifications/bid_cards.py", "notifications/bids/services.py"}


def test_an_item_shows_the_newest_move_told_for_it_only_while_that_move_still_holds():
    def moved(key: str, to: datetime) -> CardEvent:
        return CardEvent(kind=CardEventKind.DEADLINE, data={"item": key, "to": to.isoformat()})

    first, second = datetime(2026, 10, 8, 10, tzinfo=UTC), datetime(2026, 10, 15, 10, tzinfo=UTC)
    submission = DatedItem(kind="angebotsfrist", at=second)
    participation = DatedItem(kind="teilnahmefrist", at=first)
    lot = DatedItem(kind="angebotsfrist", at=first, lot_id="2")
    history = [  # newest first, as the card page reads it
        moved("angebotsfrist", second),
        CardEvent(kind=CardEventKind.COMMENT, data={"item": "teilnahmefrist", "to": first.isoformat()}),
        moved("angebotsfrist", first),
        moved("teilnahmefrist", second),  # moved to the 15th, since moved back to the 8th: no longer holds
        moved("angebotsfrist:2", second),  # another lot's item
    ]

    shown = items_with_moves([submission, participation, lot], history)

    assert [(item, move.data["to"] if move else None) for item, move in shown] == [
        (submission, second.isoformat()),
        (participation, None),
        (lot, None),
    ]


def test_a_cards_people_are_its_owner_and_watchers_read_in_one_statement(alpha):
    delta = ingest(notice(title="Fassade Rathaus"), notice(title="Fenster Rathaus"))
    connection.set_tenant(alpha.tenant)
    admin, member = user(alpha.admin_email), user(alpha.member_email)
    watched, alone = (bid_card_ensure(tender_id=tender_id) for tender_id in delta.created)
    BidCard.objects.filter(pk=watched.pk).update(owner=member)
    watched.watchers.set([admin, member])

    with CaptureQueriesContext(connection) as queries:
        people = card_people_ids(card_ids=[watched.pk, alone.pk])

    assert people == {watched.pk: {admin.pk, member.pk}, alone.pk: set()}
    assert len(queries.captured_queries) == 1
