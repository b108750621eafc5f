"""Writes of the bid desk: working a card (stage, owner, watchers, due date, decision, comments) and, for
tenant admins, the board's stages and decision reasons.

Every member of the tenant works every card (one board per tenant); only tenant admins change stages and
reasons. Each service owns its transaction, locks the card it changes and records what changed as a
``CardEvent`` (the card's history, and what later hooks read). An @mention queues one mail per mentioned
person through the outbox (``delivery_create``, dedupe key per comment and person): the mail goes out once
after commit, through the tenant's own mail route, and nothing mails that comment again.
"""

from __future__ import annotations

from datetime import date, datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.roles import user_is_tenant_admin
from kernel.errors import ApplicationError, NotFound, PermissionRefused
from notifications.alerts.composing import mailable, user_language
from notifications.alerts.deliveries import delivery_create
from notifications.alerts.rendering import header_safe
from notifications.alerts.selectors import tenant_base_url
from notifications.bid_cards import StageMove, bid_cards_land, bid_cards_move, bid_defaults_ensure
from notifications.bid_links import card_url
from notifications.bids.mentions import Person, mentioned_people
from notifications.models import (
    BidCard,
    BidDecision,
    BidStage,
    BidStageKind,
    CardComment,
    CardEvent,
    CardEventKind,
    DecisionReason,
    DeliveryKind,
)
from notifications.webhooks.card_events import EVENT_CARD_DECIDED, EVENT_CARD_STAGE_CHANGED, webhook_events_for_card
from tenders.filter_limits import text_problem
from tenders.models import Tender

COMMENT_MAX_LENGTH = 5000
NAME_MAX_LENGTH = 80
LABEL_MAX_LENGTH = 120
QUICK_ACTIONS = ("pruefen", "nicht_relevant")
NOT_RELEVANT_REASON = "nicht relevant"

# --- helpers ----------------------------------------------------------------------------------------------------


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _card_locked(card_id: int) -> BidCard:
    card = BidCard.objects.select_for_update(of=("self",)).filter(pk=card_id).first()
    if card is None:
        raise NotFound(_("Diese Karte gibt es nicht."))
    return card


def _record(card: BidCard, *, actor, kind: str, data: dict, now: datetime) -> CardEvent:
    BidCard.objects.filter(pk=card.pk).update(updated_at=now)
    return CardEvent.objects.create(card=card, actor=actor, kind=kind, data=data, created_at=now)


def _active_member(user_id: int | None):
    if user_id is None:
        return None
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise ApplicationError(fields={"owner": _("Diese Person gibt es im Team nicht.")})
    return user


def _clean_text(text: str, *, field: str, max_length: int) -> str:
    text = (text or "").strip()
    if not text:
        raise ApplicationError(fields={field: _("Bitte einen Text eingeben.")})
    if len(text) > max_length:
        raise ApplicationError(
            fields={field: _("Der Text ist zu lang (höchstens %(max)d Zeichen).") % {"max": max_length}}
        )
    if text_problem(text, max_length=max_length):
        raise ApplicationError(fields={field: _("Der Text enthält unzulässige Steuerzeichen.")})
    return text


def require_board_admin(*, actor: AbstractBaseUser) -> None:
    if not user_is_tenant_admin(actor):
        raise PermissionRefused(_("Phasen und Gründe ändern nur Administratoren."))


# --- cards ------------------------------------------------------------------------------------------------------


@transaction.atomic
def bid_card_ensure(*, tender_id: int, now: datetime | None = None) -> BidCard:
    """The tender's card, put on the board ("neu") if it is not there yet (a tender found by search, not a profile)."""
    if not Tender.objects.filter(pk=tender_id).exists():
        raise NotFound(_("Diese Ausschreibung gibt es nicht."))
    bid_cards_land(tender_ids=[tender_id], now=_now(now))
    return BidCard.objects.select_related("stage").get(tender_id=tender_id)


