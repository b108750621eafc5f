"""Building blocks shared by instant, change and digest mails: claims, sections, links, languages.

Claiming is what makes "never the same (tender, saved search) twice" hold across instant
mails and digests: a match is claimed by setting ``notified_at`` under a row lock in the
same transaction that creates the ``Delivery`` row, and only rows still unclaimed are
taken. A change of a match that is only now being told is absorbed (marked notified
without its own line): the mail shows the tender as it is now.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import validate_email
from django.db import connection
from django.db.models import F
from django.urls import reverse

from notifications.alerts.rendering import (
    MAX_TENDERS_PER_SECTION,
    ChangeLine,
    Section,
    TenderLine,
    change_line,
    language_of,
    tender_line,
)
from notifications.alerts.unsubscribe import unsubscribe_token
from notifications.bid_links import DISMISS, REVIEW, triage_token
from notifications.models import MatchChange, SavedSearch, TenderMatch
from tenders.filters import FilterError, TenderFilters, effective_filters
from tenders.highlighting import Highlighter, tender_highlights
from tenders.match_reasons import match_reasons


@dataclass(frozen=True)
class ClaimedMatch:
    match_id: int
    saved_search_id: int
    tender_id: int


@dataclass(frozen=True)
class ClaimedChange:
    change_id: int
    saved_search_id: int
    tender_id: int
    kind: str
    old_value: str
    new_value: str


def ids_key(ids: Iterable[int]) -> str:
    """A short stable fingerprint of a set of ids, for dedupe keys."""
    joined = ",".join(str(i) for i in sorted(set(ids)))
    return hashlib.sha256(joined.encode()).hexdigest()[:24]


def user_language(user) -> str:
    try:
        return language_of(user.preference.language)
    except ObjectDoesNotExist:
        return language_of(None)


def mailable(user) -> bool:
    if not user.is_active or not user.email:
        return False
    try:
        validate_email(user.email)
    except ValidationError:
        return False
    return "\n" not in user.email and "\r" not in user.email


def triage_links(*, base_url: str, user_id: int, tender_id: int) -> tuple[str, str]:
    """The recipient's "prüfen" and "nicht relevant" links for one tender: confirmation pages on the board."""
    return tuple(
        base_url
        + reverse(
            "bids:mail-triage",
            kwargs={
                "token": triage_token(
                    user_id=user_id, tender_id=tender_id, action=action, schema_name=connection.schema_name
                )
            },
            urlconf=settings.ROOT_URLCONF,
        )
        for action in (REVIEW, DISMISS)
    )


def unsubscribe_link(*, base_url: str, scope: str, object_id: int) -> str:
    token = unsubscribe_token(scope=scope, object_id=object_id, schema_name=connection.schema_name)
    return base_url + reverse("alerts:unsubscribe", kwargs={"token": token}, urlconf=settings.ROOT_URLCONF)


@dataclass(frozen=True)
class MatchClaim:
    """What one mail claimed (it lists exactly these) and how many per search it left for later."""

    claimed: list[ClaimedMatch]
    left_over: dict[int, int]  # saved search id -> unclaimed matches beyond the per-search limit


def claim_matches_limited(
    *, match_filter: dict, now: datetime, via: str, per_search_limit: int | None = MAX_TENDERS_PER_SECTION
) -> MatchClaim:
    """Claim at most ``per_search_limit`` matches per search (nearest deadline first): a mail claims only
    what it lists. The rest stay unnotified ("neu" in the portal, told by a later mail) and are counted."""
    rows = list(
        TenderMatch.objects.select_for_update(of=("self",))
        .filter(notified_at__isnull=True, **match_filter)
        .order_by("saved_search_id", F("tender__submission_deadline").asc(nulls_last=True), "pk")
        .values_list("pk", "saved_search_id", "tender_id")
    )
    claimed: list[ClaimedMatch] = []
    left_over: dict[int, int] = defaultdict(int)
    taken: dict[int, int] = defaultdict(int)
    for row in rows:
        match = ClaimedMatch(*row)
        if per_search_limit is not None and taken[match.saved_search_id] >= per_search_limit:
            left_over[match.saved_search_id] += 1
            continue
        taken[match.saved_search_id] += 1
        claimed.append(match)
    _mark_claimed(claimed, now=now, via=via)
    return MatchClaim(claimed=claimed, left_over=dict(left_over))


