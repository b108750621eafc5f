"""Keyset pages: "weiter" continues after the last row shown, "zurück" before the first, by their sort key
and id, whatever page number they are on.

OFFSET reads every row before a page, so page 300 of a broad list reads 7,500 rows; a keyset page seeks the
index from the row it continues at and reads one page. Newest-first lists continue by (published_at, id);
the deadline order (``tenders.deadline_order``: open deadlines, expired ones, undated) by the row's part,
its deadline (or publication time) and id, and the moment that split open from expired when the list was
first read, so a list keeps its order while one pages through it. The cursor in the URL is base64url text;
it is client input, so anything that does not decode to exactly what a list writes is no cursor (the list
starts at its first page, as an unreadable page number does). Ranked lists keep numbered pages: they end
after their candidates.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import F, Q, QuerySet

from tenders.deadline_order import NearFirst, OpenDeadlinesFirst, deadline_parts

AFTER, BEFORE = "nach", "vor"  # the URL parameters: rows after / before the cursor's row
_ID = re.compile(r"[0-9]{1,18}")
_MOMENT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{8,15}\+00:00")


@dataclass(frozen=True)
class Cursor:
    """A row of the newest-first list (``published_at`` None: the undated rows at its end)."""

    published_at: datetime | None
    pk: int

    def encode(self) -> str:
        stamp = "" if self.published_at is None else _utc(self.published_at).isoformat()
        return base64.urlsafe_b64encode(f"{stamp}|{self.pk}".encode()).decode().rstrip("=")

    @classmethod
    def of(cls, row) -> Cursor:
        return cls(row.published_at, row.pk)

    @classmethod
    def decode(cls, raw: str | None) -> Cursor | None:
        text = _decoded(raw, longest=80)
        if text is None:
            return None
        stamp, _, pk = text.partition("|")
        published_at = _moment(stamp) if stamp else None
        if not _ID.fullmatch(pk) or (stamp and published_at is None):
            return None
        return cls(published_at, int(pk))


def _decoded(raw: str | None, *, longest: int) -> str | None:
    """A cursor parameter's text (unpadded base64url of ASCII), or None for anything else."""
    if not raw or len(raw) > longest:
        return None
    try:
        return base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("ascii")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def rows_after(queryset: QuerySet, cursor: Cursor) -> QuerySet | OpenDeadlinesFirst:
    """The rows that follow ``cursor`` in newest-first order (published_at DESC NULLS LAST, id DESC).

    Each part is a range the index seeks to (``published_at <= p``, ties told apart by the id), then the
    undated rows, read only if the page is not full: an OR of both would be a filter over every row above
    the cursor instead of a seek.
    """
    if cursor.published_at is None:
        return queryset.filter(published_at__isnull=True, pk__lt=cursor.pk).order_by(*NEWEST_FIRST)
    dated = queryset.filter(published_at__lte=cursor.published_at).filter(
        Q(published_at__lt=cursor.published_at) | Q(pk__lt=cursor.pk)
    )
    undated = queryset.filter(published_at__isnull=True)
    return OpenDeadlinesFirst((dated.order_by(*NEWEST_FIRST), undated.order_by(*NEWEST_FIRST)))


def rows_before(queryset: QuerySet, cursor: Cursor) -> QuerySet | OpenDeadlinesFirst:
    """The rows that precede ``cursor``, nearest first (the newest-first order reversed, the same index read
    backwards): read a page of them and reverse it."""
    oldest_first = (F("published_at").asc(nulls_first=True), "id")
    dated = queryset.filter(published_at__isnull=False)
    if cursor.published_at is None:
        undated = queryset.filter(published_at__isnull=True, pk__gt=cursor.pk)
        return OpenDeadlinesFirst((undated.order_by(*oldest_first), dated.order_by(*oldest_first)))
    dated = dated.filter(published_at__gte=cursor.published_at).filter(
        Q(published_at__gt=cursor.published_at) | Q(pk__gt=cursor.pk)
    )
    return dated.order_by(*oldest_first)


NEWEST_FIRST = (F("published_at").desc(nulls_last=True), "-id")


def _parts(window) -> tuple:
    return window.parts if isinstance(window, OpenDeadlinesFirst) else (window,)


def _moment(stamp: str) -> datetime | None:
    if not _MOMENT.fullmatch(stamp):
        return None
    try:
        return datetime.fromisoformat(stamp)
    except ValueError:  # well-formed but impossible, e.g. month 13
        return None


