"""Reads of the portal: the user's view of tenders (triage), saved searches, pipeline, dashboard, calendar.

Tenders live in the public schema, triage and saved searches in the tenant's;
both are on the connection's search path, so one query joins them. Every
read of a tenant object is scoped to what the user may see.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Left, TruncDate
from django.utils.translation import get_language

from accounts.roles import user_is_tenant_admin
from kernel.vocabulary.cpv import cpv_label
from kernel.vocabulary.time_zone import BERLIN
from notifications.models import (
    BidCard,
    SavedSearch,
    TenderMatch,
    Triage,
    TriageStatus,
    UserPreference,
    calendar_token_hash,
)
from notifications.portal.csv_export import ExportRow
from notifications.visibility import saved_search_visible
from sources.models import Source
from tenders.deadline_order import OpenDeadlinesFirst
from tenders.filters import FilterError, TenderFilters
from tenders.fulltext import KeywordQuery, keyword_query_build
from tenders.models import Tender
from tenders.pagination import BoundedCountPaginator
from tenders.search import DEFAULT_ORDER, tender_search

PREVIEW_DAYS = 30
CALENDAR_STATUSES = (TriageStatus.INTERESTING, TriageStatus.REVIEWING, TriageStatus.APPLIED)

# --- tenders as one user sees them -----------------------------------------------------------------------


def _triage_of(user) -> QuerySet[Triage]:
    return Triage.objects.filter(user=user)


def triage_status_of(user) -> Subquery:
    """The user's verdict on the tender of a tender query's row (``my_triage``; None: not triaged), as a subquery.

    ``user``: the user or their id."""
    return Subquery(_triage_of(user).filter(tender=OuterRef("pk")).values("status")[:1])


def portal_tender_search(
    *,
    user: AbstractBaseUser,
    filters: TenderFilters,
    triage: tuple[str, ...],
    order: str,
    now: datetime,
    keywords: KeywordQuery | None = None,
    candidates: int | None = None,
) -> QuerySet[Tender] | OpenDeadlinesFirst:
    """``tender_search`` narrowed by the user's own triage and annotated with it (``my_triage``).

    "neu" also covers tenders the user has not triaged yet: that is what "new to me" means.
    ``keywords``: ``keyword_query_build(q=filters.q)``, built once for a page's list, count and highlights.
    A relevance list's shown rows are read by ``notifications.portal.listed_rows`` instead.
    """
    queryset = tender_search(filters=filters, order=order, now=now, keywords=keywords, candidates=candidates)
    mine = _triage_of(user).filter(tender=OuterRef("pk"))
    return _triage_filtered(queryset, mine, triage).annotate(my_triage=triage_status_of(user))


def portal_tender_hits(
    *, user: AbstractBaseUser, filters: TenderFilters, triage: tuple[str, ...], now: datetime, keywords: KeywordQuery
) -> QuerySet[Tender]:
    """What ``portal_tender_search`` finds, unordered and without the user's triage per row: what is counted.

    Triage narrows the hits only when the search names it; the count needs no verdict per hit.
    """
    queryset = tender_search(filters=filters, order="published", now=now, keywords=keywords)
    return _triage_filtered(queryset, _triage_of(user).filter(tender=OuterRef("pk")), triage).order_by()


def _triage_filtered(queryset, mine: QuerySet[Triage], triage: tuple[str, ...]):
    if not triage:
        return queryset
    condition = Q(Exists(mine.filter(status__in=triage)))
    if TriageStatus.NEW in triage:
        condition |= ~Q(Exists(mine))
    return queryset.filter(condition)


# What a result row shows; the stored tsvector and long texts stay in the database.
RESULT_FIELDS = (
    "id",
    "title",
    "buyer_name",
    "postal_code",
    "town",
    "bundesland",
    "status",
    "estimated_value",
    "currency",
    "published_at",
    "submission_deadline",
    "cpv_codes",
)


# Enough of the description for a snippet around its first hit, without reading every long text whole.
SNIPPET_SOURCE_CHARS = 4000


def result_rows(queryset: QuerySet[Tender] | OpenDeadlinesFirst) -> QuerySet[Tender] | OpenDeadlinesFirst:
    """Result rows with the head of the description (``description_head``) for the "why it matched" snippet."""
    return queryset.annotate(description_head=Left("description", SNIPPET_SOURCE_CHARS))


def triage_for(*, user: AbstractBaseUser, tender_id: int) -> Triage | None:
    return _triage_of(user).filter(tender_id=tender_id).first()


# Sources are configured by operators a few times a year; every search and profile page lists them.
SOURCE_CHOICES_SECONDS = 300


def source_choices() -> list[tuple[str, str]]:
    """Portals a user can filter by (all configured sources, also paused ones: their tenders remain).

    Cached for ``SOURCE_CHOICES_SECONDS``: a source an operator adds shows in the filter within minutes.
    """
    return cache.get_or_set(
        "portal:source-choices",
        lambda: list(Source.objects.order_by("name").values_list("key", "name")),
        SOURCE_CHOICES_SECONDS,
    )


def export_rows(queryset: QuerySet[Tender] | OpenDeadlinesFirst, *, url_for, cap: int) -> Iterator[ExportRow]:
    """Rows for the CSV, read in chunks; ``url_for(tender_id)`` builds the absolute detail link.

    Labels are translated now, in the request's language, not later while the response streams.
    """
    status_labels = {value: str(label) for value, label in Tender._meta.get_field("status").choices}
    triage_labels = {value: str(label) for value, label in TriageStatus.choices}
    return _export_rows(
        queryset.values_list(*_EXPORT_COLUMNS)[:cap],
        url_for=url_for,
        status_labels=status_labels,
        triage_labels=triage_labels,
        language=get_language() or "de",
    )


_EXPORT_COLUMNS = (
    "id",
    "title",
    "buyer_name",
    "postal_code",
    "town",
    "bundesland",
    "cpv_codes",
    "estimated_value",
    "currency",
    "published_at",
    "submission_deadline",
    "status",
    "my_triage",
)


def _export_rows(rows, *, url_for, status_labels, triage_labels, language: str) -> Iterator[ExportRow]:
    for values in rows.iterator(chunk_size=1000):
        row = dict(zip(_EXPORT_COLUMNS, values, strict=True))
        yield ExportRow(
            tender_id=row["id"],
            title=row["title"],
            buyer_name=row["buyer_name"],
            postal_code=row["postal_code"],
            town=row["town"],
            bundesland=row["bundesland"],
            cpv_codes=tuple(row["cpv_codes"] or ()),
            cpv_labels=tuple(cpv_label(code, language) for code in row["cpv_codes"] or ()),
            estimated_value=row["estimated_value"],
            currency=row["currency"],
            published_at=row["published_at"],
            submission_deadline=row["submission_deadline"],
            status=status_labels.get(row["status"], row["status"]),
            triage=triage_labels.get(row["my_triage"], "") if row["my_triage"] else "",
            url=url_for(row["id"]),
        )


# --- saved searches ------------------------------------------------------------------------------------------


def user_has_saved_searches(*, user: AbstractBaseUser) -> bool:
    return SavedSearch.objects.filter(owner=user).exists()


def saved_search_list(*, user: AbstractBaseUser, now: datetime) -> QuerySet[SavedSearch]:
    week_ago = now - timedelta(days=7)
    return saved_search_visible(user=user).annotate(
        recent_matches=Count("matches", filter=Q(matches__matched_at__gte=week_ago)),
    )


def saved_search_can_edit(*, user: AbstractBaseUser, saved_search: SavedSearch, is_admin: bool | None = None) -> bool:
    """The owner edits; a tenant admin also edits profiles shared with the company.

    Pass ``is_admin`` when checking many profiles, to look the role up once.
    """
    if saved_search.owner_id == user.pk:
        return True
    if not saved_search.is_shared:
        return False
    return user_is_tenant_admin(user) if is_admin is None else is_admin


def saved_search_filters(saved_search: SavedSearch) -> TenderFilters:
    """The stored filters; a profile whose JSON no longer parses shows as unfiltered rather than crash."""
    try:
        return TenderFilters.from_json(saved_search.filters)
    except FilterError:
        return TenderFilters()


def saved_search_recent_matches(*, saved_search: SavedSearch, limit: int = 20) -> QuerySet[TenderMatch]:
    return saved_search.matches.select_related("tender").order_by("-matched_at", "-id")[:limit]


def saved_search_new_matches(*, saved_search: SavedSearch, limit: int = 200) -> QuerySet[TenderMatch]:
    """Matches no mail has told yet ("neu"), nearest deadline first: where a mail's "… und N weitere" links to."""
    return (
        saved_search.matches.filter(notified_at__isnull=True)
        .select_related("tender")
        .order_by(F("tender__submission_deadline").asc(nulls_last=True), "id")[:limit]
    )


