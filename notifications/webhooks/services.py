"""Writes for webhooks: register, deactivate, delete, and turn matches/changes into events.

Events are created set-based (one INSERT … ON CONFLICT DO NOTHING per call), so
calling the event functions again for the same matches or changes creates
nothing new: the key of an event is unique per webhook. Sending happens in
``notifications.webhooks.delivery`` (started after commit).
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from config.enqueue import enqueue_on_commit
from kernel.errors import ApplicationError
from notifications.models import (
    DeliveryStatus,
    MatchChange,
    SavedSearch,
    TenderMatch,
    Webhook,
    WebhookEvent,
)
from notifications.webhooks.payloads import (
    BOARD_EVENTS,
    EVENT_MATCHED,
    change_details,
    change_event_key,
    change_event_name,
    event_payload,
    match_event_key,
    tender_summary,
)
from notifications.webhooks.signing import new_signing_secret
from notifications.webhooks.targets import webhook_loopback_allowed, webhook_url_check
from tenders.representation import tender_representation
from tenders.selectors import tender_with_history

SEND_DUE_TASK_NAME = "notifications.send_due_webhooks"  # notifications.tasks.webhooks.send_due_webhooks_task


@dataclass(frozen=True)
class WebhookCreated:
    webhook: Webhook
    secret: str  # shown to the admin once, stored encrypted, never displayed again


def webhook_create(
    *,
    saved_search: SavedSearch | None,
    url: str,
    created_by: AbstractBaseUser,
    board_events: Iterable[str] = (),
) -> WebhookCreated:
    """Register an HTTPS endpoint for a profile, or (no profile) for the team board's ``board_events``;
    raises ``ApplicationError`` for a URL we must not call.

    Only the creator's own profiles and shared ones qualify (``webhook_may_send``): a webhook on
    another person's private profile would hand its matches to a third party behind the owner's back.
    """
    board_events = sorted(set(board_events))
    if saved_search is None:
        if not board_events or not set(board_events) <= set(BOARD_EVENTS):
            message = _("Bitte ein Suchprofil oder mindestens ein Ereignis des Team-Boards wählen.")
            raise ApplicationError(fields={"board_events": message}, code="board_events")
    elif board_events:
        message = _("Ereignisse des Team-Boards gehen an einen Webhook ohne Suchprofil.")
        raise ApplicationError(fields={"board_events": message}, code="board_events")
    elif not (saved_search.is_shared or saved_search.owner_id == created_by.pk):
        message = "Nur eigene oder geteilte Suchprofile können einen Webhook bekommen."
        raise ApplicationError(fields={"saved_search": message}, code="saved_search")
    # WebhookTargetRefused (an ApplicationError on the "url" field) for a URL we must not call.
    url = webhook_url_check(url, allow_loopback=webhook_loopback_allowed())
    secret = new_signing_secret()
    with transaction.atomic():
        webhook = Webhook.objects.create(
            saved_search=saved_search,
            board_events=board_events,
            url=url,
            secret=secret,
            is_active=True,
            created_by=created_by,
        )
    return WebhookCreated(webhook=webhook, secret=secret)


SWITCHED_OFF_REASON = "Webhook deaktiviert – nicht gesendet"
CREATOR_LEFT_REASON = (
    "Webhook deaktiviert, weil die Person, die ihn angelegt hat, im Team deaktiviert wurde – nicht gesendet"
)


def _webhooks_switch_off(webhooks: QuerySet[Webhook], *, reason: str) -> int:
    """Off means "stop sending": the webhooks' unsent events are dropped (kept as failed, with ``reason``)."""
    with transaction.atomic():
        ids = list(webhooks.select_for_update().values_list("pk", flat=True))
        Webhook.objects.filter(pk__in=ids).update(is_active=False)
        WebhookEvent.objects.filter(webhook_id__in=ids, status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.FAILED, last_error=reason
        )
    return len(ids)