@transaction.atomic
def bid_card_move(*, card_id: int, actor: AbstractBaseUser, stage_id: int, now: datetime | None = None) -> BidCard:
    card = _card_locked(card_id)
    if not BidStage.objects.filter(pk=stage_id).exists():
        raise ApplicationError(fields={"stage": _("Diese Phase gibt es nicht.")})
    moved = bid_cards_move(moves=[StageMove(card_id=card.pk, stage_id=stage_id)], actor=actor, now=_now(now))
    for event in moved:
        webhook_events_for_card(card_event=event, events=(EVENT_CARD_STAGE_CHANGED,))
    return BidCard.objects.select_related("stage").get(pk=card.pk)


@transaction.atomic
def bid_card_assign(
    *, card_id: int, actor: AbstractBaseUser, owner_id: int | None, now: datetime | None = None
) -> BidCard:
    """Give the card an owner (an active person of the team) or none; the owner no longer needs to watch it."""
    card = _card_locked(card_id)
    owner = _active_member(owner_id)
    if card.owner_id != (owner.pk if owner else None):
        card.owner = owner
        card.save(update_fields=["owner"])
        _record(card, actor=actor, kind=CardEventKind.OWNER, data={"to": owner.email if owner else ""}, now=_now(now))
    return card


@transaction.atomic
def bid_card_watchers_set(
    *, card_id: int, actor: AbstractBaseUser, watcher_ids: list[int], now: datetime | None = None
) -> BidCard:
    card = _card_locked(card_id)
    wanted = set(
        get_user_model()
        .objects.filter(pk__in=[int(i) for i in watcher_ids], is_active=True)
        .values_list("pk", flat=True)
    )
    current = set(card.watchers.values_list("pk", flat=True))
    if wanted != current:
        card.watchers.set(wanted)
        _record(
            card,
            actor=actor,
            kind=CardEventKind.WATCHERS,
            data={"added": sorted(wanted - current), "removed": sorted(current - wanted)},
            now=_now(now),
        )
    return card


@transaction.atomic
def bid_card_due_set(
    *, card_id: int, actor: AbstractBaseUser, due_date: date | None, now: datetime | None = None
) -> BidCard:
    card = _card_locked(card_id)
    if card.due_date != due_date:
        card.due_date = due_date
        card.save(update_fields=["due_date"])
        data = {"to": due_date.isoformat() if due_date else ""}
        _record(card, actor=actor, kind=CardEventKind.DUE, data=data, now=_now(now))
    return card


def _declined_stage() -> BidStage | None:
    return BidStage.objects.filter(kind=BidStageKind.DECLINED).order_by("position", "id").first()


def _decide(card: BidCard, *, actor, decision: str, reason: DecisionReason | None, now: datetime) -> BidCard:
    card.decision, card.decision_reason = decision, reason
    fields = ["decision", "decision_reason"]
    data = {"decision": decision, "reason": reason.label if reason else ""}
    if decision == BidDecision.NO_BID:
        declined = _declined_stage()
        if declined is not None and declined.pk != card.stage_id:
            data |= {"from": card.stage.name, "to": declined.name}
            card.stage = declined
            fields.append("stage")
    card.save(update_fields=fields)
    event = _record(card, actor=actor, kind=CardEventKind.DECISION, data=data, now=now)
    moved = (EVENT_CARD_STAGE_CHANGED,) if "stage" in fields else ()
    webhook_events_for_card(card_event=event, events=(EVENT_CARD_DECIDED, *moved))
    return card


@transaction.atomic
def bid_card_decide(
    *, card_id: int, actor: AbstractBaseUser, decision: str, reason_id: int | None, now: datetime | None = None
) -> BidCard:
    """Bid or no bid. "kein Angebot" needs a reason and moves the card to the first "nicht angeboten" stage."""
    if decision not in BidDecision.values:
        raise ApplicationError(fields={"decision": _("Unbekannte Entscheidung.")})
    card = _card_locked(card_id)
    reason = DecisionReason.objects.filter(pk=reason_id).first() if reason_id else None
    if reason_id and (reason is None or not reason.is_active):
        raise ApplicationError(fields={"reason": _("Diesen Grund gibt es nicht (mehr).")})
    if decision == BidDecision.NO_BID and reason is None:
        raise ApplicationError(fields={"reason": _("Bitte einen Grund für „kein Angebot“ wählen.")})
    return _decide(card, actor=actor, decision=decision, reason=reason, now=_now(now))


