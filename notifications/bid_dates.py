"""A card's dated items: every deadline its tender states, read from the tender (never stored on the card).

Teilnahmefrist, Bieterfragen, Angebotsfrist, Bindefrist, Eröffnung and the contract's start, from
``Tender.deadlines`` (kinds of ``kernel.vocabulary.deadlines``) plus the tender's own submission and questions
deadlines and ``contract_start``. Because they are computed, a newer notice that moves a deadline moves the
card's items, its reminders (``notifications.bids.reminders``) and its calendar events with it.

Below the features so the board (``notifications.bids``) and the calendar feed (``notifications.portal``) read
the same items. ``dated_items`` is pure; ``card_dated_items`` and ``reminder_days_of`` read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime, time

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from kernel.vocabulary.deadlines import DeadlineKind
from kernel.vocabulary.time_zone import BERLIN
from notifications.models import BidCard, BidStageKind, UserPreference, default_reminder_days
from tenders.models import Tender

START = "start"  # the contract's start: a date, shown at 09:00 Berlin time
BINDING = "bindefrist"
MAX_REMINDER_DAYS = 60
MAX_REMINDERS = 5
START_HOUR = time(9, 0)

ITEM_LABELS = {
    DeadlineKind.PARTICIPATION: _("Teilnahmefrist"),
    DeadlineKind.QUESTIONS: _("Bieterfragen"),
    DeadlineKind.TENDER: _("Angebotsfrist"),
    BINDING: _("Bindefrist"),
    DeadlineKind.OPENING: _("Eröffnungstermin"),
    START: _("Ausführungsbeginn"),
}
_ORDER = {kind: position for position, kind in enumerate(ITEM_LABELS)}


@dataclass(frozen=True)
class DatedItem:
    kind: str
    at: datetime  # aware
    lot_id: str = ""
    # Whether a reader is told the lot: only when the tender's deadlines name several lots ("LOT-0000" of a
    # tender with one lot tells nothing). The key keeps the lot either way: reminders already sent stay known.
    lot_shown: bool = False

    @property
    def key(self) -> str:
        """The item's identity on its card: its kind, and its lot when it is one lot's."""
        return f"{self.kind}:{self.lot_id}" if self.lot_id else self.kind

    @property
    def label(self) -> str:
        return str(ITEM_LABELS.get(self.kind, self.kind))


def _moment(value) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, START_HOUR)
    else:
        try:
            moment = datetime.fromisoformat(str(value))
        except (TypeError, ValueError):
            return None
    return moment if moment.tzinfo else moment.replace(tzinfo=BERLIN)


def dated_items(
    *,
    deadlines: Iterable[Mapping] = (),
    submission_deadline: datetime | None = None,
    questions_deadline: datetime | None = None,
    contract_start: date | None = None,
) -> list[DatedItem]:
    """The tender's deadlines as items, one per (kind, lot), in their order of the procedure then of time.

    A kind the list states wins over the same kind from the tender's own fields (both are the same notice's).
    """
    items: dict[str, DatedItem] = {}
    for entry in deadlines or ():
        if not isinstance(entry, Mapping):
            continue
        kind, at = str(entry.get("kind") or ""), _moment(entry.get("at"))
        if kind and at is not None:
            item = DatedItem(kind=kind, at=at, lot_id=str(entry.get("lot_id") or "")[:100])
            items.setdefault(item.key, item)
    for kind, value in (
        (DeadlineKind.TENDER, submission_deadline),
        (DeadlineKind.QUESTIONS, questions_deadline),
        (START, contract_start),
    ):
        at = _moment(value) if value else None
        if at is not None and not any(item.kind == kind for item in items.values()):
            items[str(kind)] = DatedItem(kind=str(kind), at=at)
    if len({item.lot_id for item in items.values() if item.lot_id}) > 1:
        items = {key: replace(item, lot_shown=bool(item.lot_id)) for key, item in items.items()}
    return sorted(items.values(), key=lambda item: (item.at, _ORDER.get(item.kind, 99), item.lot_id))


def tender_dated_items(tender) -> list[DatedItem]:
    return dated_items(
        deadlines=tender.deadlines,
        submission_deadline=tender.submission_deadline,
        questions_deadline=tender.questions_deadline,
        contract_start=tender.contract_start,
    )


def clean_reminder_days(values: Iterable) -> list[int]:
    """Days before a deadline, largest first, each 1…60, at most five; anything else is left out."""
    days = set()
    for value in values or ():
        try:
            day = int(value)
        except (TypeError, ValueError):
            continue
        if 1 <= day <= MAX_REMINDER_DAYS:
            days.add(day)
    return sorted(days, reverse=True)[:MAX_REMINDERS]


def reminder_days_of(user: AbstractBaseUser) -> list[int]:
    """A person's reminder days (also the calendar's alarms); [7, 3, 1] until they choose."""
    preference = UserPreference.objects.filter(user_id=user.pk).only("reminder_days").first()
    return clean_reminder_days(preference.reminder_days if preference else default_reminder_days())


def tender_items(*, tender_id: int) -> list[DatedItem]:
    """The dated items of one tender (its card page); [] when there is no such tender."""
    tender = (
        Tender.objects.filter(pk=tender_id)
        .only("id", "deadlines", "submission_deadline", "questions_deadline", "contract_start")
        .first()
    )
    return tender_dated_items(tender) if tender else []


_CARD_TENDER_FIELDS = (
    "id",
    "tender__id",
    "tender__title",
    "tender__buyer_name",
    "tender__postal_code",
    "tender__town",
    "tender__changed_at",
    "tender__deadlines",
    "tender__submission_deadline",
    "tender__questions_deadline",
    "tender__contract_start",
)


def calendar_cards(*, user: AbstractBaseUser) -> list[BidCard]:
    """Cards the person owns or watches, in open stages that remind, with what their calendar events need."""
    watched = BidCard.watchers.through.objects.filter(user_id=user.pk).values("bidcard_id")
    return list(
        BidCard.objects.filter(Q(owner_id=user.pk) | Q(pk__in=watched))
        .filter(stage__kind=BidStageKind.OPEN, stage__reminders=True)
        .select_related("tender")
        .only(*_CARD_TENDER_FIELDS)
        .order_by("id")
    )
