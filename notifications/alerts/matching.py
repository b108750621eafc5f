"""Matching a batch of new or changed tenders against every active saved search of this tenant.

Each saved search becomes the same ``Q`` the portal uses (``tenders.filters.filters_q``),
restricted to tenders first seen at or after the search's ``active_since`` (a new or
re-activated search never floods its owner with the backlog). All searches are then
evaluated in ONE statement over the batch: the batch's tender rows are read once by
primary key and every search is one ``CASE WHEN <its condition> THEN <its id> END``
element of an array computed per row; the non-null elements are unnested into
(search, tender) pairs and inserted with ``ON CONFLICT DO NOTHING`` (one match per pair,
whatever is re-run).

Cost: one pass over the batch rows with one condition per search and row, inside
PostgreSQL; nothing loops in Python over searches × tenders and the tender table is never
rescanned. Within a condition the keyword test (the expensive part) comes last, so
PostgreSQL's left-to-right AND skips it for rows the cheap filters already reject.
Compiling a Q costs the ORM about a millisecond, so compiled conditions are cached per
filter set (process-wide, bounded); only filters that depend on the clock (deadline
windows) are compiled per run.

Limit: PostgreSQL allows 100 arguments per function but arrays are unbounded; a tenant
with more than ``SEARCHES_PER_STATEMENT`` active searches gets one statement per chunk to
keep statements a reasonable size.
"""

# ruff: noqa: S608  (identifiers are our own table names; every value is a query parameter)

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connection
from django.db.models import Q

from notifications.models import SavedSearch, TenderMatch
from tenders.filters import FilterError, TenderFilters, filters_q
from tenders.models import Tender

logger = logging.getLogger(__name__)

SEARCHES_PER_STATEMENT = 500
_TENDER = Tender._meta.db_table


@dataclass(frozen=True)
class NewMatch:
    id: int
    saved_search_id: int
    tender_id: int


@dataclass(frozen=True)
class SearchCondition:
    """One saved search as SQL over the tender table: ``first_seen_at >= active_since AND (sql)``."""

    saved_search_id: int
    active_since: datetime
    sql: str
    params: tuple
    bundeslaender: tuple[str, ...] = ()  # the search names these Länder: only their tenders can match


def _compile(condition: Q) -> tuple[str, tuple]:
    """SQL of a Q over the tender table alone (joins are refused: the statement reads one table)."""
    query = Tender.objects.all().query
    where = condition.resolve_expression(query, allow_joins=False)
    try:
        sql, params = query.get_compiler(connection=connection).compile(where)
    except FullResultSet:
        return "TRUE", ()
    except EmptyResultSet:
        return "FALSE", ()
    return sql or "TRUE", tuple(params)


def _filters_sql(filters: TenderFilters, now: datetime | None) -> tuple[str, tuple]:
    # The keyword part is compiled separately and placed last; AND is commutative, so the
    # result is exactly filters_q(filters), evaluated cheapest first.
    rest_sql, rest_params = _compile(filters_q(replace(filters, q=""), now=now))
    if not filters.q:
        return rest_sql, rest_params
    q_sql, q_params = _compile(filters_q(TenderFilters(q=filters.q), now=now))
    return f"({rest_sql}) AND ({q_sql})", rest_params + q_params


@lru_cache(maxsize=20_000)
def _cached_filters_sql(filters_json: str) -> tuple[str, tuple]:
    return _filters_sql(TenderFilters.from_json(json.loads(filters_json)), now=None)


def filters_sql(filters: TenderFilters, *, now: datetime) -> tuple[str, tuple]:
    """SQL of parsed saved-search filters (cached unless they depend on the clock)."""
    if filters.deadline_days is not None or filters.deadline_until is not None:
        return _filters_sql(filters, now=now)  # windows relative to now: never cached
    return _cached_filters_sql(json.dumps(filters.to_json(), sort_keys=True))


def search_conditions(searches: Iterable[SavedSearch], *, now: datetime) -> list[SearchCondition]:
    """Conditions of all given searches; a search whose stored filters are broken is skipped and logged."""
    conditions = []
    for search in searches:
        try:
            parsed = TenderFilters.from_json(search.filters)
        except FilterError as exc:
            logger.warning("saved search %s skipped in matching: %s", search.pk, exc)
            continue
        sql, params = filters_sql(parsed, now=now)
        conditions.append(
            SearchCondition(
                saved_search_id=search.pk,
                active_since=search.active_since,
                sql=sql,
                params=params,
                bundeslaender=parsed.bundesland,
            )
        )
    return conditions


def _hits_array(conditions: Sequence[SearchCondition], params: list) -> str:
    elements = []
    for condition in conditions:
        elements.append(f'CASE WHEN "{_TENDER}"."first_seen_at" >= %s AND ({condition.sql}) THEN %s::bigint END')
        params.extend((condition.active_since, *condition.params, condition.saved_search_id))
    return f"ARRAY[{', '.join(elements)}]::bigint[]"


def matching_pairs_sql(conditions: Sequence[SearchCondition], tender_ids: Sequence[int]) -> tuple[str, list]:
    """The single statement selecting every (saved_search_id, tender_id) pair of the batch.

    Pruning: a row evaluates the conditions of searches without a Bundesland filter plus only
    those of searches naming the row's Bundesland (a CASE on the column picks the list). Every
    listed condition is still complete, so the pruning can only save work, never change a result.
    """
    params: list = []
    anywhere = [c for c in conditions if not c.bundeslaender]
    by_land: dict[str, list[SearchCondition]] = {}
    for condition in conditions:
        for land in condition.bundeslaender:
            by_land.setdefault(land, []).append(condition)
    hits = _hits_array(anywhere, params)
    if by_land:
        branches = []
        for land, land_conditions in sorted(by_land.items()):
            params.append(land)
            branches.append(f"WHEN %s THEN {_hits_array(land_conditions, params)}")
        hits += f' || CASE "{_TENDER}"."bundesland" {" ".join(branches)} ELSE ARRAY[]::bigint[] END'
    params.append(sorted({int(i) for i in tender_ids}))
    sql = (
        f'SELECT p.saved_search_id, b.id AS tender_id FROM (SELECT "{_TENDER}"."id" AS id, {hits} AS hits '
        f'FROM "{_TENDER}" WHERE "{_TENDER}"."id" = ANY(%s::bigint[])) b '
        "CROSS JOIN LATERAL unnest(b.hits) AS p(saved_search_id) WHERE p.saved_search_id IS NOT NULL"
    )
    return sql, params


def matches_insert(
    *, conditions: Sequence[SearchCondition], tender_ids: Sequence[int], now: datetime
) -> list[NewMatch]:
    """Insert the batch's matches; return only rows that are new (existing pairs are left alone)."""
    if not conditions or not tender_ids:
        return []
    created: list[NewMatch] = []
    for start in range(0, len(conditions), SEARCHES_PER_STATEMENT):
        pairs, params = matching_pairs_sql(conditions[start : start + SEARCHES_PER_STATEMENT], tender_ids)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {TenderMatch._meta.db_table} (saved_search_id, tender_id, matched_at, notified_via) "
                f"SELECT m.saved_search_id, m.tender_id, %s, '' FROM ({pairs}) m "
                "ON CONFLICT (saved_search_id, tender_id) DO NOTHING "
                "RETURNING id, saved_search_id, tender_id",
                [now, *params],
            )
            created.extend(NewMatch(*row) for row in cursor.fetchall())
    return created


def active_searches() -> list[SavedSearch]:
    return list(SavedSearch.objects.filter(is_active=True).only("id", "filters", "active_since").order_by("id"))