@transaction.atomic
def bid_card_quick(*, tender_id: int, actor: AbstractBaseUser, action: str, now: datetime | None = None) -> BidCard:
    """One click where the match is: "prüfen" moves the card to the stage after "neu", "nicht relevant" decides
    no bid with the reason of that name (if the tenant kept it)."""
    if action not in QUICK_ACTIONS:
        raise ApplicationError(fields={"action": _("Unbekannte Aktion.")})
    now = _now(now)
    card = _card_locked(bid_card_ensure(tender_id=tender_id, now=now).pk)
    if action == "nicht_relevant":
        reason = DecisionReason.objects.filter(label__iexact=NOT_RELEVANT_REASON, is_active=True).first()
        return _decide(card, actor=actor, decision=BidDecision.NO_BID, reason=reason, now=now)
    open_stages = list(BidStage.objects.filter(kind=BidStageKind.OPEN).order_by("position", "id")[:2])
    target = open_stages[-1] if open_stages else None
    if target is None:
        return card
    return bid_card_move(card_id=card.pk, actor=actor, stage_id=target.pk, now=now)


# --- comments and @mentions -------------------------------------------------------------------------------------


def _team() -> list[Person]:
    rows = get_user_model().objects.filter(is_active=True).values_list("pk", "email", "first_name", "last_name")
    return [
        Person(id=pk, email=email or "", first_name=first or "", last_name=last or "")
        for pk, email, first, last in rows
    ]


def _mention_mail(*, comment: CardComment, card: BidCard, tender_title: str, recipient, author, base_url: str) -> None:
    author_name = (author.get_full_name() or author.email) if author else "?"
    link = card_url(base_url, card.pk)
    with translation.override(user_language(recipient)):
        subject = _("%(author)s hat Sie erwähnt: %(title)s") % {
            "author": author_name,
            "title": header_safe(tender_title, max_length=150),
        }
        body = "\n\n".join(
            [
                _("%(author)s hat Sie in einem Kommentar zur Ausschreibung „%(title)s“ erwähnt:")
                % {"author": author_name, "title": tender_title},
                comment.text,
                _("Zur Karte: %(link)s") % {"link": link},
            ]
        )
    delivery_create(
        kind=DeliveryKind.MENTION,
        user=recipient,
        recipient=recipient.email,
        subject=subject,
        text_body=body,
        headers={"Auto-Submitted": "auto-generated"},
        dedupe_key=f"mention:{comment.pk}:{recipient.pk}",
    )


@transaction.atomic
def card_comment_add(*, card_id: int, author: AbstractBaseUser, text: str, now: datetime | None = None) -> CardComment:
    """A comment; each active person it @mentions (not the author) gets one mail, queued in the outbox."""
    card = _card_locked(card_id)  # an unknown card (another tenant's id) is "not found" before any input check
    text = _clean_text(text, field="text", max_length=COMMENT_MAX_LENGTH)
    now = _now(now)
    comment = CardComment.objects.create(card=card, author=author, text=text, created_at=now)
    people = [p for p in mentioned_people(text, _team()) if p.id != author.pk]
    recipients = list(get_user_model().objects.filter(pk__in=[p.id for p in people]).select_related("preference"))
    comment.mentions.set(recipients)
    _record(
        card,
        actor=author,
        kind=CardEventKind.COMMENT,
        data={"comment": comment.pk, "mentions": [u.pk for u in recipients]},
        now=now,
    )
    mailable_recipients = [user for user in recipients if mailable(user)]
    if mailable_recipients:
        base_url = tenant_base_url()
        title = Tender.objects.filter(pk=card.tender_id).values_list("title", flat=True).get()  # once, not per person
        for recipient in mailable_recipients:
            _mention_mail(
                comment=comment, card=card, tender_title=title, recipient=recipient, author=author, base_url=base_url
            )
    return comment


