"""Shared pieces of the HTML portal adapters that are not page parsing."""

from __future__ import annotations

from sources.adapters.html import rows_with_pages


def test_rows_are_joined_with_their_saved_pages_and_pages_without_a_row_follow() -> None:
    rows = {"2": "row-2", "1": "row-1"}
    pages = {"3": "page-3", "1": "page-1", "4": "page-4"}
    assert rows_with_pages(rows, pages, lambda row, page: (row, page)) == [
        ("row-2", None),
        ("row-1", "page-1"),
        (None, "page-3"),
        (None, "page-4"),
    ]
    assert rows_with_pages({}, {}, lambda row, page: (row, page)) == []
