"""The cursor of a keyset page is client input: only what the list wrote reads back as a cursor."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta, timezone

import pytest

from tenders.keyset import Cursor, DeadlineCursor, DeadlineFirst, NewestFirst, keyset_for


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
        ("published", "Dach", NewestFirst),
        ("relevance", "", NewestFirst),  # nothing to rank: newest first
        ("", "", NewestFirst),
        ("deadline", "Dach", DeadlineFirst),
        ("relevance", "Dach", type(None)),  # ranked candidates, numbered pages
        ("nonsense", "Dach", type(None)),  # unknown orders are relevance
    ],
)
def test_newest_first_and_deadline_lists_page_by_keyset(order, q, expected):
    assert type(keyset_for(order=order, q=q, rows=None, now=datetime.now(UTC))) is expected


SINCE = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "cursor",
    [
        DeadlineCursor(SINCE, 0, SINCE + timedelta(days=3), 7),
        DeadlineCursor(SINCE, 1, SINCE - timedelta(minutes=1), 7),
        DeadlineCursor(SINCE, 2, SINCE - timedelta(days=40), 7),
        DeadlineCursor(SINCE, 2, None, 7),
    ],
)
def test_a_deadline_cursor_reads_back_as_written(cursor):
    assert DeadlineCursor.decode(cursor.encode()) == cursor


@pytest.mark.parametrize(
    "text",
    [
        "d|2026-09-01T08:00:00+00:00|0|2026-08-01T08:00:00+00:00|7",  # an open part before the split
        "d|2026-09-01T08:00:00+00:00|1|2026-10-01T08:00:00+00:00|7",  # an expired part after it
        "d|2026-09-01T08:00:00+00:00|0||7",  # a dated part without its deadline
        "d|2026-09-01T08:00:00+00:00|3||7",
        "d|2026-09-01T08:00:00+00:00|2||",
        "x|2026-09-01T08:00:00+00:00|2||7",
        "d|2026-09-01T08:00:00+00:00|2||7|8",
        "d|2026-09-31T08:00:00+00:00|2||7",
    ],
)
def test_anything_else_is_no_deadline_cursor(text):
    assert DeadlineCursor.decode(_raw(text)) is None


@pytest.mark.parametrize("raw", [None, "", "!!!", "w6Q"])  # "w6Q": not ASCII once decoded
def test_a_deadline_cursor_that_is_no_base64url_text_is_none(raw):
    assert DeadlineCursor.decode(raw) is None


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


@pytest.mark.parametrize("near_rows", [2000, 1])  # 1: every dated part splits into a near and a far range
def test_the_deadline_order_both_ways_from_every_row(db, monkeypatch, near_rows):
    from django.utils import timezone as django_timezone

    from tenders import deadline_order

    monkeypatch.setattr(deadline_order, "NEAR_ROWS", near_rows)

    from tenders.deadline_order import OpenDeadlinesFirst
    from tenders.models import Tender
    from tenders.services import notices_ingest
    from tests.factories.records import NoticeRecordFactory

    now = django_timezone.now()
    soon, gone = now + timedelta(days=2), now - timedelta(days=2)
    deadlines = [soon, soon, now + timedelta(days=9), gone, gone, now - timedelta(days=30), None, None, None]
    notices_ingest(
        records=[
            NoticeRecordFactory(
                source_notice_id=f"dl-both-{n}",
                title=f"Fristen {n}",
                submission_deadline=deadline,
                published_at=None if n == 8 else now - timedelta(days=n % 2),
            )
            for n, deadline in enumerate(deadlines)
        ],
        now=now,
        use_fingerprint=False,
    )
    tenders = Tender.objects.filter(title__startswith="Fristen")
    ordered = list(OpenDeadlinesFirst.of(tenders, now=now))
    assert [t.submission_deadline is None for t in ordered][-3:] == [True] * 3
    keyset = DeadlineFirst(tenders, now)
    for position, row in enumerate(ordered):
        cursor = keyset.decode(keyset.encode(row, None))
        assert list(keyset.after(cursor)) == ordered[position + 1 :], position
        assert list(keyset.before(cursor)) == ordered[:position][::-1], position
