"""The cursor of a keyset page is client input: only what the list wrote reads back as a cursor."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta, timezone

import pytest

from tenders.keyset import Cursor, pages_by_keyset


@pytest.mark.parametrize("published_at", [datetime(2026, 9, 1, 8, 30, tzinfo=UTC), None])
def test_a_cursor_reads_back_as_written(published_at):
    cursor = Cursor(published_at, 4711)
    assert Cursor.decode(cursor.encode()) == cursor


def test_a_cursor_is_written_in_utc_whatever_the_zone():
    berlin = datetime(2026, 9, 1, 10, 30, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    assert Cursor.decode(Cursor(berlin, 1).encode()).published_at == berlin


def _raw(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "!!!",
        "x" * 81,
        _raw("2026-09-01T08:30:00+00:00"),  # no id
        _raw("2026-09-01T08:30:00+00:00|abc"),
        _raw("2026-09-01T08:30:00+00:00|1" + "0" * 18),  # more than a bigint
        _raw("2026-13-01T08:30:00+00:00|1"),  # well-formed, impossible
        _raw("2026-09-01T08:30:00+02:00|1"),  # never written: cursors are UTC
        _raw("2026-09-01T08:30:00+00:00|1\x00"),
        _raw("2026-09-01 08:30|1"),
        "w6Q",  # not ASCII once decoded
    ],
)
def test_anything_else_is_no_cursor(raw):
    assert Cursor.decode(raw) is None


@pytest.mark.parametrize(
    ("order", "q", "expected"),
    [
        ("published", "Dach", True),
        ("relevance", "", True),  # nothing to rank: newest first
        ("", "", True),
        ("relevance", "Dach", False),  # ranked candidates, numbered pages
        ("deadline", "", False),
        ("nonsense", "Dach", False),  # unknown orders are relevance
    ],
)
def test_newest_first_lists_page_by_keyset(order, q, expected):
    assert pages_by_keyset(order=order, q=q) is expected


def test_both_ways_from_every_row_dated_or_not(db):
    from django.db.models import F
    from django.utils import timezone as django_timezone

    from tenders.keyset import rows_after, rows_before
    from tenders.models import Tender
    from tenders.services import notices_ingest
    from tests.factories.records import NoticeRecordFactory

    now = django_timezone.now()
    notices_ingest(
        records=[
            NoticeRecordFactory(
                source_notice_id=f"both-{n}",
                title=f"Keyset {n}",
                published_at=None if n % 4 == 0 else now - timedelta(days=n % 3),  # ties and undated rows
            )
            for n in range(12)
        ],
        now=now,
        use_fingerprint=False,
    )
    tenders = Tender.objects.filter(title__startswith="Keyset")
    ordered = list(tenders.order_by(F("published_at").desc(nulls_last=True), "-id"))
    for position, row in enumerate(ordered):
        cursor = Cursor.decode(Cursor.of(row).encode())
        assert list(rows_after(tenders, cursor)) == ordered[position + 1 :], position
        assert list(rows_before(tenders, cursor)) == ordered[:position][::-1], position
