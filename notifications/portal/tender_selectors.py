"""The tender page as one user sees it: the tender with its history, the user's triage, which of the
user's visible profiles matched it and why, read in as few statements as the page allows."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import JSONObject
from django.utils.translation import get_language

from notifications.models import SavedSearch, Triage
from notifications.visibility import saved_search_visible
from tenders.filters import FilterError, TenderFilters, effective_filters
from tenders.fulltext import keywords_version_column
from tenders.match_reasons import MatchReasons, match_reasons_by_filters
from tenders.models import Tender
from tenders.selectors import tender_history_prefetches


@dataclass(frozen=True)
class TenderView:
    tender: Tender
    triage: Triage | None
    matched_profiles: tuple[SavedSearch, ...]
    # Why each profile matched (by profile id); a profile whose stored filters cannot be read has none.
    reasons: dict[int, MatchReasons] = field(default_factory=dict)
    # Read with the tender: the page's keywords (its own "q" too) compile against it without another statement.
    keywords_version: str | None = None


def tender_view(*, user: AbstractBaseUser, tender_id: int) -> TenderView:
    """A tender with history, the user's triage, which of the user's visible profiles matched it, and why."""
    tender = _tender_with_mine(user=user).get(pk=tender_id)
    triage = None
    if tender.triage_id is not None:
        triage = Triage(
            id=tender.triage_id,
            user=user,
            tender_id=tender.pk,
            status=tender.triage_status,
            note=tender.triage_note,
            updated_at=tender.triage_updated_at,
        )
    # A profile matches a tender once (match_unique), so no profile is listed twice.
    profiles = tuple(
        SavedSearch(id=row["id"], name=row["name"], filters=row["filters"]) for row in tender.matched_profiles
    )
    readable = {}
    for profile in profiles:
        try:
            readable[profile.pk] = effective_filters(TenderFilters.from_json(profile.filters))
        except FilterError:
            continue
    # Each profile's keywords are compiled once; the tender's words are stemmed once for all profiles.
    reasons = match_reasons_by_filters(
        filters_by_key=readable,
        tender=tender,
        language=get_language() or "de",
        keywords_version=tender.keywords_version,
    )
    return TenderView(tender, triage, profiles, reasons, keywords_version=tender.keywords_version)


def _tender_with_mine(*, user: AbstractBaseUser) -> QuerySet[Tender]:
    """Tenders with history, each row carrying the user's triage (``triage_*``), which of the user's visible
    profiles matched it (``matched_profiles``: id, name, filters) and the keywords version the page's keywords
    compile against (``keywords_version``), read in the tender's statement."""
    mine = Triage.objects.filter(user=user, tender=OuterRef("pk"))
    matched = (
        saved_search_visible(user=user)
        .select_related(None)
        .filter(matches__tender=OuterRef("pk"))
        .order_by("name", "id")
        .values(row=JSONObject(id="id", name="name", filters="filters"))
    )
    sources, versions = tender_history_prefetches()
    # The page names each notice by its publication number: read with the versions, not per version.
    numbered = versions.queryset.annotate(publication_number=KT("record__publication_number"))
    return Tender.objects.prefetch_related(sources, Prefetch(versions.prefetch_through, queryset=numbered)).annotate(
        **{f"triage_{name}": Subquery(mine.values(name)[:1]) for name in ("id", "status", "note", "updated_at")},
        matched_profiles=ArraySubquery(matched),
        keywords_version=keywords_version_column(),
    )
