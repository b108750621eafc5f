"""Reads behind the partner API, all within the current tenant's schema (tenders are public facts).

Saved-search visibility for an API key: a key acts for the user who created it,
so it sees that user's own saved searches plus the searches shared in the
company (``is_shared``), exactly what that user sees in the portal. It may
change and delete only the creator's own searches.
"""

from __future__ import annotations

import hmac
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import F, QuerySet

from notifications.api.services import api_key_hash
from notifications.models import ApiKey, SavedSearch, TenderMatch
from notifications.visibility import saved_search_visible
from tenders import search
from tenders.deadline_order import OpenDeadlinesFirst
from tenders.filters import FilterError, TenderFilters, effective_filters
from tenders.match_reasons import match_reasons
from tenders.models import Tender
from tenders.representation import REPRESENTED_FIELDS
from tenders.selectors import tender_history_prefetches


def api_key_for_secret(plaintext: str) -> ApiKey | None:
    """The key whose hash matches, in this schema only: a key of another tenant is simply unknown here.

    Lookup is by the SHA-256 of the presented key, so timing reveals nothing about
    stored keys; the final comparison is constant-time as a second line.
    """
    digest = api_key_hash(plaintext=plaintext)
    try:
        # get(), not first(): the hash is unique, and sorting the one row by id cost a fifth of the lookup.
        api_key = ApiKey.objects.select_related("created_by").get(key_hash=digest)
    except ApiKey.DoesNotExist:
        return None
    if not hmac.compare_digest(api_key.key_hash, digest):
        return None
    return api_key


def api_key_list() -> QuerySet[ApiKey]:
    return ApiKey.objects.select_related("created_by").order_by(F("revoked_at").desc(nulls_first=True), "-created_at")


def tender_search(
    *, filters: TenderFilters, order: str, now: datetime, shown: int | None = None
) -> QuerySet[tuple] | OpenDeadlinesFirst:
    """The portal's result list (``tenders.search``: same filters, same orders) as rows of the columns
    ``tender_representations`` shapes a page from; ``shown``: the most rows the page reads (``tenders.search``)."""
    listed = search.tender_search(filters=filters, order=order, now=now, shown=shown)
    return listed.values_list(*REPRESENTED_FIELDS, named=True)


def tender_detail(*, tender_id: int) -> Tender:
    """Raises Tender.DoesNotExist."""
    return search.tender_detail(tender_id=tender_id)


def saved_search_visible_to(*, user: AbstractBaseUser) -> QuerySet[SavedSearch]:
    """The portal's visibility rule (``saved_search_visible``), in the API's stable order."""
    return saved_search_visible(user=user).order_by("name", "id")


def match_list(*, user: AbstractBaseUser, saved_search_id: int | None = None, since: datetime | None = None):
    """Matches of the saved searches ``user`` can see, newest first, with each tender's one shape prefetched."""
    matches = TenderMatch.objects.filter(saved_search__in=saved_search_visible_to(user=user).values("pk"))
    if saved_search_id is not None:
        matches = matches.filter(saved_search_id=saved_search_id)
    if since is not None:
        matches = matches.filter(matched_at__gte=since)
    return (
        matches.select_related("saved_search", "tender")
        .prefetch_related(*tender_history_prefetches("tender__"))
        .order_by("-matched_at", "-id")
    )


def match_reasons_of(*, matches) -> dict[int, dict]:
    """ "Warum gefunden" by match id for a page of matches: per saved search, its filters as matching read
    them, explained for its tenders (two queries per saved search on the page, none per match)."""
    by_search: dict[int, list] = {}
    for match in matches:
        by_search.setdefault(match.saved_search_id, []).append(match)
    reasons: dict[int, dict] = {}
    for group in by_search.values():
        try:
            filters = effective_filters(TenderFilters.from_json(group[0].saved_search.filters))
        except FilterError:
            continue  # unreadable stored filters: the match stays, without reasons
        explained = match_reasons(filters=filters, tenders=[match.tender for match in group])
        reasons.update({match.pk: explained[match.tender_id].as_json() for match in group})
    return reasons