def _mark_claimed(claimed: list[ClaimedMatch], *, now: datetime, via: str) -> None:
    if claimed:
        ids = [c.match_id for c in claimed]
        TenderMatch.objects.filter(pk__in=ids).update(notified_at=now, notified_via=via)
        MatchChange.objects.filter(match_id__in=ids, notified_at__isnull=True).update(notified_at=now)


def claim_changes(*, change_filter: dict, now: datetime) -> list[ClaimedChange]:
    """Mark pending changes of already-notified matches as notified; return what was claimed."""
    rows = list(
        MatchChange.objects.select_for_update(of=("self",))
        .filter(notified_at__isnull=True, match__notified_at__isnull=False, **change_filter)
        .order_by("match__saved_search_id", "detected_at", "pk")
        .values_list("pk", "match__saved_search_id", "match__tender_id", "kind", "old_value", "new_value")
    )
    claimed = [ClaimedChange(*row) for row in rows]
    if claimed:
        MatchChange.objects.filter(pk__in=[c.change_id for c in claimed]).update(notified_at=now)
    return claimed


def by_search(items: Iterable) -> dict[int, list]:
    grouped: dict[int, list] = defaultdict(list)
    for item in items:
        grouped[item.saved_search_id].append(item)
    return grouped


def search_filters(search: SavedSearch) -> TenderFilters:
    """The profile's filters as matching read them, or none when they cannot be read (then nothing is explained)."""
    try:
        return effective_filters(TenderFilters.from_json(search.filters))
    except (FilterError, TypeError, ValueError):
        return TenderFilters()


def search_section(
    *,
    search: SavedSearch,
    matches: Sequence[ClaimedMatch],
    changes: Sequence[ClaimedChange],
    tenders: dict,
    base_url: str,
    language: str,
    unsubscribe_url: str,
    more: int = 0,
) -> Section:
    """One search's part of a mail; ``more`` matches beyond the limit were not claimed and are only counted."""
    matched = [tenders[m.tender_id] for m in matches if m.tender_id in tenders][: MAX_TENDERS_PER_SECTION + 1]
    filters = search_filters(search)
    highlighter = Highlighter(filters.q) if filters.q else None
    reasons = match_reasons(filters=filters, tenders=matched, language=language, highlighter=highlighter)
    highlights = tender_highlights(q=filters.q, tenders=matched, language=language, highlighter=highlighter)
    lines: list[TenderLine] = [
        tender_line(
            tenders[m.tender_id],
            base_url=base_url,
            language=language,
            highlight=highlights.get(m.tender_id),
            reasons=reasons[m.tender_id].as_json() if m.tender_id in reasons else None,
            triage=triage_links(base_url=base_url, user_id=search.owner_id, tender_id=m.tender_id),
        )
        for m in matches
        if m.tender_id in tenders
    ]
    change_lines: list[ChangeLine] = [
        change_line(
            line=tender_line(tenders[c.tender_id], base_url=base_url, language=language),
            kind=c.kind,
            old_value=c.old_value,
            new_value=c.new_value,
            language=language,
        )
        for c in changes
        if c.tender_id in tenders
    ]
    return Section(
        name=search.name,
        unsubscribe_url=unsubscribe_url,
        tenders=tuple(lines[:MAX_TENDERS_PER_SECTION]),
        more=more + max(0, len(lines) - MAX_TENDERS_PER_SECTION),
        more_url=f"{base_url}{reverse('portal:profile', args=[search.pk], urlconf=settings.ROOT_URLCONF)}?neu=1",
        changes=tuple(change_lines[:MAX_TENDERS_PER_SECTION]),
    )
