"""NoticeRecord and its parts travel between processes (parse workers -> writer) unchanged."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kernel.records import Award, Deadline, Lot, NoticeRecord, _pickled_by_fields
from sources.parsers.eforms import parse_eforms
from sources.parsers.ocds import parse_ocds_package
from tests.sources.parsers.records_snapshot import encoded

DATA = Path(__file__).resolve().parents[1] / "data"


def _fixture_records() -> list[NoticeRecord]:
    records = [parse_eforms(p.read_bytes(), source="doe") for p in sorted(DATA.glob("ted/eforms-sdk_*.xml"))]
    for path in sorted(DATA.glob("doe/ocds_*.json")):
        records += parse_ocds_package(path.read_bytes())
    return records


def test_records_come_back_from_pickle_field_for_field_with_their_types() -> None:
    records = _fixture_records()
    assert any(r.awards for r in records) and any(r.lots for r in records) and any(r.deadlines for r in records)
    back = pickle.loads(pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL))  # noqa: S301 - our own bytes
    assert [encoded(r) for r in back] == [encoded(r) for r in records]  # payload (not compared by ==) included


def test_every_record_part_pickles_by_its_fields() -> None:
    for cls in (NoticeRecord, Lot, Award, Deadline):
        assert cls.__reduce__ is not object.__reduce__, cls


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class _One:
    value: str


def test_a_part_of_one_field_pickles_too() -> None:
    assert pickle.loads(pickle.dumps(_One("x"))) == _One("x")  # noqa: S301 - our own bytes


@pytest.mark.parametrize("spec", [field(default="", kw_only=True), field(default="", init=False)])
def test_a_field_outside_the_positional_init_is_refused_when_the_class_is_made(spec) -> None:
    @dataclass(frozen=True, slots=True)
    class Part:
        a: str = ""
        b: str = spec

    with pytest.raises(TypeError):
        _pickled_by_fields(Part)
