"""Merge keys of one record (pure, no database)."""

from __future__ import annotations

from tenders.resolution import keys_of
from tests.factories.records import NoticeRecordFactory

UUID = "0f7c2f3e-8c1d-4b7a-9e2f-1a2b3c4d5e6f"


def test_referenced_notices_are_canonical_deduplicated_and_never_the_notice_itself():
    record = NoticeRecordFactory(
        source_notice_id=UUID,
        referenced_notice_ids=("00615938-2024", "615938-2024", "2024/S 123-615938", f"{UUID}-01", "", "other-1"),
    )
    assert keys_of(record).references == ("615938-2024", "other-1")


def test_a_record_without_references_has_none():
    assert keys_of(NoticeRecordFactory(referenced_notice_ids=())).references == ()