@dataclass(frozen=True)
class WebhookSwitched:
    webhook: Webhook
    secret: str | None  # a new signing secret when switched back on: shown to that admin once, never again


def webhook_set_active(*, webhook: Webhook, is_active: bool) -> WebhookSwitched:
    """Switch a webhook on or off. Switching off also drops its unsent events.

    A webhook acts for the person who connected it (like their API key), so one whose creator was
    deactivated cannot be switched on again: raises ``ApplicationError``; a current admin connects it anew.

    Switching an inactive webhook on signs with a new secret: whoever knew the old one (a person who
    left, was reactivated with no rights to it, or read it while it was off) must not be able to forge
    or verify what is sent from now on. The admin who switches it on gets the new secret.
    """
    if not is_active:
        _webhooks_switch_off(Webhook.objects.filter(pk=webhook.pk), reason=SWITCHED_OFF_REASON)
        webhook.is_active = False
        return WebhookSwitched(webhook=webhook, secret=None)
    if Webhook.objects.filter(pk=webhook.pk, created_by__is_active=False).exists():
        raise ApplicationError(
            _(
                "Dieser Webhook wurde von einer Person angelegt, die nicht mehr im Team aktiv ist. "
                "Bitte legen Sie ihn neu an."
            ),
            code="creator_inactive",
        )
    secret = None
    with transaction.atomic():
        locked = Webhook.objects.select_for_update().get(pk=webhook.pk)
        if not locked.is_active:  # already on: nothing changes, the receiver keeps its secret
            secret = new_signing_secret()
            locked.secret, locked.is_active = secret, True
            locked.save(update_fields=["secret", "is_active"])
    webhook.is_active = True
    if secret is not None:
        webhook.secret = secret
    return WebhookSwitched(webhook=webhook, secret=secret)


def webhooks_switch_off_created_by(*, user_id: int) -> int:
    """A person leaves the team: every webhook they connected stops (part of ``team_member_deactivate``)."""
    return _webhooks_switch_off(
        Webhook.objects.filter(created_by_id=user_id, is_active=True), reason=CREATOR_LEFT_REASON
    )


def webhook_delete(*, webhook: Webhook) -> None:
    """Remove the webhook and its event log."""
    with transaction.atomic():
        Webhook.objects.filter(pk=webhook.pk).delete()


@dataclass(frozen=True)
class EventRow:
    """One event to queue for one webhook (``webhook_events_insert``); its key makes it once per webhook."""

    webhook_id: int
    event: str
    event_key: str
    payload: dict


def _clean_ids(ids: Iterable[int]) -> list[int]:
    return sorted({int(i) for i in ids})


# The creation rule, held at send time too: a profile made private later stops feeding
# webhooks that others connected to it (and a webhook without a known creator needs a shared profile).
webhook_may_send = Q(saved_search__is_shared=True) | Q(saved_search__owner=F("created_by"))


def _active_webhooks_by_search(search_ids: Iterable[int]) -> dict[int, list[int]]:
    hooks: dict[int, list[int]] = defaultdict(list)
    rows = Webhook.objects.filter(
        webhook_may_send, is_active=True, saved_search_id__in=set(search_ids), saved_search__is_active=True
    )
    for webhook_id, search_id in rows.order_by("id").values_list("id", "saved_search_id"):
        hooks[search_id].append(webhook_id)
    return hooks


def _tender_summaries(tender_ids: Iterable[int]) -> dict[int, dict]:
    """One query per relation (tenders, sources, versions), not per tender."""
    tenders = tender_with_history().filter(pk__in=set(tender_ids))
    return {tender.pk: tender_summary(tender_representation(tender)) for tender in tenders}


