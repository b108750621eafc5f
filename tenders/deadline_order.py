"""Sort order "Frist (nächste zuerst)": open deadlines nearest first, then expired ones latest first, then none.

Sorting by "is it still open?" first cannot come from an index: the answer depends on
the moment of the query, and ``ORDER BY submission_deadline < now, ...`` makes PostgreSQL
read and sort every match (all million tenders for an empty search). The list is
therefore read as three parts, each one walking the deadline (or publication) index in
its own direction with a bound on the deadline:

1. ``submission_deadline >= now``, ascending — the tenders one can still bid for;
2. ``submission_deadline < now``, descending — just expired first, the oldest last;
3. no deadline, newest publication first.

``OpenDeadlinesFirst`` reads them one after the other, so a page costs what a page of
one index scan costs.

PostgreSQL underestimates how many tenders match several related words (it multiplies their
shares), and then prefers intersecting a bitmap of every open deadline (~150,000 on a million
tenders) with the full-text index over walking the deadline index; that bitmap goes lossy and
the page costs 200 ms where the first 50 matches lie within a thousand rows. The two dated
parts are therefore each read as a *near* range — up to the deadline of the ``NEAR_ROWS``-th
tender from now in that direction, found by a short walk of the deadline index without other
filters — and the *far* rest, which is only read when the near range does not fill the window.
The near range is narrow, so every plan for it is cheap; the split changes no order: the
ranges are disjoint (the boundary deadline belongs to one side) and follow each other in the
part's order. It answers what the result list, the CSV export and the API ask
of a QuerySet: filtering, annotating and choosing columns (applied to every part),
slicing, iterating, ``iterator()``, ``count()`` and ``exists()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from django.db.models import F, QuerySet
from django.db.models.lookups import GreaterThanOrEqual, LessThan

from tenders.filter_query import unindexed

# How many tenders (of all, unfiltered) the near range of a dated part spans. Dense matches fill a page
# from it; a few thousand index entries are read in a few milliseconds whatever plan is chosen.
NEAR_ROWS = 2000


class NearFirst:
    """One dated part, read as its near range and then the far rest (see the module docstring).

    ``ascending`` is the part's direction: open deadlines ascend from ``now``, expired ones descend.
    The boundary is looked up once, when the part is first read; counting needs no boundary.
    """

    def __init__(self, base: QuerySet, *, now: datetime, ascending: bool):
        # ``base`` holds every filter but the part's own bound (``>= now`` / ``< now``): the far range's edge
        # implies that bound, and stated twice PostgreSQL multiplies the two shares (0.15 × 0.15 of the table
        # instead of 0.15), then intersects 150,000 open deadlines with the full-text index for a medium word.
        self.base = base
        self.now = now
        self.ascending = ascending
        self._split: tuple[QuerySet, ...] | None = None

    @property
    def queryset(self) -> QuerySet:
        """The whole part: the base within the part's own bound."""
        if self.ascending:
            return self.base.filter(submission_deadline__gte=self.now)
        return self.base.filter(submission_deadline__lt=self.now)

    def chain(self, method: str, *args, **kwargs) -> NearFirst:
        return NearFirst(getattr(self.base, method)(*args, **kwargs), now=self.now, ascending=self.ascending)

    def boundary_query(self) -> QuerySet:
        """The ``NEAR_ROWS``-th deadline from now in this direction, over all tenders (a short index walk)."""
        tenders = self.queryset.model._default_manager
        if self.ascending:
            walk = tenders.filter(submission_deadline__gte=self.now).order_by("submission_deadline")
        else:
            walk = tenders.filter(submission_deadline__lt=self.now).order_by("-submission_deadline")
        return walk.values_list("submission_deadline", flat=True)[NEAR_ROWS : NEAR_ROWS + 1]

    def boundary(self) -> datetime | None:
        """None when fewer than ``NEAR_ROWS`` tenders lie in this direction: the part is read whole."""
        return next(iter(self.boundary_query()), None)

    def querysets(self) -> tuple[QuerySet, ...]:
        # The far range's bound is checked on the rows the other filters' indexes find (``unindexed``): read
        # only when the near range left the page short, the matches are sparse near now. As a plain column bound
        # PostgreSQL took its share from the whole table while the matches are open tenders (nearly all beyond
        # the edge) and intersected ~150,000 open deadlines with a word's 750 entries: 50-130 ms instead of 2 ms
        # at a million tenders. The deadline index still gives the order where a plan walks it.
        if self._split is None:
            edge = self.boundary()
            if edge is None:
                self._split = (self.queryset,)
            elif self.ascending:  # [now, edge) then [edge, ∞): ties at the edge are all in the far range
                self._split = (
                    self.queryset.filter(submission_deadline__lt=edge),
                    self.base.filter(GreaterThanOrEqual(unindexed("submission_deadline"), edge)),  # edge >= now
                )
            else:  # [edge, now) then (-∞, edge), both descending: ties at the edge are all in the near range
                self._split = (
                    self.queryset.filter(submission_deadline__gte=edge),
                    self.base.filter(LessThan(unindexed("submission_deadline"), edge)),  # edge < now
                )
        return self._split

    def count(self) -> int:
        return self.queryset.count()

    def exists(self) -> bool:
        return self.queryset.exists()


