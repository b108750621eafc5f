"""Matching a batch of new or changed tenders against every active saved search of this tenant.

Each saved search becomes the same ``Q`` the portal uses (``tenders.filter_query.filters_q``),
restricted to tenders first seen at or after the search's ``active_since`` (a new or
re-activated search never floods its owner with the backlog). All searches are then
evaluated in ONE statement over the batch: the batch's tender rows are read once by
primary key and every search is one ``CASE WHEN <its condition> THEN <its id> END``
element of an array computed per row; the non-null elements are unnested into
(search, tender) pairs and inserted with ``ON CONFLICT DO NOTHING`` (one match per pair,
whatever is re-run).

Cost: one pass over the batch rows inside PostgreSQL; nothing loops in Python over
searches × tenders and the tender table is never rescanned. A row only evaluates the
searches that can match it at all: those without a region filter, plus those naming its
Bundesland or its postcode's first digit (see ``matching_pairs_sql``). Within a condition
the keyword test (the expensive part) comes last, so PostgreSQL's left-to-right AND skips
it for rows the cheap filters already reject. Compiling a Q costs the ORM about a
millisecond, so compiled conditions are cached per stored filter set (process-wide,
bounded); deadline windows are expressed against the database clock, so no condition
depends on the Python clock of a run. ``bench/matching.py`` measures all of this.

Limit: a tenant with more than ``SEARCHES_PER_STATEMENT`` active searches gets one statement
per chunk, to keep statements a reasonable size.

Isolation: one search must never silence the others. Stored filters are re-checked when
loaded (``tenders.filters`` bounds: what PostgreSQL cannot hold never reaches SQL); a search
whose filters no longer parse is not evaluated and is marked failing with the reason. If a
chunk's statement still fails (each runs in its own savepoint), its searches are evaluated
one by one: every search that works gets its matches, each one that fails is marked failing
(``notifications.alerts.failing``). A search marked failing is evaluated alone in later
rounds until it works again, so it cannot break the shared statement twice. Connection
errors are not a search's fault and are raised for the task to retry.
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
from django.db import (
    DataError,
    IntegrityError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    connection,
    transaction,
)
from django.db.models import Q
from django.db.models.functions import Now
from psycopg import errors as pg_errors

from notifications.alerts.failing import saved_searches_clear_failing, saved_searches_mark_failing
from notifications.models import SavedSearch, TenderMatch
from tenders.filter_query import filters_q
from tenders.filters import FilterError, TenderFilters, effective_filters
from tenders.fulltext import keywords_version
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
    plz: str = ""  # the search names this postcode prefix: only tenders whose postcode starts so can match
    failing: bool = False  # marked failing in an earlier round: evaluated alone, outside the shared statement
    problem: str = ""  # the stored filters cannot be read: never evaluated, recorded as the reason


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


def _filters_sql(filters: TenderFilters) -> tuple[str, tuple]:
    # Deadline windows count from the database clock (STATEMENT_TIMESTAMP(), the moment the
    # matching statement runs) instead of a Python datetime, so the SQL of a filter set changes only
    # with the thesaurus and the title vocabulary (the keywords' synonyms, heads and goods are constants in
    # it) and is cached by both (``keywords_version``). The
    # keyword part is compiled separately and placed last; AND is commutative, so the result is
    # exactly filters_q(filters), evaluated cheapest first.
    now = Now()
    rest_sql, rest_params = _compile(filters_q(replace(filters, q=""), now=now))
    if not filters.q:
        return rest_sql, rest_params
    q_sql, q_params = _compile(filters_q(TenderFilters(q=filters.q), now=now))
    return f"({rest_sql}) AND ({q_sql})", rest_params + q_params


@lru_cache(maxsize=20_000)
def _compiled(filters_json: str, version: str) -> tuple[TenderFilters, str, tuple] | FilterError:
    """Parsed filters and their SQL, or the parse error, by the stored JSON and ``keywords_version``
    (process-wide, bounded): an operator's edit of the thesaurus or a refreshed title vocabulary reaches the
    next matching round.

    Alerts see open tenders only unless the search names statuses (``effective_filters``).
    """
    try:
        filters = effective_filters(TenderFilters.from_json(json.loads(filters_json)))
    except FilterError as exc:
        return exc
    return (filters, *_filters_sql(filters))


def _unreadable_reason(error: FilterError) -> str:
    details = "; ".join(f"{name}: {message}" for name, message in error.errors.items())
    return f"Die gespeicherten Filter sind ungültig ({details}). Bitte das Suchprofil bearbeiten und speichern."


def search_conditions(searches: Iterable[SavedSearch]) -> list[SearchCondition]:
    """Conditions of all given searches; one whose stored filters are broken carries the ``problem`` instead."""
    conditions = []
    version = keywords_version()
    for search in searches:
        failing = "failing_since" not in search.get_deferred_fields() and search.failing_since is not None
        compiled = _compiled(json.dumps(search.filters, sort_keys=True, default=str), version)
        if isinstance(compiled, FilterError):
            conditions.append(
                SearchCondition(
                    saved_search_id=search.pk,
                    active_since=search.active_since,
                    sql="FALSE",
                    params=(),
                    failing=failing,
                    problem=_unreadable_reason(compiled),
                )
            )
            continue
        filters, sql, params = compiled
        conditions.append(
            SearchCondition(
                saved_search_id=search.pk,
                active_since=search.active_since,
                sql=sql,
                params=params,
                bundeslaender=filters.bundesland,
                plz=filters.plz,
                failing=failing,
            )
        )
    return conditions


def _hits_array(conditions: Sequence[SearchCondition], params: list) -> str:
    elements = []
    for condition in conditions:
        elements.append(f'CASE WHEN "{_TENDER}"."first_seen_at" >= %s AND ({condition.sql}) THEN %s::bigint END')
        params.extend((condition.active_since, *condition.params, condition.saved_search_id))
    return f"ARRAY[{', '.join(elements)}]::bigint[]"


def _buckets(conditions: Sequence[SearchCondition]):
    """Searches that can only match tenders with certain column values, grouped by that value."""
    anywhere: list[SearchCondition] = []
    by_land: dict[str, list[SearchCondition]] = {}
    by_plz_digit: dict[str, list[SearchCondition]] = {}
    for condition in conditions:
        if condition.bundeslaender:
            for land in condition.bundeslaender:
                by_land.setdefault(land, []).append(condition)
        elif condition.plz:
            by_plz_digit.setdefault(condition.plz[0], []).append(condition)
        else:
            anywhere.append(condition)
    return anywhere, [
        (f'"{_TENDER}"."bundesland"', by_land),
        (f'left("{_TENDER}"."postal_code", 1)', by_plz_digit),
    ]


def matching_pairs_sql(conditions: Sequence[SearchCondition], tender_ids: Sequence[int]) -> tuple[str, list]:
    """The single statement selecting every (saved_search_id, tender_id) pair of the batch.

    Pruning: a row evaluates the conditions of searches without a region filter, plus only
    those of searches naming the row's Bundesland or the first digit of its postcode (a CASE
    on the column picks the list). Every listed condition is still complete, so the pruning
    can only save work, never change a result.
    """
    params: list = []
    anywhere, bucketed = _buckets(conditions)
    hits = _hits_array(anywhere, params)
    for column, groups in bucketed:
        if not groups:
            continue
        branches = []
        for value, group in sorted(groups.items()):
            params.append(value)
            branches.append(f"WHEN %s THEN {_hits_array(group, params)}")
        hits += f" || CASE {column} {' '.join(branches)} ELSE ARRAY[]::bigint[] END"
    params.append(sorted({int(i) for i in tender_ids}))
    sql = (
        f'SELECT p.saved_search_id, b.id AS tender_id FROM (SELECT "{_TENDER}"."id" AS id, {hits} AS hits '
        f'FROM "{_TENDER}" WHERE "{_TENDER}"."id" = ANY(%s::bigint[])) b '
        "CROSS JOIN LATERAL unnest(b.hits) AS p(saved_search_id) WHERE p.saved_search_id IS NOT NULL"
    )
    return sql, params


# What one search's condition can make a statement fail with. Connection trouble (OperationalError,
# InterfaceError) is not among them, except a statement cancelled by its time limit.
_SEARCH_ERRORS = (DataError, IntegrityError, InternalError, NotSupportedError, ProgrammingError, ValueError)


def _search_fault(exc: Exception) -> bool:
    if isinstance(exc, OperationalError):
        return isinstance(exc.__cause__, pg_errors.QueryCanceled)
    return isinstance(exc, _SEARCH_ERRORS)


def _failure_reason(exc: Exception) -> str:
    detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return f"Die Datenbank konnte das Suchprofil nicht auswerten ({detail}). Bitte die Filter prüfen und speichern."


def _insert_pairs(conditions: Sequence[SearchCondition], tender_ids: Sequence[int], now: datetime) -> list[NewMatch]:
    pairs, params = matching_pairs_sql(conditions, tender_ids)
    with transaction.atomic(), connection.cursor() as cursor:  # a savepoint: a failure undoes only this statement
        cursor.execute(
            f"INSERT INTO {TenderMatch._meta.db_table} (saved_search_id, tender_id, matched_at, notified_via) "
            f"SELECT m.saved_search_id, m.tender_id, %s, '' FROM ({pairs}) m "
            "ON CONFLICT (saved_search_id, tender_id) DO NOTHING "
            "RETURNING id, saved_search_id, tender_id",
            [now, *params],
        )
        return [NewMatch(*row) for row in cursor.fetchall()]


def _insert_alone(
    conditions: Sequence[SearchCondition], tender_ids: Sequence[int], now: datetime, failures: dict[int, str]
) -> list[NewMatch]:
    """Each search in its own statement; the ones that fail go to ``failures``, the others match."""
    created: list[NewMatch] = []
    for condition in conditions:
        try:
            created.extend(_insert_pairs([condition], tender_ids, now))
        except Exception as exc:
            if not _search_fault(exc):
                raise
            failures[condition.saved_search_id] = _failure_reason(exc)
    return created


def matches_insert(
    *, conditions: Sequence[SearchCondition], tender_ids: Sequence[int], now: datetime
) -> list[NewMatch]:
    """Insert the batch's matches; return only rows that are new (existing pairs are left alone).

    Searches that cannot be evaluated are marked failing and every other search still matches
    (see "Isolation" above); searches that were failing and worked this time lose their mark.
    """
    if not conditions or not tender_ids:
        return []
    failures = {c.saved_search_id: c.problem for c in conditions if c.problem}
    shared = [c for c in conditions if not c.problem and not c.failing]
    alone = [c for c in conditions if not c.problem and c.failing]
    created: list[NewMatch] = []
    with transaction.atomic():
        with connection.cursor() as cursor:
            # The statement is wide (one CASE per search) but each run is short: JIT compilation
            # would cost more than it saves, on every batch.
            cursor.execute("SET LOCAL jit = off")
        for start in range(0, len(shared), SEARCHES_PER_STATEMENT):
            chunk = shared[start : start + SEARCHES_PER_STATEMENT]
            try:
                created.extend(_insert_pairs(chunk, tender_ids, now))
            except Exception as exc:
                if not _search_fault(exc):
                    raise
                logger.warning(
                    "tenant %s: matching statement of %d searches failed (%s); evaluating them one by one",
                    connection.schema_name,
                    len(chunk),
                    exc,
                )
                created.extend(_insert_alone(chunk, tender_ids, now, failures))
        created.extend(_insert_alone(alone, tender_ids, now, failures))
        saved_searches_mark_failing(reasons=failures, now=now)
        recovered = [c.saved_search_id for c in alone if c.saved_search_id not in failures]
        saved_searches_clear_failing(saved_search_ids=recovered)
    return created


def active_searches() -> list[SavedSearch]:
    return list(
        SavedSearch.objects.filter(is_active=True).only("id", "filters", "active_since", "failing_since").order_by("id")
    )