def webhook_events_insert(*, rows: list[EventRow], now: datetime) -> int:
    """INSERT … ON CONFLICT DO NOTHING in one statement; returns how many rows were new."""
    if not rows:
        return 0
    table = connection.ops.quote_name(WebhookEvent._meta.db_table)
    sql = f"""
        INSERT INTO {table} (webhook_id, event, event_key, payload, status, attempts, next_attempt_at, last_error)
        SELECT w, e, k, p::jsonb, %s, 0, %s, ''
        FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[]) AS t(w, e, k, p)
        ON CONFLICT (webhook_id, event_key) DO NOTHING
        RETURNING id
    """  # noqa: S608 - the table name comes from the model, every value is a parameter
    params = [
        DeliveryStatus.PENDING.value,
        now,
        [row.webhook_id for row in rows],
        [row.event for row in rows],
        [row.event_key for row in rows],
        [json.dumps(row.payload, ensure_ascii=False) for row in rows],
    ]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        created = len(cursor.fetchall())
    if created:
        # One sender run per batch, after commit; if the broker is down the periodic fan-out sends them.
        enqueue_on_commit(SEND_DUE_TASK_NAME)
    return created


def webhook_events_for_matches(*, match_ids: Iterable[int], now: datetime | None = None) -> int:
    """``tender.matched`` events for new matches, one per active webhook of the match's profile.

    Returns the number of events created (already known events are skipped).
    """
    now = now or timezone.now()
    ids = _clean_ids(match_ids)
    if not ids:
        return 0
    matches = list(
        TenderMatch.objects.filter(pk__in=ids)
        .select_related("saved_search")
        .only("id", "tender_id", "matched_at", "saved_search__id", "saved_search__name")
    )
    hooks = _active_webhooks_by_search(m.saved_search_id for m in matches)
    matches = [m for m in matches if m.saved_search_id in hooks]
    tenders = _tender_summaries(m.tender_id for m in matches)
    rows = []
    for match in matches:
        tender = tenders.get(match.tender_id)
        if tender is None:
            continue
        for webhook_id in hooks[match.saved_search_id]:
            payload = event_payload(
                event=EVENT_MATCHED,
                event_id=str(uuid.uuid4()),
                occurred_at=match.matched_at,
                tender=tender,
                saved_search_id=match.saved_search_id,
                saved_search_name=match.saved_search.name,
            )
            rows.append(EventRow(webhook_id, EVENT_MATCHED, match_event_key(tender_id=match.tender_id), payload))
    return webhook_events_insert(rows=rows, now=now)


def webhook_events_for_changes(*, change_ids: Iterable[int], now: datetime | None = None) -> int:
    """``tender.changed`` / ``tender.cancelled`` events for detected changes of matched tenders.

    Returns the number of events created (already known events are skipped).
    """
    now = now or timezone.now()
    ids = _clean_ids(change_ids)
    if not ids:
        return 0
    changes = list(
        MatchChange.objects.filter(pk__in=ids)
        .select_related("match", "match__saved_search")
        .only(
            "id",
            "kind",
            "change_key",
            "old_value",
            "new_value",
            "detected_at",
            "match__id",
            "match__tender_id",
            "match__saved_search__id",
            "match__saved_search__name",
        )
    )
    hooks = _active_webhooks_by_search(c.match.saved_search_id for c in changes)
    changes = [c for c in changes if c.match.saved_search_id in hooks]
    tenders = _tender_summaries(c.match.tender_id for c in changes)
    rows = []
    for change in changes:
        match = change.match
        tender = tenders.get(match.tender_id)
        if tender is None:
            continue
        event = change_event_name(change.kind)
        details = change_details(
            kind=change.kind, old_value=change.old_value, new_value=change.new_value, detected_at=change.detected_at
        )
        key = change_event_key(tender_id=match.tender_id, change_key=change.change_key)
        for webhook_id in hooks[match.saved_search_id]:
            payload = event_payload(
                event=event,
                event_id=str(uuid.uuid4()),
                occurred_at=change.detected_at,
                tender=tender,
                saved_search_id=match.saved_search_id,
                saved_search_name=match.saved_search.name,
                change=details,
            )
            rows.append(EventRow(webhook_id, event, key, payload))
    return webhook_events_insert(rows=rows, now=now)