def deadline_parts(queryset: QuerySet, *, now: datetime) -> tuple[NearFirst, NearFirst, QuerySet]:
    """The three index-ordered parts of ``queryset`` (see the module docstring)."""
    return (
        NearFirst(queryset.order_by("submission_deadline", "id"), now=now, ascending=True),
        # DESC without NULLS LAST: the deadline index read backwards yields exactly that order.
        NearFirst(queryset.order_by("-submission_deadline", "-id"), now=now, ascending=False),
        queryset.filter(submission_deadline__isnull=True).order_by(F("published_at").desc(nulls_last=True), "-id"),
    )


def _chain_part(part: NearFirst | QuerySet, method: str, *args, **kwargs) -> NearFirst | QuerySet:
    if isinstance(part, NearFirst):
        return part.chain(method, *args, **kwargs)
    return getattr(part, method)(*args, **kwargs)


def _querysets(part: NearFirst | QuerySet) -> tuple[QuerySet, ...]:
    return part.querysets() if isinstance(part, NearFirst) else (part,)


class OpenDeadlinesFirst:
    """Rows of several ordered querysets, one after the other, read lazily like a QuerySet.

    Slicing is lazy and only a window is read: each part is asked for the rows of the
    window it holds. A part entirely before the window is counted once (to know where
    the next part starts); the first page never counts anything.
    """

    ordered = True  # tells Django's Paginator the order is defined

    def __init__(self, parts: tuple[NearFirst | QuerySet, ...], *, start: int = 0, stop: int | None = None):
        self.parts = tuple(parts)
        self.start = start
        self.stop = stop
        self._cache: list | None = None

    @classmethod
    def of(cls, queryset: QuerySet, *, now: datetime) -> OpenDeadlinesFirst:
        return cls(deadline_parts(queryset, now=now))

    # --- building: applied to every part, before slicing ----------------------------------------------------

    def _chain(self, method: str, *args, **kwargs) -> OpenDeadlinesFirst:
        if self.start or self.stop is not None:
            raise TypeError(f"Cannot {method}() a sliced result list.")
        return OpenDeadlinesFirst(tuple(_chain_part(part, method, *args, **kwargs) for part in self.parts))

    def filter(self, *args, **kwargs) -> OpenDeadlinesFirst:
        return self._chain("filter", *args, **kwargs)

    def exclude(self, *args, **kwargs) -> OpenDeadlinesFirst:
        return self._chain("exclude", *args, **kwargs)

    def annotate(self, *args, **kwargs) -> OpenDeadlinesFirst:
        return self._chain("annotate", *args, **kwargs)

    def only(self, *fields: str) -> OpenDeadlinesFirst:
        return self._chain("only", *fields)

    def values_list(self, *fields: str, **kwargs) -> OpenDeadlinesFirst:
        return self._chain("values_list", *fields, **kwargs)

    def prefetch_related(self, *lookups) -> OpenDeadlinesFirst:
        return self._chain("prefetch_related", *lookups)

    # --- reading ---------------------------------------------------------------------------------------------

    def querysets(self) -> list[QuerySet]:
        """The index-ordered querysets read one after the other (near and far ranges apart)."""
        return [queryset for part in self.parts for queryset in _querysets(part)]

    def _rows(self, chunk_size: int | None = None) -> Iterator:
        offset = self.start
        remaining = None if self.stop is None else self.stop - self.start
        for part in self.parts:
            # Checked before a dated part is split, so a full window never looks up a boundary it does not need.
            if remaining is not None and remaining <= 0:
                return
            for queryset in _querysets(part):
                if remaining is not None and remaining <= 0:
                    return
                window = queryset[offset:] if remaining is None else queryset[offset : offset + remaining]
                got = 0
                for row in window.iterator(chunk_size=chunk_size) if chunk_size else window:
                    got += 1
                    yield row
                if remaining is not None:
                    remaining -= got
                # Rows read: this range is done and the window goes on at the next one's start. None read: the
                # whole range lay before the window, which starts that many rows later in the next one.
                offset = 0 if got or not offset else max(offset - queryset.count(), 0)

    def iterator(self, chunk_size: int = 2000) -> Iterator:
        return self._rows(chunk_size)

    def _fetch_all(self) -> list:
        if self._cache is None:
            self._cache = list(self._rows())
        return self._cache

    def __iter__(self) -> Iterator:
        return iter(self._fetch_all())

    def __len__(self) -> int:
        return len(self._fetch_all())

    def __bool__(self) -> bool:
        return bool(self._fetch_all())

    def __getitem__(self, key):
        if isinstance(key, int):
            if key < 0:
                raise ValueError("Negative indexing is not supported.")
            return list(self[key : key + 1])[0]
        if key.step is not None or (key.start or 0) < 0 or (key.stop is not None and key.stop < 0):
            raise ValueError("Only forward slices without a step are supported.")
        start = self.start + (key.start or 0)
        stop = None if key.stop is None else self.start + key.stop
        if self.stop is not None:
            stop = self.stop if stop is None else min(stop, self.stop)
        return OpenDeadlinesFirst(self.parts, start=start, stop=max(start, stop) if stop is not None else None)

    def count(self) -> int:
        if self._cache is not None:
            return len(self._cache)
        total = sum(part.count() for part in self.parts)
        end = total if self.stop is None else min(total, self.stop)
        return max(end - self.start, 0)

    def exists(self) -> bool:
        return self.count() > 0 if (self.start or self.stop is not None) else any(p.exists() for p in self.parts)