def saved_search_new_match_count(*, saved_search: SavedSearch) -> int:
    return saved_search.matches.filter(notified_at__isnull=True).count()


@dataclass(frozen=True)
class Preview:
    count: int  # the hits the search page shows for these filters, exact up to ``bound``
    sample: tuple[Tender, ...]  # the first of them, in the search page's default order
    since: datetime
    status_named: bool = False  # the filters choose statuses; otherwise only open tenders count
    recent: int = 0  # of the hits, first seen in the last PREVIEW_DAYS days (about what alerts would have sent)
    bound: int = BoundedCountPaginator.exact_up_to  # past it, both figures say "more than" as the search page does

    @property
    def more_than_bound(self) -> bool:
        return self.count > self.bound

    @property
    def recent_more_than_bound(self) -> bool:
        return self.recent > self.bound


def saved_search_preview(*, filters: TenderFilters, now: datetime, sample_size: int = 5) -> Preview:
    """What these filters find now: the same hits, count and order as the search page for the same filters
    (``tender_search``, one meaning everywhere), and how many of them are new in the last 30 days."""
    since = now - timedelta(days=PREVIEW_DAYS)
    keywords = keyword_query_build(q=filters.q)
    ranked = tender_search(filters=filters, order=DEFAULT_ORDER, now=now, keywords=keywords)
    every = tender_search(filters=filters, order="published", now=now, keywords=keywords)
    # Counted as the search page counts (exact up to the bound, "more than" beyond), so both say the same.
    counted = BoundedCountPaginator(ranked, sample_size, count_basis=every)
    count = counted.count
    sample = tuple(ranked[:sample_size]) if count else ()
    bound = BoundedCountPaginator.exact_up_to
    recent = every.filter(first_seen_at__gte=since).order_by()[: bound + 1].count()
    return Preview(count, sample, since, status_named=bool(filters.status), recent=recent, bound=bound)