# --- stages and reasons (tenant admins) -------------------------------------------------------------------------


def _save_named(row, *, field: str) -> None:
    try:
        with transaction.atomic():
            row.save()
    except IntegrityError as exc:
        raise ApplicationError(fields={field: _("Diesen Namen gibt es schon.")}, code="duplicate_name") from exc


@transaction.atomic
def bid_stage_create(*, actor: AbstractBaseUser, name: str, kind: str) -> BidStage:
    require_board_admin(actor=actor)
    if kind not in BidStageKind.values:
        raise ApplicationError(fields={"kind": _("Unbekannte Art.")})
    bid_defaults_ensure()
    last = BidStage.objects.order_by("-position").values_list("position", flat=True).first()
    stage = BidStage(
        name=_clean_text(name, field="name", max_length=NAME_MAX_LENGTH), kind=kind, position=(last or 0) + 1
    )
    _save_named(stage, field="name")
    return stage


@transaction.atomic
def bid_stage_update(
    *, actor: AbstractBaseUser, stage_id: int, name: str | None = None, position: int | None = None
) -> BidStage:
    """Rename a stage or move it to another position (its kind stays: cards in it keep their meaning)."""
    require_board_admin(actor=actor)
    stage = BidStage.objects.select_for_update().filter(pk=stage_id).first()
    if stage is None:
        raise NotFound(_("Diese Phase gibt es nicht."))
    if name is not None:
        stage.name = _clean_text(name, field="name", max_length=NAME_MAX_LENGTH)
    if position is not None:
        stage.position = max(0, min(int(position), 1000))
    _save_named(stage, field="name")
    return stage


@transaction.atomic
def bid_stage_delete(*, actor: AbstractBaseUser, stage_id: int) -> None:
    """Only an empty stage goes, and never the last open one (matches need a stage to land in)."""
    require_board_admin(actor=actor)
    stage = BidStage.objects.select_for_update().filter(pk=stage_id).first()
    if stage is None:
        raise NotFound(_("Diese Phase gibt es nicht."))
    if stage.cards.exists():
        raise ApplicationError(_("Die Phase enthält noch Karten; bitte diese zuerst verschieben."), code="not_empty")
    if (
        stage.kind == BidStageKind.OPEN
        and not BidStage.objects.filter(kind=BidStageKind.OPEN).exclude(pk=stage.pk).exists()
    ):
        raise ApplicationError(_("Mindestens eine offene Phase muss bleiben."), code="last_open_stage")
    stage.delete()


@transaction.atomic
def decision_reason_create(*, actor: AbstractBaseUser, label: str) -> DecisionReason:
    require_board_admin(actor=actor)
    last = DecisionReason.objects.order_by("-position").values_list("position", flat=True).first()
    reason = DecisionReason(
        label=_clean_text(label, field="label", max_length=LABEL_MAX_LENGTH), position=(last or 0) + 1
    )
    _save_named(reason, field="label")
    return reason


@transaction.atomic
def decision_reason_update(
    *, actor: AbstractBaseUser, reason_id: int, label: str | None = None, is_active: bool | None = None
) -> DecisionReason:
    """Rename or retire a reason; a retired one stays on the cards decided with it but is offered no more."""
    require_board_admin(actor=actor)
    reason = DecisionReason.objects.select_for_update().filter(pk=reason_id).first()
    if reason is None:
        raise NotFound(_("Diesen Grund gibt es nicht."))
    if label is not None:
        reason.label = _clean_text(label, field="label", max_length=LABEL_MAX_LENGTH)
    if is_active is not None:
        reason.is_active = is_active
    _save_named(reason, field="label")
    return reason
