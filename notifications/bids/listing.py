"""Reads of the board for the partner API and the CSV export: stages with counts, cards as one ordered list.

The page groups cards by column (``selectors.bid_board``); a partner and a spreadsheet want one list,
filtered the same way: hidden by default are cards in closed stages and cards of tenders no longer open
(``include_closed`` shows all); "meine" is owner or watcher, an ``owner_id`` only the owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Prefetch, Q, QuerySet

from notifications.bids.selectors import CLOSED_TENDER_STATUSES, bid_cards_with_tender
from notifications.models import CLOSED_STAGE_KINDS, BidCard, BidStage

EXPORT_ROW_CAP = 10_000


@dataclass(frozen=True)
class StageCount:
    stage: BidStage
    cards: int  # every card in the stage
    open_cards: int  # those the board shows by default (tender still open)


def bid_stage_counts(*, now: datetime) -> list[StageCount]:
    """Every stage in board order with its number of cards, in one query."""
    tender_open = ~Q(cards__tender__status__in=CLOSED_TENDER_STATUSES) & ~Q(cards__tender__submission_deadline__lt=now)
    stages = BidStage.objects.annotate(
        total=Count("cards", distinct=True), still_open=Count("cards", filter=tender_open, distinct=True)
    ).order_by("position", "id")
    return [
        StageCount(stage, stage.total, 0 if stage.kind in CLOSED_STAGE_KINDS else stage.still_open) for stage in stages
    ]


def _filtered(
    *,
    user,
    stage_id: int | None = None,
    mine: bool = False,
    owner_id: int | None = None,
    include_closed: bool = False,
    updated_since: datetime | None = None,
    now: datetime,
) -> QuerySet[BidCard]:
    cards = bid_cards_with_tender()
    if stage_id is not None:
        cards = cards.filter(stage_id=stage_id)
    if mine:
        watched = BidCard.watchers.through.objects.filter(user_id=user.pk).values("bidcard_id")
        cards = cards.filter(Q(owner_id=user.pk) | Q(pk__in=watched))
    if owner_id is not None:
        cards = cards.filter(owner_id=owner_id)
    if not include_closed:
        cards = cards.exclude(stage__kind__in=CLOSED_STAGE_KINDS).exclude(tender__status__in=CLOSED_TENDER_STATUSES)
        cards = cards.exclude(tender__submission_deadline__lt=now)
    if updated_since is not None:
        cards = cards.filter(updated_at__gte=updated_since)
    return cards


def bid_card_list(**filters) -> QuerySet[BidCard]:
    """Cards for a partner, unordered (the cursor pagination orders them: last change first)."""
    return _filtered(**filters).prefetch_related(
        Prefetch("watchers", queryset=get_user_model().objects.only("id", "email", "first_name", "last_name"))
    )


def bid_card_export(*, user, mine: bool, include_closed: bool, now: datetime) -> list[BidCard]:
    """The board as rows: stage by stage in board order, nearest deadline first (like the columns)."""
    cards = _filtered(user=user, mine=mine, include_closed=include_closed, now=now).order_by(
        "stage__position", "stage_id", F("tender__submission_deadline").asc(nulls_last=True), "position", "id"
    )
    return list(cards[:EXPORT_ROW_CAP])
