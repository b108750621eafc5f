"""Writes of the alert flow: a delta from the ingest becomes matches, change notices and instant mails.

``delta_process`` is what the per-tenant match task runs for each ingest batch, in ONE
transaction: change notices for tenders already matched, then the new matches, then one
instant mail per saved search with instant alerts (bundling all its new matches of this
batch), the new matches' cards on the team board and the deadlines a newer notice moved on them
(``notifications.bid_cards``), the cards award notices
decide and the wins of watched competitors (``notifications.alerts.awards``), one update
mail per such search for its changes, and the webhook events of both. Re-running the same delta
creates nothing: matches and change notices are unique, and mails are only made for
rows this run inserted and claimed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from notifications.alerts.awards import award_outcomes_apply
from notifications.alerts.changes import match_changes_insert
from notifications.alerts.composing import (
    ClaimedChange,
    ClaimedMatch,
    by_search,
    claim_changes,
    claim_matches_limited,
    ids_key,
    mailable,
    search_section,
    unsubscribe_link,
    user_language,
)
from notifications.alerts.deliveries import deliveries_send_soon, delivery_create
from notifications.alerts.matching import NewMatch, active_searches, matches_insert, search_conditions
from notifications.alerts.rendering import change_subject, instant_subject, render_mail
from notifications.alerts.selectors import tenant_base_url, tenders_for_mail
from notifications.alerts.unsubscribe import SCOPE_DIGEST, SCOPE_SEARCH, UnsubscribeTarget
from notifications.bid_cards import bid_cards_deadlines_move, bid_cards_land
from notifications.models import DeliveryKind, DigestInterval, MatchChange, SavedSearch, UserPreference
from notifications.webhooks.services import webhook_events_for_changes, webhook_events_for_matches


@dataclass(frozen=True)
class DeltaOutcome:
    match_ids: tuple[int, ...] = ()
    change_ids: tuple[int, ...] = ()
    delivery_ids: tuple[int, ...] = ()


def delta_parse(*, payload: Mapping) -> tuple[tuple[int, ...], dict[int, dict[str, list]]]:
    """The ingest's hand-off ``{"created": [ids], "changed": {"<id>": {field: [old, new]}}}``, validated."""
    if not isinstance(payload, Mapping):
        raise ValueError("delta must be an object")
    try:
        created = tuple(dict.fromkeys(int(i) for i in payload.get("created") or ()))
        changed: dict[int, dict[str, list]] = {}
        for key, fields in (payload.get("changed") or {}).items():
            if isinstance(fields, Mapping):
                changed[int(key)] = {str(name): list(pair) for name, pair in fields.items() if isinstance(pair, list)}
    except (TypeError, AttributeError) as exc:
        raise ValueError(f"malformed delta: {exc}") from exc
    return created, changed


def _alertable_searches(ids) -> dict[int, SavedSearch]:
    searches = (
        SavedSearch.objects.filter(pk__in=list(ids), is_active=True, instant_alert=True, email_enabled=True)
        .select_related("owner", "owner__preference")
        .order_by("pk")
    )
    return {s.pk: s for s in searches if mailable(s.owner)}


def instant_alerts_create(*, matches: Sequence[NewMatch], now: datetime) -> list[int]:
    """One mail per saved search with instant alerts, bundling its new matches; returns delivery ids."""
    searches = _alertable_searches({m.saved_search_id for m in matches})
    wanted = [m.id for m in matches if m.saved_search_id in searches]
    if not wanted:
        return []
    # Like the digest, an instant mail claims only what it lists; the rest stay new for the digest.
    claim = claim_matches_limited(match_filter={"pk__in": wanted}, now=now, via=DeliveryKind.INSTANT)
    claimed = by_search(claim.claimed)
    tenders = tenders_for_mail({m.tender_id for rows in claimed.values() for m in rows})
    base_url = tenant_base_url()
    delivery_ids = []
    for search_id, rows in claimed.items():
        search = searches[search_id]
        more = claim.left_over.get(search_id, 0)
        delivery_ids.append(_search_mail(search, rows, [], tenders=tenders, base_url=base_url, more=more).pk)
    return delivery_ids


def change_alerts_create(*, change_ids: Sequence[int], now: datetime) -> list[int]:
    """One update mail per saved search with instant alerts for changes of tenders it already told about."""
    if not change_ids:
        return []
    # Decide who can be mailed before claiming, as for new matches: a claimed change is never told again,
    # so a change of a search whose owner cannot be mailed right now stays for the digest.
    search_ids = MatchChange.objects.filter(pk__in=list(change_ids)).values_list("match__saved_search_id", flat=True)
    searches = _alertable_searches(set(search_ids))
    if not searches:
        return []
    pending = claim_changes(
        change_filter={"pk__in": list(change_ids), "match__saved_search_id__in": list(searches)}, now=now
    )
    grouped = by_search(pending)
    tenders = tenders_for_mail({c.tender_id for c in pending})
    base_url = tenant_base_url()
    return [
        _search_mail(searches[search_id], [], rows, tenders=tenders, base_url=base_url).pk
        for search_id, rows in grouped.items()
    ]