# --- pipeline, dashboard, calendar ------------------------------------------------------------------------------


def triage_pipeline(*, user: AbstractBaseUser) -> list[tuple[str, str, list[Triage]]]:
    """(status, label, triage rows) for every status in workflow order, nearest deadline first."""
    rows = _triage_of(user).select_related("tender").order_by(F("tender__submission_deadline").asc(nulls_last=True))
    grouped: dict[str, list[Triage]] = {status: [] for status in TriageStatus.values}
    for row in rows:
        grouped.setdefault(row.status, []).append(row)
    return [(status, str(label), grouped[status]) for status, label in TriageStatus.choices]


def dashboard_new_matches(*, user: AbstractBaseUser, now: datetime, days: int = 7, limit: int = 10):
    """The user's newest matches, each with its tender's stage on the team board (``card_stage``, None: no card)."""
    card = BidCard.objects.filter(tender_id=OuterRef("tender_id"))
    return (
        TenderMatch.objects.filter(saved_search__owner=user, matched_at__gte=now - timedelta(days=days))
        .select_related("tender", "saved_search")
        .annotate(card_stage=Subquery(card.values("stage__name")[:1]), card_id=Subquery(card.values("pk")[:1]))
        .order_by("-matched_at")[:limit]
    )


def dashboard_deadlines(*, user: AbstractBaseUser, now: datetime, days: int = 7, limit: int = 20):
    """Tenders due within ``days`` that the user triaged (not rejected) or one of the user's profiles matched."""
    triaged = _triage_of(user).exclude(status=TriageStatus.REJECTED).filter(tender=OuterRef("pk"))
    matched = TenderMatch.objects.filter(saved_search__owner=user, tender=OuterRef("pk"))
    rejected = _triage_of(user).filter(status=TriageStatus.REJECTED, tender=OuterRef("pk"))
    return (
        Tender.objects.filter(submission_deadline__gte=now, submission_deadline__lte=now + timedelta(days=days))
        .filter(Q(Exists(triaged)) | Q(Exists(matched)))
        .exclude(Exists(rejected))
        .annotate(my_triage=triage_status_of(user))
        .order_by("submission_deadline", "id")[:limit]
    )


def tender_daily_counts(*, since: datetime, until: datetime) -> dict[date, int]:
    """Tenders per Berlin day of publication: one GROUP BY over the published_at index.

    By publication, not by when we first read them: a first run or a backfill reads weeks of
    notices in one day, and a chart by ingest day then shows them all on today.
    """
    rows = (
        Tender.objects.filter(published_at__gte=since, published_at__lt=until)
        .annotate(day=TruncDate("published_at", tzinfo=BERLIN))
        .values("day")
        .annotate(count=Count("id"))
        .values_list("day", "count")
    )
    return dict(rows)


def calendar_owner(*, token: str) -> UserPreference | None:
    """The preference row holding this calendar token's hash (only active users), or None."""
    if not token or len(token) > 64:
        return None
    return (
        UserPreference.objects.filter(calendar_token_hash=calendar_token_hash(token), user__is_active=True)
        .select_related("user")
        .first()
    )


def calendar_since(*, now: datetime) -> datetime:
    """The oldest deadline the calendar feed still carries: a subscribed calendar keeps past events
    (a bid under evaluation is still found by its deadline), for ``PORTAL_CALENDAR_PAST_DAYS``."""
    return now - timedelta(days=settings.PORTAL_CALENDAR_PAST_DAYS)


def calendar_triage(*, user: AbstractBaseUser, now: datetime) -> QuerySet[Triage]:
    """Triage rows whose tender deadline belongs in the user's calendar: every future one and those
    passed since ``calendar_since``."""
    since = calendar_since(now=now)
    return (
        _triage_of(user)
        .filter(status__in=CALENDAR_STATUSES, tender__submission_deadline__gte=since)
        .select_related("tender")
        .order_by("tender__submission_deadline", "tender_id")
    )
