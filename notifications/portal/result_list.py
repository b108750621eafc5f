"""The result list's page of one search (Trefferliste): its rows, its bounded count and how it pages.

A relevance list reads, counts and ranks its candidates in one statement (``tenders.search.relevance_listed``)
and its page's statement fetches only the page's own rows, by a statement compiled once per process
(``notifications.portal.listed_rows``); with a triage filter the list holds every
candidate, narrowed to the user's verdicts, and counts them itself. Newest-first and deadline lists count in the
page's own statement and page by keyset (``tenders.keyset``).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial

from django.contrib.auth.models import AbstractBaseUser

from notifications.portal.forms import ParsedSearch
from notifications.portal.listed_rows import listed_rows
from notifications.portal.selectors import RESULT_FIELDS, portal_tender_hits, portal_tender_search, result_rows
from tenders.fulltext import KeywordQuery
from tenders.pagination import BoundedCountPaginator, BoundedPage, keyset_for
from tenders.search import ranks, relevance_listed


def result_page(
    *, user: AbstractBaseUser, parsed: ParsedSearch, keywords: KeywordQuery, now: datetime, params, per_page: int
) -> BoundedPage:
    """The page of ``parsed``'s results that the URL ``params`` ask for, as ``user`` sees them (their triage)."""
    search_args = {"user": user, "filters": parsed.filters, "triage": parsed.triage, "now": now, "keywords": keywords}
    ranked = ranks(order=parsed.order, q=parsed.filters.q)
    # One candidate more than the count's bound: "mehr als 1.000" is known without counting further.
    candidates = BoundedCountPaginator.exact_up_to + 1
    hits = partial(portal_tender_hits, **search_args)  # built only where the page counts apart
    if ranked and not parsed.triage:
        listed = relevance_listed(
            filters=parsed.filters,
            now=now,
            keywords=keywords,
            candidates=candidates,
            shown=BoundedCountPaginator.rows_read(params, per_page=per_page),
        )
        paginator = BoundedCountPaginator(listed.ids, per_page, count_basis=hits, counted=listed.candidates)
        # The page's rows by the statement compiled once per process (notifications.portal.listed_rows).
        return paginator.get_listed_page(params.get("page"), ids=listed.ids, rows_of=partial(listed_rows, user=user))
    queryset = portal_tender_search(**search_args, order=parsed.order, candidates=candidates)
    paginator = BoundedCountPaginator(
        result_rows(queryset.only(*RESULT_FIELDS)), per_page, count_basis=hits, count_listed=ranked
    )
    if ranked:
        return paginator.page_for(params)
    rows = result_rows(portal_tender_search(**search_args, order="published").only(*RESULT_FIELDS))
    return paginator.page_for(params, keyset=keyset_for(order=parsed.order, q=parsed.filters.q, rows=rows, now=now))
