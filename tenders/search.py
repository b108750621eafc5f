"""Searching tenders: the result list the portal, the exports and the partner API show.

Which tenders match is decided by ``tenders.filter_query.filters_q`` alone (the same
rules saved searches match with); this module only adds what a result list
needs on top: relevance ranking over the stored German ``search_vector`` and
the sort orders users can choose.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.postgres.search import SearchRank
from django.db.models import F, QuerySet

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
# ts_rank's weights for D, C, B, A (SEARCH_VECTOR_EXPRESSION): a title word counts 2.5 times a buyer's or
# a title part's, 10 times a description's, 20 times a CPV label's (PostgreSQL's default: 0.1, 0.2, 0.4,
# 1.0). A label names the code's whole class ("… Druck und Sicherheit" for consulting), a description
# mentions much besides the work, so a hit there ranks below a tender whose title states the word.
RANK_WEIGHTS = [0.05, 0.1, 0.4, 1.0]


def order_or_default(raw: str | None) -> str:
    """The sort order named in a URL, or the default for anything unknown (never an error: it is cosmetic)."""
    return raw if raw in ORDERS else DEFAULT_ORDER


def tender_search(
    *,
    filters: TenderFilters,
    order: str,
    now: datetime,
    keywords: KeywordQuery | None = None,
    candidates: int | None = None,
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
    the list count itself).
    """
    keywords = keywords.check_for(filters.q) if keywords is not None else keyword_query_build(q=filters.q)
    # One meaning everywhere: no status named = open tenders only, as in saved searches (effective_filters).
    order = order_or_default(order)
    by_deadline = order == "deadline"
    queryset = Tender.objects.filter(
        filters_q(effective_filters(filters), now=now, keywords=keywords, by_deadline=by_deadline)
    )
    if order == "relevance" and filters.q:
        bound = candidates or RANK_CANDIDATES
        newest = queryset.order_by(F("published_at").desc(nulls_last=True), "-id").values("pk")[:bound]
        # The candidates carry every filter; the outer statement only ranks them. Repeating the filters there
        # made PostgreSQL run the word and Land bitmaps a second time for the semi-join (165 -> 80 ms at 1M).
        return (
            Tender.objects.filter(pk__in=newest)
            .annotate(rank=SearchRank(F("search_vector"), keywords.rank_search, weights=RANK_WEIGHTS))
            .order_by("-rank", F("submission_deadline").asc(nulls_last=True), "-id")
        )
    if order == "deadline":
        return OpenDeadlinesFirst.of(queryset, now=now)
    return queryset.order_by(F("published_at").desc(nulls_last=True), "-id")


def tender_detail(*, tender_id: int) -> Tender:
    """One tender with its sources (oldest first) and every version; raises ``Tender.DoesNotExist``."""
    return tender_with_history().get(pk=tender_id)
