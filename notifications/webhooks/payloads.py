"""The JSON a partner receives, and the keys that make each event unique per webhook. Pure functions.

The payload is built when the event is created and stored on the row, so a
retry sends byte-for-byte the same event even if the tender changed meanwhile.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from kernel.vocabulary.time_zone import BERLIN

EVENT_MATCHED = "tender.matched"
EVENT_CHANGED = "tender.changed"
EVENT_CANCELLED = "tender.cancelled"
EVENTS = (EVENT_MATCHED, EVENT_CHANGED, EVENT_CANCELLED)
# The team board's events, for webhooks without a profile that subscribe to them (``card_events.py``).
EVENT_CARD_STAGE_CHANGED = "card.stage_changed"
EVENT_CARD_DECIDED = "card.decided"
BOARD_EVENTS = (EVENT_CARD_STAGE_CHANGED, EVENT_CARD_DECIDED)
PAYLOAD_VERSION = 1

# The subset of ``tenders.selectors.tender_representation`` sent with every event: what a partner
# needs to act, not the full version history (that is one API call away: ``/api/v1/tenders/<id>``).
TENDER_FIELDS = (
    "id",
    "ocid",
    "procedure_id",
    "title",
    "description",
    "buyer_name",
    "procedure_type",
    "procedure_type_label",
    "status",
    "cpv_codes",
    "nuts",
    "nuts_regions",
    "bundesland",
    "postal_code",
    "town",
    "estimated_value",
    "currency",
    "published_at",
    "deadline",
    "questions_deadline",
    "documents_url",
    "sources",
)
DESCRIPTION_MAX_CHARS = 2000
_EVENT_KEY_MAX = 200


def tender_summary(representation: dict) -> dict:
    """The event's ``tender`` object; a long description is cut (events stay small)."""
    summary = {name: representation.get(name) for name in TENDER_FIELDS}
    description = summary.get("description") or ""
    if len(description) > DESCRIPTION_MAX_CHARS:
        summary["description"] = description[: DESCRIPTION_MAX_CHARS - 1] + "…"
    return summary


def change_event_name(change_kind: str) -> str:
    return EVENT_CANCELLED if change_kind == "cancelled" else EVENT_CHANGED


def _bounded(key: str) -> str:
    """Keys longer than the column are replaced by a stable hash of themselves."""
    if len(key) <= _EVENT_KEY_MAX:
        return key
    return key[:100] + "#" + hashlib.sha256(key.encode()).hexdigest()


def match_event_key(*, tender_id: int) -> str:
    """One ``tender.matched`` per tender and webhook, however often matching runs."""
    return f"matched:{tender_id}"


def change_event_key(*, tender_id: int, change_key: str) -> str:
    """One event per distinct change of a tender (``MatchChange.change_key``, e.g. the new deadline)."""
    return _bounded(f"change:{tender_id}:{change_key}")


def event_payload(
    *,
    event: str,
    event_id: str,
    occurred_at: datetime,
    tender: dict,
    saved_search_id: int,
    saved_search_name: str,
    change: dict | None = None,
) -> dict:
    """The documented event body (``version`` bumps on incompatible changes)."""
    if event not in EVENTS:
        raise ValueError(f"unknown webhook event {event!r}")
    payload = {
        "version": PAYLOAD_VERSION,
        "id": event_id,
        "event": event,
        "occurred_at": occurred_at.astimezone(BERLIN).isoformat(),
        "saved_search": {"id": saved_search_id, "name": saved_search_name},
        "tender": tender,
    }
    if change is not None:
        payload["change"] = change
    return payload


def change_details(*, kind: str, old_value: str, new_value: str, detected_at: datetime) -> dict:
    return {
        "kind": kind,
        "old_value": old_value or None,
        "new_value": new_value or None,
        "detected_at": detected_at.astimezone(BERLIN).isoformat(),
    }