def _search_mail(
    search: SavedSearch,
    matches: Sequence[ClaimedMatch],
    changes: Sequence[ClaimedChange],
    *,
    tenders: dict,
    base_url: str,
    more: int = 0,
):
    owner = search.owner
    language = user_language(owner)
    unsubscribe_url = unsubscribe_link(base_url=base_url, scope=SCOPE_SEARCH, object_id=search.pk)
    section = search_section(
        search=search,
        matches=matches,
        changes=changes,
        tenders=tenders,
        base_url=base_url,
        language=language,
        unsubscribe_url=unsubscribe_url,
        more=more,
    )
    if matches:
        kind, key_ids = DeliveryKind.INSTANT, [m.match_id for m in matches]
        subject = instant_subject(language=language, search_name=search.name, tenders=section.tenders)
    else:
        kind, key_ids = DeliveryKind.CHANGE, [c.change_id for c in changes]
        subject = change_subject(language=language, search_name=search.name, changes=section.changes)
    mail = render_mail(
        kind=kind,
        language=language,
        subject=subject,
        sections=[section],
        unsubscribe_url=unsubscribe_url,
        portal_url=base_url + "/",
    )
    return delivery_create(
        kind=kind,
        user=owner,
        recipient=owner.email,
        subject=mail.subject,
        text_body=mail.text_body,
        html_body=mail.html_body,
        headers=mail.headers,
        dedupe_key=f"{kind}:{search.pk}:{ids_key(key_ids)}",
        saved_search=search,
        match_ids=[m.match_id for m in matches],
        change_ids=[c.change_id for c in changes],
        send_soon=False,  # delta_process asks once for the whole batch
    )


def delta_process(
    *, created: Sequence[int], changed: Mapping[int, Mapping[str, list]], now: datetime | None = None
) -> DeltaOutcome:
    """Everything one ingest batch means for this tenant, in one transaction (see module docstring)."""
    now = now or timezone.now()
    tender_ids = list(dict.fromkeys([*created, *changed]))
    if not tender_ids:
        return DeltaOutcome()
    with transaction.atomic():
        # Changes first: a tender that matches for the first time in this batch needs no change notice.
        change_ids = match_changes_insert(changed=changed, now=now)
        conditions = search_conditions(active_searches())
        new_matches = matches_insert(conditions=conditions, tender_ids=tender_ids, now=now)
        # What a profile found lands on the team's board ("neu"), one statement for the batch.
        bid_cards_land(tender_ids=[m.tender_id for m in new_matches], now=now)
        # A newer notice moving a deadline: the cards say so now, their reminders follow the tender's instants.
        bid_cards_deadlines_move(changed=changed, now=now)
        deliveries = instant_alerts_create(matches=new_matches, now=now)
        # Award notices: cards won or lost by the tenant's own names, wins of watched competitors.
        deliveries += award_outcomes_apply(tender_ids=tender_ids, now=now).delivery_ids
        deliveries += change_alerts_create(change_ids=change_ids, now=now)
        webhook_events_for_matches(match_ids=[m.id for m in new_matches], now=now)
        webhook_events_for_changes(change_ids=change_ids, now=now)
        if deliveries:
            deliveries_send_soon()
    return DeltaOutcome(
        match_ids=tuple(m.id for m in new_matches), change_ids=tuple(change_ids), delivery_ids=tuple(deliveries)
    )


def unsubscribe_apply(*, target: UnsubscribeTarget) -> str:
    """Switch off what the link stands for; return its name for the confirmation page (idempotent)."""
    if target.scope == SCOPE_SEARCH:
        search = SavedSearch.objects.filter(pk=target.object_id).first()
        if search is None:
            return ""
        SavedSearch.objects.filter(pk=search.pk).update(email_enabled=False, updated_at=timezone.now())
        return search.name
    if target.scope == SCOPE_DIGEST:
        if not get_user_model().objects.filter(pk=target.object_id).exists():
            return ""
        UserPreference.objects.update_or_create(
            user_id=target.object_id, defaults={"digest_interval": DigestInterval.OFF}
        )
        return ""
    raise ValueError(target.scope)


def unsubscribe_describe(*, target: UnsubscribeTarget) -> str | None:
    """What a link would switch off (for the confirmation page); None when it no longer exists."""
    if target.scope == SCOPE_SEARCH:
        return SavedSearch.objects.filter(pk=target.object_id).values_list("name", flat=True).first()
    exists = get_user_model().objects.filter(pk=target.object_id).exists()
    return "" if exists else None
