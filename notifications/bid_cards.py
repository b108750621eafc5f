"""The bid desk's shared core: the default stages and reasons, and matches landing on the board as cards.

Below the engines so matching (``notifications.alerts``) can put its new matches on the board in its own
transaction, and the board pages (``notifications.bids``) find the same defaults. Set-based: a batch of
matched tenders is one ``INSERT … ON CONFLICT DO NOTHING`` (with their "angelegt" history rows in the same
statement), whatever its size; a tender already on the board keeps its card as it is.

Every stage change goes through ``bid_cards_move`` (a person's on the board, an award notice's in matching), so a
move is recorded the same way whoever makes it.

Deadlines moved by a newer notice are told on the card here too ("Teilnahmefrist verschoben vom 01.10. auf
08.10.", a ``deadline`` ``CardEvent``): at once by matching, for the cards of the delta's tenders whose dated
items changed (``bid_cards_deadlines_move``), and by the reminders' periodic run for whatever that missed
(``bid_card_deadlines_sync``). Both compare with ``BidCard.known_deadlines`` under the card's row lock, so a move
is told once whichever comes first.
"""

# ruff: noqa: S608  (identifiers are our own table names; every value is a query parameter)

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction

from config.enqueue import enqueue_on_commit
from kernel.vocabulary.time_zone import BERLIN
from notifications.bid_dates import DatedItem, dated_items, tender_dated_items
from notifications.models import BidCard, BidStage, BidStageKind, CardEvent, CardEventKind, DecisionReason

# (name, kind) in board order; the first open stage is where matches land, the stage names are German as the UI.
DEFAULT_STAGES: tuple[tuple[str, str], ...] = (
    ("neu", BidStageKind.OPEN),
    ("prüfen", BidStageKind.OPEN),
    ("Angebot in Arbeit", BidStageKind.OPEN),
    ("abgegeben", BidStageKind.OPEN),
    ("gewonnen", BidStageKind.WON),
    ("verloren", BidStageKind.LOST),
    ("nicht angeboten", BidStageKind.DECLINED),
)
DEFAULT_REASONS: tuple[str, ...] = (
    "nicht relevant",
    "zu klein",
    "außerhalb Region",
    "keine Kapazität",
    "Referenzen fehlen",
)


def bid_defaults_ensure() -> None:
    """Write the default stages and reasons into a schema that has none (two statements; harmless when run again)."""
    stage_table, reason_table = BidStage._meta.db_table, DecisionReason._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {stage_table} (name, kind, position, reminders) "
            "SELECT d.name, d.kind, d.position, d.reminders "
            "FROM unnest(%s::text[], %s::text[], %s::int[], %s::boolean[]) AS d(name, kind, position, reminders) "
            f"WHERE NOT EXISTS (SELECT 1 FROM {stage_table}) ON CONFLICT DO NOTHING",
            [
                [name for name, _kind in DEFAULT_STAGES],
                [str(kind) for _name, kind in DEFAULT_STAGES],
                list(range(len(DEFAULT_STAGES))),
                # Closed stages start switched off, as migration 0012 left those of existing boards.
                [kind == BidStageKind.OPEN for _name, kind in DEFAULT_STAGES],
            ],
        )
        cursor.execute(
            f"INSERT INTO {reason_table} (label, position, is_active) "
            "SELECT d.label, d.position, TRUE FROM unnest(%s::text[], %s::int[]) AS d(label, position) "
            f"WHERE NOT EXISTS (SELECT 1 FROM {reason_table}) ON CONFLICT DO NOTHING",
            [list(DEFAULT_REASONS), list(range(len(DEFAULT_REASONS)))],
        )


def bid_cards_land(*, tender_ids: Iterable[int], now: datetime) -> int:
    """Put these tenders on the board in its entry stage ("neu"), unless already there; returns how many landed.

    Runs inside the caller's transaction (matching's). Three statements for any batch size: the defaults, then
    the cards with their history rows.
    """
    ids = sorted({int(i) for i in tender_ids})
    if not ids:
        return 0
    bid_defaults_ensure()
    card_table, stage_table, event_table = BidCard._meta.db_table, BidStage._meta.db_table, CardEvent._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH entry AS ("
            f"  SELECT id FROM {stage_table} WHERE kind = %s ORDER BY position, id LIMIT 1"
            "), landed AS ("
            f"  INSERT INTO {card_table} (tender_id, stage_id, decision, position, created_at, updated_at) "
            "  SELECT t.id, entry.id, '', 0, %s, %s FROM unnest(%s::bigint[]) AS t(id) CROSS JOIN entry "
            "  ON CONFLICT (tender_id) DO NOTHING RETURNING id"
            ") "
            f"INSERT INTO {event_table} (card_id, actor_id, kind, data, created_at) "
            'SELECT landed.id, NULL, %s, \'{"via": "match"}\'::jsonb, %s FROM landed',
            [str(BidStageKind.OPEN), now, now, ids, str(CardEventKind.CREATED), now],
        )
        return cursor.rowcount


