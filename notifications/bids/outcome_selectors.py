"""Reads of the bid desk's outcomes: the company's identities, the watched competitors and the board's win rate.

The writes (who may add or remove what) are ``notifications.bids.outcomes``.
"""

# ruff: noqa: S608  (identifiers are our own table names; every value is a query parameter)

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from notifications.alerts.award_rules import name_key
from notifications.models import BidCard, BidStage, BidStageKind, CardEvent, CompanyIdentity, WatchedCompetitor
from tenders.models import Tender


def company_identities() -> list[CompanyIdentity]:
    return list(CompanyIdentity.objects.order_by("kind", "value", "id"))


def watched_competitors() -> list[WatchedCompetitor]:
    return list(WatchedCompetitor.objects.select_related("created_by").order_by("label", "id"))


def competitor_watched(*, name: str) -> bool:
    """Whether a supplier (by name, as the market page names it) is on the watch list."""
    key = name_key(name)
    return bool(key) and WatchedCompetitor.objects.filter(name_key=key).exists()


@dataclass(frozen=True)
class WinRate:
    dimension: str  # "stage", "cpv" or "buyer"
    key: str
    won: int
    lost: int

    @property
    def rate(self) -> float | None:
        decided = self.won + self.lost
        return self.won / decided if decided else None


def win_rates(*, limit: int = 10) -> dict[str, list[WinRate]]:
    """Won / (won + lost) of the board's decided cards per stage passed, per CPV division and per buyer.

    One statement: the decided cards with their tender's CPV division and buyer, and every stage a card
    was in before it was decided (its history's "from" stages, "neu" where it landed); each dimension is a
    grouping set. "Per stage": of the cards that reached a stage, how many were won.
    """
    card, stage, event, tender = (
        BidCard._meta.db_table,
        BidStage._meta.db_table,
        CardEvent._meta.db_table,
        Tender._meta.db_table,
    )
    sql = (
        "WITH decided AS ("
        f"  SELECT c.id, s.kind = %s AS won, left(t.main_cpv, 2) AS cpv, t.buyer_name AS buyer "
        f"  FROM {card} c JOIN {stage} s ON s.id = c.stage_id JOIN {tender} t ON t.id = c.tender_id "
        "  WHERE s.kind IN (%s, %s)"
        "), passed AS ("
        f"  SELECT DISTINCT e.card_id, e.data->>'from' AS stage FROM {event} e JOIN decided d ON d.id = e.card_id "
        "  WHERE e.kind IN ('stage', 'decision') AND coalesce(e.data->>'from', '') <> ''"
        ") "
        "SELECT 'stage', p.stage, count(*) FILTER (WHERE d.won), count(*) FILTER (WHERE NOT d.won) "
        "FROM passed p JOIN decided d ON d.id = p.card_id GROUP BY p.stage "
        "UNION ALL SELECT 'cpv', d.cpv, count(*) FILTER (WHERE d.won), count(*) FILTER (WHERE NOT d.won) "
        "FROM decided d WHERE d.cpv <> '' GROUP BY d.cpv "
        "UNION ALL SELECT 'buyer', d.buyer, count(*) FILTER (WHERE d.won), count(*) FILTER (WHERE NOT d.won) "
        "FROM decided d WHERE d.buyer <> '' GROUP BY d.buyer"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [str(BidStageKind.WON), str(BidStageKind.WON), str(BidStageKind.LOST)])
        rows = [WinRate(*row) for row in cursor.fetchall()]
    order = {
        name: position
        for position, name in enumerate(BidStage.objects.order_by("position", "id").values_list("name", flat=True))
    }
    result: dict[str, list[WinRate]] = {"stage": [], "cpv": [], "buyer": []}
    for row in rows:
        result[row.dimension].append(row)
    result["stage"].sort(key=lambda r: (order.get(r.key, len(order)), r.key))
    for dimension in ("cpv", "buyer"):
        result[dimension] = sorted(result[dimension], key=lambda r: (-(r.won + r.lost), r.key))[:limit]
    return result
