"""Paging long tender lists without an unbounded ``COUNT(*)``: exact while small, estimated beyond.

A frequent search word matches tens of thousands of tenders; counting them exactly
means visiting every matching row (a quarter of a second on a million tenders), for
a number nobody pages to the end of. The operator console and the portal result list
page with ``EstimatedCountPaginator``; the partner API keeps exact counts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count, QuerySet, Value, Window
from django.db.models.expressions import RawSQL

from tenders.keyset import AFTER, BEFORE, DeadlineFirst, NewestFirst, keyset_for

# The URL parameters that choose a result page; ``keyset_for`` (re-exported) says how a list pages.
PAGE_PARAMETERS = ("page", AFTER, BEFORE)
__all__ = ["PAGE_PARAMETERS", "BoundedCountPaginator", "BoundedPage", "EstimatedCountPaginator", "keyset_for"]


class EstimatedCountPaginator(Paginator):
    """Counts exactly up to ``exact_up_to`` rows, estimates beyond (``is_estimate`` tells which).

    The exact part is ``COUNT(*)`` over ``LIMIT exact_up_to + 1`` rows, so it never
    costs more than reading that many. Beyond, the planner's estimate is used:
    ``pg_class.reltuples`` for the whole table, the row estimate of ``EXPLAIN``
    for a filtered list (never less than what was counted). Page numbers near the end
    are then approximate, and a page past the real end is empty; people narrow a big
    list with filters and search, not by paging to its end.
    """

    exact_up_to = 10_000

    def __init__(self, object_list, per_page, *args, count_basis: QuerySet | None = None, **kwargs):
        # ``count_basis``: the same matches without a bound on the rows shown (a relevance list ranks only
        # its newest candidates, but "how many match" is about all of them).
        super().__init__(object_list, per_page, *args, **kwargs)
        self.count_basis = count_basis

    @cached_property
    def count(self) -> int:
        queryset = self.object_list if self.count_basis is None else self.count_basis
        if not isinstance(queryset, QuerySet):
            return super().count
        unordered = queryset.order_by()
        bounded = unordered[: self.exact_up_to + 1].count()
        if bounded <= self.exact_up_to:
            return bounded
        return max(self._estimate(unordered), self.exact_up_to + 1)

    @property
    def is_estimate(self) -> bool:
        """The count is the planner's estimate (``count`` > ``exact_up_to``)."""
        counted = self.object_list if self.count_basis is None else self.count_basis
        return isinstance(counted, QuerySet) and self.count > self.exact_up_to

    @property
    def is_lower_bound(self) -> bool:
        """The planner guessed fewer rows than were counted: all that is known is "more than exact_up_to"."""
        return self.is_estimate and self.count == self.exact_up_to + 1

    @staticmethod
    def _estimate(queryset: QuerySet) -> int:
        with connection.cursor() as cursor:
            if not queryset.query.where.children:
                table = queryset.model._meta.db_table
                cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass(%s)", [table])
                row = cursor.fetchone()
                if row and row[0] > 0:  # -1 or 0: never analysed, ask the planner instead
                    return int(row[0])
            sql, params = queryset.query.sql_with_params()
            cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
            plan = cursor.fetchone()[0]
        plan = plan[0] if isinstance(plan, list) else plan
        return int(plan["Plan"]["Plan Rows"])