def card_people_ids(*, card_ids: Iterable[int]) -> dict[int, set[int]]:
    """Each card's owner and watchers, as user ids, in one statement (who a reminder or an award mail is for)."""
    ids = sorted({int(i) for i in card_ids})
    people: dict[int, set[int]] = {card_id: set() for card_id in ids}
    for card_id, owner_id, watcher_id in BidCard.objects.filter(pk__in=ids).values_list("id", "owner_id", "watchers"):
        people[card_id] |= {owner_id, watcher_id} - {None}
    return people


# --- moving cards ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StageMove:
    card_id: int
    stage_id: int
    note: Mapping = field(default_factory=dict)  # more for the history row: {"via": "award", "note": …, …}


def bid_cards_move(
    *, moves: Sequence[StageMove], actor: AbstractBaseUser | None, now: datetime, open_only: bool = False
) -> list[CardEvent]:
    """Move cards to other stages and record each move as a ``stage`` ``CardEvent``; returns those events.

    The one rule for every stage change, a person's (``notifications.bids.services``) or an award notice's
    (``notifications.alerts.awards``): the cards are locked, a card already in its target stage is left alone,
    ``open_only`` leaves cards in closed stages as they are (a notice never reopens or re-decides a card), and the
    history row names the stages before and after and the target's kind. Set-based: one lock, one update per
    target stage, one insert of the history rows. Runs in the caller's transaction, which queues the webhooks.
    """
    wanted = {move.card_id: move for move in moves}
    if not wanted:
        return []
    stages = {stage.pk: stage for stage in BidStage.objects.all()}
    locked = BidCard.objects.select_for_update(of=("self",)).filter(pk__in=list(wanted))
    if open_only:
        locked = locked.filter(stage__kind=BidStageKind.OPEN)
    previous = dict(locked.order_by("id").values_list("id", "stage_id"))
    moving = [move for card_id, move in wanted.items() if card_id in previous and move.stage_id != previous[card_id]]
    for stage_id in sorted({move.stage_id for move in moving}):
        ids = [move.card_id for move in moving if move.stage_id == stage_id]
        BidCard.objects.filter(pk__in=ids).update(stage_id=stage_id, updated_at=now)
    return CardEvent.objects.bulk_create(
        CardEvent(
            card_id=move.card_id,
            actor=actor,
            kind=CardEventKind.STAGE,
            data={
                "from": stages[previous[move.card_id]].name,
                "to": stages[move.stage_id].name,
                "kind": stages[move.stage_id].kind,
                **move.note,
            },
            created_at=now,
        )
        for move in moving
    )


# --- deadlines moved by a newer notice ---------------------------------------------------------------------------

# The tender fields a card's dated items come from (``notifications.bid_dates``), as the hand-off names them.
DATED_FIELDS = ("deadlines", "submission_deadline", "questions_deadline", "contract_start")
# By name, as every hand-off to a task (``config.enqueue``): the board's reminders, run now for moved deadlines.
SEND_DUE_REMINDERS_TASK_NAME = "notifications.send_due_reminders"


def day_text(moment: datetime) -> str:
    return moment.astimezone(BERLIN).strftime("%d.%m.")


def moment_text(moment: datetime) -> str:
    return moment.astimezone(BERLIN).strftime("%d.%m.%Y %H:%M")


def moved_items(known: Mapping, items: Iterable[DatedItem]) -> list[tuple[DatedItem, datetime]]:
    """Items whose instant differs from the one the card knew, with the old instant. Pure."""
    moved = []
    for item in items:
        before = known.get(item.key)
        if not before:
            continue
        try:
            old = datetime.fromisoformat(before)
        except (TypeError, ValueError):
            continue
        if old != item.at:
            moved.append((item, old))
    return moved


def _old_value(field_changes: Mapping, name: str, current):
    pair = field_changes.get(name)
    return pair[0] if isinstance(pair, list | tuple) and len(pair) == 2 else current


def _moment_or_none(value) -> datetime | date | None:
    if value in (None, "") or isinstance(value, date):
        return value or None
    text = str(value)
    try:  # a date alone (the contract's start) stays a date: its item is at 09:00 Berlin time
        return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
    except ValueError:
        return None


def items_before(tender, field_changes: Mapping) -> dict[str, str]:
    """The tender's dated items as they were before the delta's changes (``{field: [old, new]}``). Pure.

    What a card compares with when it never knew the tender's deadlines (a card that landed after the periodic
    run last looked): the old values travel with the hand-off.
    """
    items = dated_items(
        deadlines=_old_value(field_changes, "deadlines", tender.deadlines),
        submission_deadline=_moment_or_none(
            _old_value(field_changes, "submission_deadline", tender.submission_deadline)
        ),
        questions_deadline=_moment_or_none(_old_value(field_changes, "questions_deadline", tender.questions_deadline)),
        contract_start=_moment_or_none(_old_value(field_changes, "contract_start", tender.contract_start)),
    )
    return {item.key: item.at.isoformat() for item in items}


