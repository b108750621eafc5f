"""Paging long tender lists without an unbounded ``COUNT(*)``: exact while small, estimated beyond.

A frequent search word matches tens of thousands of tenders; counting them exactly
means visiting every matching row (a quarter of a second on a million tenders), for
a number nobody pages to the end of. The operator console and the portal result list
page with ``EstimatedCountPaginator``; the partner API keeps exact counts.
"""

from __future__ import annotations

from functools import cached_property

from django.core.paginator import Paginator
from django.db import connection
from django.db.models import QuerySet


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