class BoundedCountPaginator:
    """A result list's page whose count rides in the page's own statement: exact up to ``exact_up_to``,
    "more than ``exact_up_to``" beyond (``is_lower_bound``), never estimated.

    The rows are read with a scalar subquery ``count(*)`` over at most ``exact_up_to + 1`` rows of
    ``count_basis`` (the same matches without the columns only a shown row needs, such as the user's
    triage; or a function that builds them, called only when needed), so the count costs no statement of
    its own and never more than reading that many index entries; one row more than a page is read to know
    whether there is a next page. Only a page past the end (no rows) counts apart, to show the last page
    instead. Pages are numbered; the quacks of Django's ``Paginator`` and ``Page`` that the result
    templates use are kept.
    """

    exact_up_to = 1000
    # 10,000 rows: a deeper page is the CSV export's job, since OFFSET reads every row before it.
    max_pages = 400
    is_estimate = False

    def __init__(
        self,
        object_list,
        per_page: int,
        *,
        count_basis: QuerySet | Callable[[], QuerySet],
        count_listed: bool = False,
        counted: int | None = None,
    ):
        self.object_list = object_list
        self.per_page = per_page
        # A callable is built only when something is counted apart (a numbered list's count, a page past the
        # end): a relevance list arrives counted, and building the basis there cost half a millisecond per page.
        self._count_basis = count_basis
        # ``count_listed``: the list itself holds at most ``exact_up_to + 1`` rows (a relevance list of that
        # many candidates), so a window over its rows counts it: the matches are read once, not twice.
        self.count_listed = count_listed
        # ``counted``: the count is known already, read with the list's candidates (``tenders.search.
        # relevance_listed``, up to ``exact_up_to + 1``); the list then holds only the rows up to the page's end.
        self.counted = counted
        self._count: int | None = None

    @cached_property
    def count_basis(self) -> QuerySet:
        basis = self._count_basis if isinstance(self._count_basis, QuerySet) else self._count_basis()
        return basis.order_by()

    @classmethod
    def rows_read(cls, params, *, per_page: int) -> int:
        """How many of a numbered list's first rows the page its URL ``params`` ask for reads: up to the page's
        end, and one more to know whether a next page follows."""
        return _page_number(params.get("page"), cls.max_pages) * per_page + 1

    def _bounded(self) -> QuerySet:
        return self.count_basis.values("pk")[: self.exact_up_to + 1]

    def count_expression(self) -> RawSQL | Window | Value:
        if self.counted is not None:
            return Value(self.counted)
        if self.count_listed:
            return Window(expression=Count("*"))
        sql, params = self._bounded().query.sql_with_params()
        # The ORM's own SQL for the basis; every value stays a parameter.
        return RawSQL(f"SELECT count(*) FROM ({sql}) AS bounded", params)  # noqa: S608, S611

    @property
    def count(self) -> int:
        if self._count is None:
            self._count = self.counted if self.counted is not None else self._bounded().count()
        return self._count

    @property
    def is_lower_bound(self) -> bool:
        return self.count > self.exact_up_to

    @property
    def num_pages(self) -> int:
        return max(1, -(-min(self.count, self.exact_up_to + 1) // self.per_page))

    def page_for(self, params, *, keyset: NewestFirst | DeadlineFirst | None = None) -> BoundedPage:
        """The page a result list's URL ``params`` ask for: by keyset where the list has one
        (``tenders.keyset.keyset_for``), else by number."""
        if keyset is None:
            return self.get_page(params.get("page"))
        after, before = (keyset.decode(params.get(name)) for name in (AFTER, BEFORE))
        return self.get_keyset_page(params.get("page"), keyset=keyset, after=after, before=before)

    def get_keyset_page(self, number, *, keyset, after=None, before=None) -> BoundedPage:
        """A page continuing after (``weiter``) or before (``zurück``) a row shown (``tenders.keyset``): one
        page read from the index wherever it lies, so no page limit. ``number`` only names the page. Without
        a cursor, or with one past either end, a numbered page."""
        if after is None and before is None:
            return self.get_page(number, keyset=keyset)
        window = keyset.after(after) if after else keyset.before(before)
        rows = list(window.annotate(bounded_hits=self.count_expression())[: self.per_page + 1])
        more = len(rows) > self.per_page
        rows = rows[: self.per_page]
        if not rows:
            return self.get_page(1, keyset=keyset)
        if before:
            rows.reverse()
        self._count = rows[0].bounded_hits
        number = _page_number(number, 10**6)
        if before and not more:
            number = 1  # nothing precedes: this is the first page, whatever the link said
        return BoundedPage(
            rows,
            max(number, 2) if after else number,
            self,
            has_next=more if after else True,
            cursor_of=lambda row: keyset.encode(row, after or before),
        )

    def get_page(self, number, *, clamped: bool = False, keyset=None) -> BoundedPage:
        number = _page_number(number, self.max_pages)
        start = (number - 1) * self.per_page
        rows = list(self.object_list.annotate(bounded_hits=self.count_expression())[start : start + self.per_page + 1])
        if rows:
            self._count = rows[0].bounded_hits
        elif number == 1:
            self._count = 0
        elif not clamped:
            # Past the end: the last page, as Django's get_page does. The rows before this page are counted,
            # at most ``max_pages`` pages of them (a relevance list ends after its candidates).
            reached = (
                min(start, self.counted) if self.counted is not None else self.count_basis.values("pk")[:start].count()
            )
            self._count = min(reached, self.exact_up_to + 1)
            if reached:
                return self.get_page(-(-reached // self.per_page), clamped=True, keyset=keyset)
        has_next = len(rows) > self.per_page and (keyset is not None or number < self.max_pages)
        cursor_of = None if keyset is None else (lambda row: keyset.encode(row, None))
        return BoundedPage(rows[: self.per_page], number, self, has_next=has_next, cursor_of=cursor_of)

    def get_listed_page(self, number, *, ids: Sequence[int], rows_of: Callable[..., list]) -> BoundedPage:
        """A page of a list counted already (``counted``) whose ids are known in order, from its start to at least
        one row past the page asked for (a relevance list's, ``tenders.search.relevance_listed``): only the page's
        own rows are read, by ``rows_of(ids=…)``. Numbered, clamped and past the end as ``get_page``."""
        number = _page_number(number, self.max_pages)
        start = (number - 1) * self.per_page
        window = ids[start : start + self.per_page + 1]
        self._count = self.counted or 0
        if not window and number > 1:
            # Past the end: the last page. The ids hold every candidate when they end before the page asked for.
            reached = min(start, self._count, len(ids))
            if reached:
                return self.get_listed_page(-(-reached // self.per_page), ids=ids, rows_of=rows_of)
        has_next = len(window) > self.per_page and number < self.max_pages
        return BoundedPage(rows_of(ids=window[: self.per_page]), number, self, has_next=has_next)


def _page_number(raw, highest: int) -> int:
    try:
        return min(max(1, int(raw)), highest)
    except (TypeError, ValueError):
        return 1


class BoundedPage:
    """A page; with ``cursor_of`` (a keyset list) its links continue from its last and first row."""

    def __init__(
        self, object_list: list, number: int, paginator: BoundedCountPaginator, *, has_next: bool, cursor_of=None
    ):
        self.object_list = object_list
        self.number = number
        self.paginator = paginator
        self._has_next = has_next
        self.cursor_of = cursor_of

    def has_next(self) -> bool:
        return self._has_next

    def has_previous(self) -> bool:
        return self.number > 1

    def next_page_number(self) -> int:
        return self.number + 1

    def previous_page_number(self) -> int:
        return self.number - 1

    def next_params(self) -> list[tuple[str, str]]:
        """URL parameters of the next page ("weiter")."""
        params = [("page", str(self.number + 1))]
        return params + ([(AFTER, self.cursor_of(self.object_list[-1]))] if self.cursor_of else [])

    def previous_params(self) -> list[tuple[str, str]]:
        """URL parameters of the previous page ("zurück")."""
        params = [("page", str(self.number - 1))] if self.number > 2 or not self.cursor_of else []
        return params + ([(BEFORE, self.cursor_of(self.object_list[0]))] if self.cursor_of else [])

    @property
    def next_query(self) -> str:
        return urlencode(self.next_params())

    @property
    def previous_query(self) -> str:
        return urlencode(self.previous_params())

    def __len__(self) -> int:
        return len(self.object_list)