def _move_event(card: BidCard, item: DatedItem, old: datetime, *, now: datetime) -> CardEvent:
    # Day and month say it unless the deadline moved within its day; then the time is what changed.
    same_day = day_text(old) == day_text(item.at)
    return CardEvent(
        card=card,
        actor=None,
        kind=CardEventKind.DEADLINE,
        data={
            "item": item.key,
            "kind": item.kind,
            "label": item.label,
            "from": old.isoformat(),
            "to": item.at.isoformat(),
            "from_text": moment_text(old) if same_day else day_text(old),
            "to_text": moment_text(item.at) if same_day else day_text(item.at),
        },
        created_at=now,
    )


def items_with_moves(
    items: Iterable[DatedItem], events: Iterable[CardEvent]
) -> list[tuple[DatedItem, CardEvent | None]]:
    """Each dated item with the newest move told for it, if it still holds (None: not moved). Pure.

    ``events`` are the card's history, newest first; a move whose "to" is no longer the item's instant (moved
    again, or back) is not shown against it.
    """
    moves: dict[str, CardEvent] = {}
    for event in events:
        if event.kind == CardEventKind.DEADLINE and isinstance(event.data, dict):
            moves.setdefault(event.data.get("item"), event)
    result = []
    for item in items:
        move = moves.get(item.key)
        result.append((item, move if move is not None and move.data.get("to") == item.at.isoformat() else None))
    return result


def _deadlines_record(cards: Iterable[BidCard], *, before: Mapping[int, Mapping], now: datetime) -> list[CardEvent]:
    """Tell each (locked) card the moves since what it knew (else since ``before`` of its tender), then remember."""
    events, changed_cards = [], []
    for card in cards:
        items = tender_dated_items(card.tender)
        current = {item.key: item.at.isoformat() for item in items}
        known = card.known_deadlines or {}
        if current == known:
            continue
        for item, old in moved_items(known or before.get(card.tender_id, {}), items):
            events.append(_move_event(card, item, old, now=now))
        card.known_deadlines = current
        changed_cards.append(card)
    CardEvent.objects.bulk_create(events)
    if changed_cards:  # one statement (bulk_update's CASE per card cost more than telling the moves)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {BidCard._meta.db_table} AS c SET known_deadlines = v.known::jsonb "
                "FROM unnest(%s::bigint[], %s::text[]) AS v(id, known) WHERE c.id = v.id",
                [[card.pk for card in changed_cards], [json.dumps(card.known_deadlines) for card in changed_cards]],
            )
    return events


def _cards_with_dates():
    return BidCard.objects.select_related("tender").only(
        "id",
        "owner_id",
        "known_deadlines",
        "tender__id",
        "tender__title",
        "tender__deadlines",
        "tender__submission_deadline",
        "tender__questions_deadline",
        "tender__contract_start",
    )


def bid_cards_deadlines_move(*, changed: Mapping[int, Mapping[str, list]], now: datetime) -> int:
    """The delta's moved deadlines, told at once on the open cards of their tenders; returns how many moves.

    Runs in matching's transaction, so the note commits with the delta's completion (once per tenant and delta;
    a delta matched again finds the cards knowing the new instants). Nothing is read when no dated field changed.
    The card's reminders are computed from the tender, so they moved with it; the reminders' run is asked for
    after commit, so one now due at the new date need not wait for the next quarter-hour.
    """
    moved_tenders = {
        int(tender_id): fields for tender_id, fields in changed.items() if any(name in fields for name in DATED_FIELDS)
    }
    if not moved_tenders:
        return 0
    with transaction.atomic():
        cards = list(
            _cards_with_dates()
            .filter(tender_id__in=list(moved_tenders), stage__kind=BidStageKind.OPEN)
            .select_for_update(of=("self",))
            .order_by("id")
        )
        before = {card.tender_id: items_before(card.tender, moved_tenders[card.tender_id]) for card in cards}
        events = _deadlines_record(cards, before=before, now=now)
    if events:
        enqueue_on_commit(SEND_DUE_REMINDERS_TASK_NAME, schema=connection.schema_name)
    return len(events)


def bid_card_deadlines_sync(*, now: datetime) -> int:
    """The periodic check of every reminding card (open stage, reminders on) against its tender's deadlines.

    Tells what matching did not (a card whose stage was switched off then on again); a card seen for the first
    time only remembers. Locked cards are skipped: matching is telling them right now.
    """
    with transaction.atomic():
        cards = (
            _cards_with_dates()
            .filter(stage__kind=BidStageKind.OPEN, stage__reminders=True)
            .select_for_update(of=("self",), skip_locked=True)
            .order_by("id")
        )
        return len(_deadlines_record(cards, before={}, now=now))
