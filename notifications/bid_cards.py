"""The bid desk's shared core: the default stages and reasons, and matches landing on the board as cards.

Below the engines so matching (``notifications.alerts``) can put its new matches on the board in its own
transaction, and the board pages (``notifications.bids``) find the same defaults. Set-based: a batch of
matched tenders is one ``INSERT … ON CONFLICT DO NOTHING`` (with their "angelegt" history rows in the same
statement), whatever its size; a tender already on the board keeps its card as it is.
"""

# ruff: noqa: S608  (identifiers are our own table names; every value is a query parameter)

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import connection

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
            f"INSERT INTO {stage_table} (name, kind, position) "
            "SELECT d.name, d.kind, d.position "
            "FROM unnest(%s::text[], %s::text[], %s::int[]) AS d(name, kind, position) "
            f"WHERE NOT EXISTS (SELECT 1 FROM {stage_table}) ON CONFLICT DO NOTHING",
            [
                [name for name, _kind in DEFAULT_STAGES],
                [str(kind) for _name, kind in DEFAULT_STAGES],
                list(range(len(DEFAULT_STAGES))),
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