@dataclass(frozen=True)
class DeadlineCursor:
    """A row of the deadline order: its part (0 open, 1 expired, 2 undated), its deadline (its publication
    time in part 2, None when it has none), its id, and the moment the list split open from expired."""

    since: datetime
    part: int
    value: datetime | None
    pk: int

    def encode(self) -> str:
        value = "" if self.value is None else _utc(self.value).isoformat()
        text = f"d|{_utc(self.since).isoformat()}|{self.part}|{value}|{self.pk}"
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

    @classmethod
    def of(cls, row, *, since: datetime) -> DeadlineCursor:
        deadline = row.submission_deadline
        if deadline is None:
            return cls(since, 2, row.published_at, row.pk)
        return cls(since, 0 if deadline >= since else 1, deadline, row.pk)

    @classmethod
    def decode(cls, raw: str | None) -> DeadlineCursor | None:
        text = _decoded(raw, longest=160)
        if text is None:
            return None
        fields = text.split("|")
        if len(fields) != 5 or fields[0] != "d" or fields[2] not in ("0", "1", "2") or not _ID.fullmatch(fields[4]):
            return None
        since, part, value = _moment(fields[1]), int(fields[2]), _moment(fields[3]) if fields[3] else None
        if since is None or (fields[3] and value is None):
            return None
        # Only what a list writes: a dated part names a deadline on its side of the split.
        if (part == 0 and (value is None or value < since)) or (part == 1 and (value is None or value >= since)):
            return None
        return cls(since, part, value, int(fields[4]))


@dataclass(frozen=True)
class NewestFirst:
    """Keyset pages of a newest-first list of ``rows`` (the matches, in any order)."""

    rows: QuerySet

    def decode(self, raw: str | None) -> Cursor | None:
        return Cursor.decode(raw)

    def encode(self, row, cursor: Cursor | None) -> str:
        return Cursor.of(row).encode()

    def after(self, cursor: Cursor):
        return rows_after(self.rows, cursor)

    def before(self, cursor: Cursor):
        return rows_before(self.rows, cursor)


@dataclass(frozen=True)
class DeadlineFirst:
    """Keyset pages of the deadline order of ``rows`` (the matches, in any order), first read at ``now``.

    Forward, the cursor's part continues from the cursor (its near range found from the cursor's deadline,
    ``tenders.deadline_order.NearFirst``) and the later parts follow whole; backward, the parts are read in
    reverse, each in its reversed order.
    """

    rows: QuerySet
    now: datetime

    def decode(self, raw: str | None) -> DeadlineCursor | None:
        return DeadlineCursor.decode(raw)

    def encode(self, row, cursor: DeadlineCursor | None) -> str:
        return DeadlineCursor.of(row, since=self.now if cursor is None else cursor.since).encode()

    def after(self, cursor: DeadlineCursor):
        rows, value, pk = self.rows, cursor.value, cursor.pk
        _open, expired, undated = deadline_parts(rows, now=cursor.since)
        # NearFirst adds its part's bound from the deadline it is given (>= for open, < for expired ones).
        if cursor.part == 0:
            rest = rows.filter(Q(submission_deadline__gt=value) | Q(pk__gt=pk))
            first = NearFirst(rest.order_by("submission_deadline", "id"), now=value, ascending=True)
            return OpenDeadlinesFirst((first, expired, undated))
        if cursor.part == 1:
            ties = rows.filter(submission_deadline=value, pk__lt=pk).order_by("-id")
            earlier = NearFirst(rows.order_by("-submission_deadline", "-id"), now=value, ascending=False)
            return OpenDeadlinesFirst((ties, earlier, undated))
        return OpenDeadlinesFirst(_parts(rows_after(rows.filter(submission_deadline__isnull=True), Cursor(value, pk))))

    def before(self, cursor: DeadlineCursor):
        rows, value, pk, since = self.rows, cursor.value, cursor.pk, cursor.since
        open_reversed = rows.filter(submission_deadline__gte=since).order_by("-submission_deadline", "-id")
        if cursor.part == 0:
            earlier = open_reversed.filter(submission_deadline__lte=value)
            return earlier.filter(Q(submission_deadline__lt=value) | Q(pk__lt=pk))
        expired_reversed = rows.filter(submission_deadline__lt=since).order_by("submission_deadline", "id")
        if cursor.part == 1:
            later = expired_reversed.filter(submission_deadline__gte=value)
            first = later.filter(Q(submission_deadline__gt=value) | Q(pk__gt=pk))
            return OpenDeadlinesFirst((first, open_reversed))
        undated = rows_before(rows.filter(submission_deadline__isnull=True), Cursor(value, pk))
        return OpenDeadlinesFirst((*_parts(undated), expired_reversed, open_reversed))


def keyset_for(*, order: str, q: str, rows: QuerySet, now: datetime) -> NewestFirst | DeadlineFirst | None:
    """How ``tenders.search.tender_search``'s list for this order pages: newest first ("published", and
    relevance without keywords, which has nothing to rank) and the deadline order by keyset; a ranked list
    by number (None). ``rows``: the matches in any order, with the columns a page shows."""
    from tenders.search import order_or_default, ranks

    if ranks(order=order, q=q):
        return None
    return DeadlineFirst(rows, now) if order_or_default(order) == "deadline" else NewestFirst(rows)
