"""Board events for webhooks: ``card.stage_changed`` and ``card.decided``, queued with the change itself.

The board's services call ``webhook_events_for_card`` right after they wrote the ``CardEvent``, inside
their transaction: a change that rolls back sends nothing, one that commits is queued once per webhook
(the event key names the ``CardEvent``, unique per webhook), then signed and sent by
``notifications.webhooks.delivery`` like every other event. Not a signal: the service that changes the
card is the one place that knows the actor and the stages before and after.

A webhook without a profile subscribes to the board events it lists (``Webhook.board_events``).
"""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser

from kernel.vocabulary.time_zone import BERLIN
from notifications.models import BidCard, CardEvent, Webhook
from notifications.webhooks.payloads import (
    BOARD_EVENTS,
    EVENT_CARD_DECIDED,
    EVENT_CARD_STAGE_CHANGED,
    PAYLOAD_VERSION,
)
from notifications.webhooks.services import EventRow, webhook_events_insert

__all__ = [
    "BOARD_EVENTS",
    "EVENT_CARD_DECIDED",
    "EVENT_CARD_STAGE_CHANGED",
    "person_data",
    "webhook_events_for_card",
    "webhook_events_for_cards",
]


def person_data(user: AbstractBaseUser | None) -> dict | None:
    """A person as board events and the partner API show them (one shape for both)."""
    if user is None:
        return None
    name = f"{user.first_name or ''} {user.last_name or ''}".strip()
    return {"id": user.pk, "email": user.email or "", "name": name}


def card_event_payload(*, event: str, card_event: CardEvent, card: BidCard, tender_title: str) -> dict:
    """The documented body of a board event (``version`` bumps on incompatible changes)."""
    if event not in BOARD_EVENTS:
        raise ValueError(f"unknown board event {event!r}")
    data = card_event.data
    payload = {
        "version": PAYLOAD_VERSION,
        "id": str(uuid.uuid4()),
        "event": event,
        "occurred_at": card_event.created_at.astimezone(BERLIN).isoformat(),
        "card": {"id": card.pk},
        "tender": {"id": card.tender_id, "title": tender_title},
        "actor": person_data(card_event.actor),
        "stage": {"id": card.stage_id, "name": card.stage.name, "kind": card.stage.kind},
    }
    if "to" in data and "from" in data:
        payload["stage_change"] = {"from": data["from"], "to": data["to"]}
        if data.get("via"):  # e.g. "award": moved by an award notice, actor null
            payload["stage_change"]["via"] = data["via"]
    if event == EVENT_CARD_DECIDED:
        payload["decision"] = {"value": data.get("decision", ""), "reason": data.get("reason") or None}
    return payload


def webhook_events_for_card(*, card_event: CardEvent, events: tuple[str, ...]) -> int:
    """Queue ``events`` of one card change for every active webhook subscribed to them; returns how many."""
    return webhook_events_for_cards(card_events=[card_event], events=events)


def webhook_events_for_cards(*, card_events: list[CardEvent], events: tuple[str, ...]) -> int:
    """The same for a batch of changes (e.g. cards moved by award notices): three statements in all."""
    hooks = list(
        Webhook.objects.filter(is_active=True, saved_search__isnull=True, board_events__overlap=list(events))
        .order_by("id")
        .values_list("id", "board_events")
    )
    if not hooks or not card_events:
        return 0
    cards = BidCard.objects.select_related("stage", "tender").only(
        "id", "tender_id", "stage_id", "stage__name", "stage__kind", "tender__id", "tender__title"
    )
    cards_by_id = cards.in_bulk([card_event.card_id for card_event in card_events])
    rows = []
    for card_event in card_events:
        card = cards_by_id.get(card_event.card_id)
        if card is None:
            continue
        for webhook_id, subscribed in hooks:
            for event in events:
                if event in subscribed:
                    payload = card_event_payload(
                        event=event, card_event=card_event, card=card, tender_title=card.tender.title
                    )
                    rows.append(EventRow(webhook_id, event, f"{event}:{card_event.pk}", payload))
    return webhook_events_insert(rows=rows, now=min(card_event.created_at for card_event in card_events))
