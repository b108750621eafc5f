"""Reads of the bid desk: the team board (whole, or "meine": cards a person owns or watches), a card with its
comments and history, the stages, reasons and people to pick from.

Hidden by default: cards in closed stages (gewonnen, verloren, nicht angeboten) and cards of tenders that are
no longer open (expired, awarded, cancelled, or past their submission deadline). ``show_closed`` shows all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import F, Prefetch, Q, QuerySet

from kernel.vocabulary.statuses import TenderStatus
from notifications.models import (
    CLOSED_STAGE_KINDS,
    BidCard,
    BidStage,
    CardComment,
    CardEvent,
    DecisionReason,
)
from tenders.models import Tender

CLOSED_TENDER_STATUSES = (TenderStatus.EXPIRED, TenderStatus.AWARDED, TenderStatus.CANCELLED)
CARDS_PER_COLUMN = 200
# What a card on the board shows of its tender; long texts and the search vector stay in the database.
_TENDER_FIELDS = (
    "tender__id",
    "tender__title",
    "tender__buyer_name",
    "tender__postal_code",
    "tender__town",
    "tender__status",
    "tender__estimated_value",
    "tender__currency",
    "tender__submission_deadline",
)


@dataclass(frozen=True)
class BoardColumn:
    stage: BidStage
    cards: tuple[BidCard, ...]
    more: int = 0  # cards beyond CARDS_PER_COLUMN, not shown


def bid_cards_with_tender() -> QuerySet[BidCard]:
    """Every card with what the board, the partner API and the CSV show of it and its tender (one join)."""
    return BidCard.objects.select_related("tender", "owner", "stage", "decision_reason").only(
        "id",
        "stage_id",
        "owner_id",
        "due_date",
        "decision",
        "decision_reason_id",
        "position",
        "updated_at",
        "owner__email",
        "owner__first_name",
        "owner__last_name",
        "stage__name",
        "stage__kind",
        "stage__position",
        "decision_reason__label",
        *_TENDER_FIELDS,
    )


def bid_board(*, user: AbstractBaseUser, mine: bool, show_closed: bool, now: datetime) -> list[BoardColumn]:
    """Every stage with its cards, nearest deadline first (cards without one last)."""
    stages = list(BidStage.objects.order_by("position", "id"))
    cards = bid_cards_with_tender()
    if mine:
        watched = BidCard.watchers.through.objects.filter(user_id=user.pk).values("bidcard_id")
        cards = cards.filter(Q(owner_id=user.pk) | Q(pk__in=watched))
    if not show_closed:
        stages = [stage for stage in stages if stage.kind not in CLOSED_STAGE_KINDS]
        cards = cards.exclude(stage__kind__in=CLOSED_STAGE_KINDS).exclude(tender__status__in=CLOSED_TENDER_STATUSES)
        cards = cards.exclude(tender__submission_deadline__lt=now)
    cards = cards.order_by(F("tender__submission_deadline").asc(nulls_last=True), "position", "id")
    grouped: dict[int, list[BidCard]] = {stage.pk: [] for stage in stages}
    counts: dict[int, int] = dict.fromkeys(grouped, 0)
    for card in cards.filter(stage_id__in=list(grouped)):
        counts[card.stage_id] += 1
        if len(grouped[card.stage_id]) < CARDS_PER_COLUMN:
            grouped[card.stage_id].append(card)
    return [
        BoardColumn(stage, tuple(grouped[stage.pk]), more=counts[stage.pk] - len(grouped[stage.pk])) for stage in stages
    ]


@dataclass(frozen=True)
class CardDetail:
    card: BidCard
    watcher_ids: frozenset[int]
    comments: tuple[CardComment, ...]
    events: tuple[CardEvent, ...]


def bid_card_detail(*, card_id: int) -> CardDetail | None:
    """A card with watchers, comments (oldest first) and history (newest first); None when there is no such card."""
    card = (
        bid_cards_with_tender()
        .filter(pk=card_id)
        .prefetch_related(
            Prefetch("watchers", queryset=get_user_model().objects.only("id", "email", "first_name", "last_name"))
        )
        .first()
    )
    if card is None:
        return None
    comments = tuple(CardComment.objects.filter(card=card).select_related("author").order_by("created_at", "id"))
    events = tuple(CardEvent.objects.filter(card=card).select_related("actor").order_by("-created_at", "-id")[:100])
    return CardDetail(card, frozenset(w.pk for w in card.watchers.all()), comments, events)


def bid_card_of_tender(*, tender_id: int) -> BidCard | None:
    return BidCard.objects.select_related("stage").filter(tender_id=tender_id).first()


def bid_stages() -> list[BidStage]:
    return list(BidStage.objects.order_by("position", "id"))


def decision_reasons(*, active_only: bool = True) -> list[DecisionReason]:
    rows = DecisionReason.objects.order_by("position", "id")
    return list(rows.filter(is_active=True) if active_only else rows)


def team_members() -> list:
    """The active people of the tenant, to own or watch a card."""
    return list(
        get_user_model().objects.filter(is_active=True).only("id", "email", "first_name", "last_name").order_by("email")
    )


def bid_card_exists(*, card_id: int) -> bool:
    """Whether this tenant has the card: edges answer 404 for another tenant's id before reading any input."""
    return BidCard.objects.filter(pk=card_id).exists()


@dataclass(frozen=True)
class TriageSubject:
    """What a mail's triage link is about: the tender and its card, if it has one yet."""

    tender: Tender
    card: BidCard | None


def mail_triage_subject(*, tender_id: int) -> TriageSubject | None:
    """The tender of a triage link with its card (two short queries); None when there is no such tender."""
    fields = [name.removeprefix("tender__") for name in _TENDER_FIELDS]
    tender = Tender.objects.filter(pk=tender_id).only(*fields).first()
    if tender is None:
        return None
    return TriageSubject(tender=tender, card=bid_card_of_tender(tender_id=tender_id))
