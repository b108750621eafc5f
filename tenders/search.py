"""Searching tenders: the result list the portal, the exports and the partner API show.

Which tenders match is decided by ``tenders.filter_query.filters_q`` alone (the same
rules saved searches match with); this module only adds what a result list
needs on top: relevance ranking over the stored German ``search_vector`` and
the sort orders users can choose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import SearchRank
from django.db import connection, connections
from django.db.models import BigIntegerField, F, Func, IntegerField, QuerySet, Value
from django.db.models.expressions import RawSQL

from tenders.deadline_order import OpenDeadlinesFirst
from tenders.filter_query import filters_q
from tenders.filters import ORDERS, TenderFilters, effective_filters
from tenders.fulltext import KeywordQuery, keyword_query_build
from tenders.models import Tender
from tenders.selectors import tender_with_history

DEFAULT_ORDER = "relevance"
# Relevance ranks at most this many matches: the newest ones. Ranking every match of a very frequent word
# (100,000 on a million tenders) means reading every one of them; the newest thousand are found
# walking the publication index and are what a bid manager looks at. Lists meant to be complete (CSV,
# counting, a partner's full sync) use the deadline or publication order, which are not bounded.
RANK_CANDIDATES = 1000
# Where the newest candidates are looked for first: a frequent word has thousands of open matches, and the
# newest thousand of them were all published within days. Reading only the last week's matches (the word's
# index and the publication index intersected before any row is read) visits a fifth of the rows; a word with
# fewer matches that week falls back to all its matches, at the cost of having looked at the week.
RECENT_CANDIDATES_WINDOW = timedelta(days=7)
# ts_rank's weights for D, C, B, A (SEARCH_VECTOR_EXPRESSION): a title word counts 2.5 times a buyer's or
# a title part's, 10 times a description's, 20 times a CPV label's (PostgreSQL's default: 0.1, 0.2, 0.4,
# 1.0). A label names the code's whole class ("… Druck und Sicherheit" for consulting), a description
# mentions much besides the work, so a hit there ranks below a tender whose title states the word.
RANK_WEIGHTS = [0.05, 0.1, 0.4, 1.0]


def order_or_default(raw: str | None) -> str:
    """The sort order named in a URL, or the default for anything unknown (never an error: it is cosmetic)."""
    return raw if raw in ORDERS else DEFAULT_ORDER


def ranks(*, order: str | None, q: str) -> bool:
    """Whether the list for this order and these keywords is ranked (relevance with keywords): it then ends after
    its candidates and pages by number; every other list is ordered by an index and pages by keyset."""
    return order_or_default(order) == "relevance" and bool(q)


def tender_search(
    *,
    filters: TenderFilters,
    order: str,
    now: datetime,
    keywords: KeywordQuery | None = None,
    candidates: int | None = None,
    shown: int | None = None,
    listed: Sequence[int] | None = None,
) -> QuerySet[Tender] | OpenDeadlinesFirst:
    """Tenders matching ``filters``, sorted by ``order`` (relevance, deadline or published).

    "deadline" lists open deadlines first, nearest first, then expired ones, then those without
    (``tenders.deadline_order``: three index-ordered parts read one after the other).

    Relevance ranks by ``ts_rank`` of the keywords (title weighs most, see
    ``SEARCH_VECTOR_EXPRESSION``) the newest ``RANK_CANDIDATES`` matches; without
    keywords there is nothing to rank and the newest publications come first.
    Every order ends in the id, so pages are stable while paginating. A relevance
    list ends after its candidates: count matches on the same filters in another order.

    ``keywords``: ``keyword_query_build(q=filters.q)``, built once by a caller that lists, counts and
    highlights the same search; without it the keywords are built here. ``candidates``: how many of the
    newest matches a relevance list ranks (``RANK_CANDIDATES`` by default; one more than a count's bound lets
    the list count itself). ``shown``: how many of a relevance list's first rows the caller reads at most (a
    page's end, plus one to know whether there is more); the list then holds only those, ranked where the
    candidates are read, so the rows of the others are never fetched again. Without it the list holds every
    candidate (a caller that counts them or filters them further needs them all). ``listed``: the ids
    ``relevance_listed`` read for the same search, best first; the list then holds those rows in that order
    (no ``rank`` of its own) and looks for no candidates itself.
    """
    keywords = keywords.check_for(filters.q) if keywords is not None else keyword_query_build(q=filters.q)
    order = order_or_default(order)
    if ranks(order=order, q=filters.q):
        if listed is not None:
            # Ranked where they were read: kept in that order, so the rows' statement neither reads their search
            # words nor ranks them again.
            return Tender.objects.filter(pk__in=listed).order_by(listed_order(listed))
        # The candidates carry every filter; the outer statement only ranks them. Repeating the filters there
        # made PostgreSQL run the word and Land bitmaps a second time for the semi-join (165 -> 80 ms at 1M).
        queryset, since = _candidates_source(filters, now=now, keywords=keywords)
        bound = candidates or RANK_CANDIDATES
        listed = (
            newest_candidates(queryset, bound=bound, since=since)
            if shown is None
            else best_ranked(queryset, bound=bound, since=since, keywords=keywords, shown=shown)
        )
        return (
            Tender.objects.filter(pk__in=listed)
            .annotate(rank=SearchRank(F("search_vector"), keywords.rank_search, weights=RANK_WEIGHTS))
            .order_by("-rank", F("submission_deadline").asc(nulls_last=True), "-id")
        )
    queryset = _matching(filters, now=now, keywords=keywords, by_deadline=order == "deadline")
    if order == "deadline":
        return OpenDeadlinesFirst.of(queryset, now=now)
    return queryset.order_by(F("published_at").desc(nulls_last=True), "-id")


def _matching(filters: TenderFilters, *, now: datetime, keywords: KeywordQuery, by_deadline: bool) -> QuerySet[Tender]:
    # One meaning everywhere: no status named = open tenders only, as in saved searches (effective_filters).
    return Tender.objects.filter(
        filters_q(
            effective_filters(filters),
            now=now,
            keywords=keywords,
            by_deadline=by_deadline,
            land_words_indexed=land_words_indexed(),
        )
    )


@cache
def land_words_indexed(alias: str = "default") -> bool:
    """Whether the server holds the open tenders' (Land, words) index (migration 0022; needs btree_gin).

    Asked once per process: the index comes with a migration, which runs before the processes start.
    """
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT to_regclass('public.tender_active_land_search_gin') IS NOT NULL")
        return bool(cursor.fetchone()[0])


def _candidates_source(
    filters: TenderFilters, *, now: datetime, keywords: KeywordQuery
) -> tuple[QuerySet[Tender], datetime | None]:
    """A relevance list's matches, and since when it looks for its candidates first (``newest_candidates``;
    None: among all of them)."""
    since = now - RECENT_CANDIDATES_WINDOW if _recent_part_may_fill(filters) else None
    return _matching(filters, now=now, keywords=keywords, by_deadline=False), since


def _recent_part_may_fill(filters: TenderFilters) -> bool:
    """Whether a week's matches may hold a relevance list's candidates: not when a filter leaves few.

    A place (a Land is about a sixteenth of the tenders, a postcode or district far less), a portal, a value
    range or an exact CPV code cut a frequent word's week to a few hundred; the recent part would then be read
    for nothing before every match is (``frequent Bayern active``: 24.5 -> 33.5 ms at 1,000,000 tenders). A CPV
    division or a deadline range leave enough (``frequent cpv45 30 days``: 36 -> 20 ms).
    """
    narrowing = (
        filters.bundesland,
        filters.plz,
        filters.kreis,
        filters.umkreis_plz,
        filters.portal,
        filters.value_min is not None,
        filters.value_max is not None,
        any(len(code) == 8 for code in filters.cpv),
    )
    return not any(narrowing)


def newest_candidates(queryset: QuerySet[Tender], *, bound: int, since: datetime | None) -> QuerySet | RawSQL:
    """The ids of the newest ``bound`` tenders of ``queryset`` (published first, then id), as one subquery.

    With ``since``, they are looked for among those published since then first; only if fewer than ``bound``
    were, among all. The answer is the same either way: every tender left out of the recent part was published
    earlier (or never), so it sorts after all of them. PostgreSQL evaluates the recent part's count once, before
    either part, and never starts the part its count rules out (a one-time filter).
    """
    if since is None:
        return _newest(queryset, ("pk",))[:bound]
    return RawSQL(*_newest_sql(queryset, bound=bound, since=since, columns=("pk",)))  # noqa: S611


def best_ranked(
    queryset: QuerySet[Tender], *, bound: int, since: datetime | None, keywords: KeywordQuery, shown: int
) -> RawSQL:
    """The ids of the ``shown`` best ranked of the newest candidates, ranked as ``tender_search`` orders them.

    The candidates carry their search words and deadline out of the rows they were read from, so the ranking
    needs no second read of any row; the list's statement then fetches only these.
    """
    sql, params = _ranked_sql(queryset, bound=bound, since=since, keywords=keywords, shown=shown, counted=False)
    return RawSQL(sql, params)  # noqa: S611


@dataclass(frozen=True)
class RelevanceListed:
    """The first rows of a relevance list (``ids``, best first) and how many candidates it ranked (``candidates``:
    every match up to the bound, so a count that reaches the bound means "at least that many")."""

    ids: tuple[int, ...]
    candidates: int


def listed_order(ids: Sequence[int]) -> Func:
    """An ORDER BY expression that keeps tenders in the order of ``ids`` (their place in the list)."""
    return Func(
        Value(list(ids), output_field=ArrayField(BigIntegerField())),
        F("pk"),
        function="array_position",
        output_field=IntegerField(),
    )


def relevance_listed(
    *, filters: TenderFilters, now: datetime, keywords: KeywordQuery, candidates: int, shown: int
) -> RelevanceListed:
    """Run: the ids of a relevance list's first ``shown`` rows and the number of its candidates, in one statement.

    For a page that shows a count besides its rows: the candidates are read, counted and ranked where they are
    read (``best_ranked``), and only the rows shown are then fetched by their ids, in that order (the portal's
    ``notifications.portal.listed_rows``, or ``tender_search(listed=…)``). Ranking inside
    the list's own statement instead fetched every candidate's row a second time to rank and count it.
    """
    keywords = keywords.check_for(filters.q)
    queryset, since = _candidates_source(filters, now=now, keywords=keywords)
    sql, params = _ranked_sql(queryset, bound=candidates, since=since, keywords=keywords, shown=shown, counted=True)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return RelevanceListed(ids=tuple(pk for pk, _count in rows), candidates=rows[0][1] if rows else 0)


def _ranked_sql(
    queryset: QuerySet[Tender],
    *,
    bound: int,
    since: datetime | None,
    keywords: KeywordQuery,
    shown: int,
    counted: bool,
) -> tuple[str, tuple]:
    sql, params = _newest_sql(
        queryset, bound=bound, since=since, columns=("pk", "submission_deadline", "search_vector")
    )
    # The same rank, weights and order as the list's own (SearchRank over ``keywords.rank_search``, then the
    # deadline, then the newest id), so these are exactly its first ``shown`` rows. The count is over every
    # candidate: a window is computed before the LIMIT.
    count = ", count(*) OVER ()" if counted else ""
    ranked = (
        f"SELECT pk{count} FROM ({sql}) AS candidates "  # noqa: S608
        "ORDER BY ts_rank(%s::float4[], search_vector, %s::tsquery) DESC, submission_deadline ASC NULLS LAST, "
        "pk DESC LIMIT %s"
    )
    return ranked, (*params, RANK_WEIGHTS, keywords.rank_tsquery, shown)


def _newest(queryset: QuerySet[Tender], columns: tuple[str, ...]) -> QuerySet:
    return queryset.order_by(F("published_at").desc(nulls_last=True), "-id").values(*columns)


def _newest_sql(
    queryset: QuerySet[Tender], *, bound: int, since: datetime | None, columns: tuple[str, ...]
) -> tuple[str, tuple]:
    """SQL of the newest ``bound`` rows of ``queryset`` (``columns``), the recent part first (``newest_candidates``)."""
    every_sql, every_params = _newest(queryset, columns)[:bound].query.sql_with_params()
    if since is None:
        return every_sql, tuple(every_params)
    recent_sql, recent_params = (
        _newest(queryset, columns).filter(published_at__gte=since)[:bound].query.sql_with_params()
    )
    # The ORM's own SQL for both parts; every value stays a parameter.
    sql = (
        f"WITH recent AS MATERIALIZED ({recent_sql}) "  # noqa: S608
        "SELECT * FROM recent WHERE (SELECT count(*) FROM recent) >= %s "
        f"UNION ALL SELECT * FROM ({every_sql}) AS every_match WHERE (SELECT count(*) FROM recent) < %s"
    )
    return sql, (*recent_params, bound, *every_params, bound)


def tender_detail(*, tender_id: int) -> Tender:
    """One tender with its sources (oldest first) and every version; raises ``Tender.DoesNotExist``."""
    return tender_with_history().get(pk=tender_id)
