"""The parsers' records of every fixture in tests/data are exactly the pinned snapshot (see ``records_snapshot``)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from kernel.records import NoticeKind

from .records_snapshot import SNAPSHOT, current_records, encoded


def test_every_fixture_parses_to_exactly_the_pinned_records() -> None:
    pinned = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    current = json.loads(json.dumps(current_records(), ensure_ascii=False))
    assert sorted(current) == sorted(pinned), "a fixture was added or removed: regenerate the snapshot"
    for label in pinned:
        assert current[label] == pinned[label], f"{label} parses differently from the snapshot"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (Decimal("1000"), Decimal("1E+3")),
        (NoticeKind.AWARD, "award"),
        (("a",), ["a"]),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ],
)
def test_the_snapshot_tells_apart_what_equality_does_not(one, other) -> None:
    assert encoded(one) != encoded(other)
