"""Compiled tender states (pure, no database)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from kernel.vocabulary.time_zone import BERLIN
from tenders.merging import compile_tender
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


def test_state_hash_does_not_depend_on_how_the_time_zone_is_spelled():
    # Fresh records carry Europe/Berlin, records read back from JSON a fixed offset: same instant, same state.
    deadline = datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN)
    as_offset = deadline.astimezone(timezone(timedelta(hours=2)))
    record = NoticeRecordFactory(submission_deadline=deadline)
    state = compile_tender([record], now=NOW)
    same = compile_tender([record.replace(submission_deadline=as_offset)], now=NOW)
    assert state.content_hash() == same.content_hash()
    later = compile_tender([record.replace(submission_deadline=deadline + timedelta(minutes=1))], now=NOW)
    assert state.content_hash() != later.content_hash()
