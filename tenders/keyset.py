"""Keyset pages for the newest-first list: "weiter" continues after the last row shown, "zurück" before the
first, by their (published_at, id), whatever page number they are on.

OFFSET reads every row before a page, so page 300 of a broad list reads 7,500 rows; a keyset page walks
``tender_published_desc_idx`` from the row it continues at and reads one page. The cursor in the URL is that
row's publication time and id, base64url-encoded; it is client input, so anything that does not decode to
exactly that is no cursor (the list starts at its first page, as an unreadable page number does).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import F, Q, QuerySet

from tenders.deadline_order import OpenDeadlinesFirst

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
        if not raw or len(raw) > 80:
            return None
        try:
            text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("ascii")
        except (binascii.Error, ValueError, UnicodeDecodeError):
            return None
        stamp, _, pk = text.partition("|")
        if not _ID.fullmatch(pk) or (stamp and not _MOMENT.fullmatch(stamp)):
            return None
        try:
            published_at = datetime.fromisoformat(stamp) if stamp else None
        except ValueError:  # well-formed but impossible, e.g. month 13
            return None
        return cls(published_at, int(pk))


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


def pages_by_keyset(*, order: str, q: str) -> bool:
    """Whether ``tenders.search.tender_search`` lists newest first for this order: "published", and
    relevance without keywords (nothing to rank). Relevance lists end after their candidates and the
    deadline order reads three index ranges; they keep numbered pages."""
    from tenders.search import order_or_default

    chosen = order_or_default(order)
    return chosen == "published" or (chosen == "relevance" and not q)
