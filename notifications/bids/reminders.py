"""Deadline reminders of the team board: due reminders mailed once.

Who: the card's owner and watchers (active, with a plain address), each with their own days before a deadline
(``UserPreference.reminder_days``, [7, 3, 1] until chosen; [] = none). Which cards: those in an open stage whose
reminders are on (``BidStage.reminders``; closed stages never remind). What: every dated item of the tender
(``notifications.bid_dates``), computed from the tender, so a moved deadline moves its reminders.

When: a reminder "d days before" falls due at ``at - d days``. Of the thresholds a person has passed for one
item only the nearest is sent, and only within ``REMINDER_GRACE`` of it: a card that lands two days before the
Angebotsfrist does not get its 7- and 3-day reminders at once, and a run after an outage sends no stale ones.

Exactly once: each reminder is one ``Delivery`` (kind ``reminder``) with the dedupe key
``reminder:<card>:<item>:<instant>:<days>:<person>``; a second run finds the key and queues nothing, and the
outbox sends a row once. A moved deadline has another instant, so another key: the old reminders are never sent
if they were not yet due, the new ones fall due at their own time. Mail goes through the tenant's mail route
like every outbox row. Moved deadlines are told on the card by ``notifications.bid_cards`` (matching does it at
once; each run here first catches what it missed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from kernel.errors import NotFound
from notifications.alerts.composing import mailable, user_language
from notifications.alerts.deliveries import deliveries_send_soon, delivery_create
from notifications.alerts.rendering import header_safe
from notifications.alerts.selectors import tenant_base_url
from notifications.bid_cards import bid_card_deadlines_sync, card_people_ids, moment_text
from notifications.bid_dates import DatedItem, clean_reminder_days, tender_dated_items
from notifications.bid_links import card_url
from notifications.bids.services import require_board_admin
from notifications.models import (
    BidCard,
    BidStage,
    BidStageKind,
    Delivery,
    DeliveryKind,
    UserPreference,
    default_reminder_days,
)

REMINDER_GRACE = timedelta(days=1)
DAY = timedelta(days=1)
_KEY_LIMIT = 200


@dataclass(frozen=True)
class DueReminder:
    item: DatedItem
    days: int


def reminders_due(*, items: Iterable[DatedItem], days: Sequence[int], now: datetime) -> list[DueReminder]:
    """Per item the nearest threshold passed, if within ``REMINDER_GRACE`` of it and the item still ahead. Pure."""
    due = []
    for item in items:
        if item.at <= now:
            continue
        passed = [d for d in days if item.at - d * DAY <= now]
        if not passed:
            continue
        nearest = min(passed)
        if now - (item.at - nearest * DAY) <= REMINDER_GRACE:
            due.append(DueReminder(item=item, days=nearest))
    return due


def reminder_key(*, card_id: int, item: DatedItem, days: int, user_id: int) -> str:
    """The reminder's identity: card, item (kind and lot), the deadline's instant, days before, person."""
    instant = item.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")
    key = f"reminder:{card_id}:{item.key}:{instant}:{days}:{user_id}"
    if len(key) > _KEY_LIMIT:  # a very long lot id: keep the key unique, not readable
        key = "reminder:" + hashlib.sha256(key.encode("utf-8")).hexdigest()
    return key


def _reminding_cards():
    return (
        BidCard.objects.filter(stage__kind=BidStageKind.OPEN, stage__reminders=True)
        .select_related("tender")
        .only(
            "id",
            "owner_id",
            "tender__id",
            "tender__title",
            "tender__deadlines",
            "tender__submission_deadline",
            "tender__questions_deadline",
            "tender__contract_start",
        )
        .order_by("id")
    )


# --- reminders, mailed once -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReminderRun:
    moved: int = 0
    due: int = 0
    queued: int = 0


def _recipients(cards: Sequence[BidCard]) -> dict[int, list]:
    """Per card the people to remind: owner and watchers, active and mailable."""
    people = card_people_ids(card_ids=[card.pk for card in cards])
    user_ids = {user_id for ids in people.values() for user_id in ids}
    users = {
        u.pk: u
        for u in get_user_model().objects.filter(pk__in=user_ids, is_active=True).select_related("preference")
        if mailable(u)
    }
    return {card_id: [users[i] for i in sorted(ids) if i in users] for card_id, ids in people.items()}


def _days_of(user) -> list[int]:
    try:
        return clean_reminder_days(user.preference.reminder_days)
    except UserPreference.DoesNotExist:
        return default_reminder_days()


def _reminder_mail(*, card: BidCard, item: DatedItem, days: int, user, base_url: str, key: str) -> None:
    tender = card.tender
    link = card_url(base_url, card.pk)
    with translation.override(user_language(user)):
        when = _("morgen") if days == 1 else _("in %(days)d Tagen") % {"days": days}
        subject = _("Erinnerung: %(label)s %(when)s – %(title)s") % {
            "label": item.label,
            "when": when,
            "title": header_safe(tender.title, max_length=150),
        }
        lines = [
            _("%(label)s der Ausschreibung „%(title)s“: %(moment)s (%(when)s).")
            % {"label": item.label, "title": tender.title, "moment": moment_text(item.at), "when": when},
        ]
        if item.lot_shown:
            lines.append(_("Los: %(lot)s") % {"lot": item.lot_id})
        lines += [
            _("Zur Karte: %(link)s") % {"link": link},
            _("Erinnerungen stellen Sie unter %(link)s ein (Tage vorher, leer = keine).")
            % {"link": f"{base_url}/einstellungen/benachrichtigungen/"},
        ]
    delivery_create(
        kind=DeliveryKind.REMINDER,
        user=user,
        recipient=user.email,
        subject=subject,
        text_body="\n\n".join(lines),
        headers={"Auto-Submitted": "auto-generated"},
        dedupe_key=key,
        send_soon=False,
    )


def reminders_send_due(*, now: datetime | None = None) -> ReminderRun:
    """Tell moved deadlines on their cards, then queue every reminder due now that was not queued before."""
    now = now or timezone.now()
    moved = bid_card_deadlines_sync(now=now)  # matching told most moves already; this catches the rest
    cards = list(_reminding_cards())
    planned: list[tuple[BidCard, DatedItem, int, object, str]] = []
    recipients = _recipients(cards) if cards else {}
    for card in cards:
        items = [item for item in tender_dated_items(card.tender) if item.at > now]
        if not items:
            continue
        for user in recipients.get(card.pk, []):
            for due in reminders_due(items=items, days=_days_of(user), now=now):
                key = reminder_key(card_id=card.pk, item=due.item, days=due.days, user_id=user.pk)
                planned.append((card, due.item, due.days, user, key))
    if not planned:
        return ReminderRun(moved=moved)
    known = set(Delivery.objects.filter(dedupe_key__in=[p[4] for p in planned]).values_list("dedupe_key", flat=True))
    fresh = [p for p in planned if p[4] not in known]
    if fresh:
        base_url = tenant_base_url()
        with transaction.atomic():
            for card, item, days, user, key in fresh:
                _reminder_mail(card=card, item=item, days=days, user=user, base_url=base_url, key=key)
            deliveries_send_soon()
    return ReminderRun(moved=moved, due=len(planned), queued=len(fresh))


def bid_stage_reminders_set(*, actor, stage_id: int, enabled: bool) -> BidStage:
    """Switch a stage's reminders on or off (tenant admins; closed stages never remind, whatever is set)."""
    require_board_admin(actor=actor)
    with transaction.atomic():
        stage = BidStage.objects.select_for_update().filter(pk=stage_id).first()
        if stage is None:
            raise NotFound(_("Diese Phase gibt es nicht."))
        stage.reminders = bool(enabled)
        stage.save(update_fields=["reminders"])
    return stage


def user_reminder_days_set(*, user, days: Iterable) -> list[int]:
    """A person's days before each deadline (reminder mail and calendar alarm); [] switches reminders off."""
    cleaned = clean_reminder_days(days)
    UserPreference.objects.update_or_create(user=user, defaults={"reminder_days": cleaned})
    return cleaned
