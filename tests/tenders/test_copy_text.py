"""COPY text encoding: hostile values survive a round trip through PostgreSQL unchanged."""

from __future__ import annotations

import enum
import json
import random
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from django.db import connection

from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from tenders.bulk import copy_rows
from tenders.copy_text import NULL, _scalar, escape, json_text, row_encoder, text_array

HOSTILE = 'Tab\there, new\nline, CR\r, back\\slash \\N, "quoted", {braces}, comma, € ümlaut, 日本'


def test_escape_leaves_plain_text_alone_and_escapes_copy_specials():
    assert escape("Dacharbeiten Rathaus") == "Dacharbeiten Rathaus"
    assert escape("a\tb\nc\rd\\e") == "a\\tb\\nc\\rd\\\\e"
    with pytest.raises(ValueError, match="NUL"):
        escape("bad\x00byte")


def test_arrays_quote_every_element():
    assert text_array([]) == "{}"
    assert text_array(["45000000", 'a "b"', "c,d", "e\\f"]) == '{"45000000","a \\\\"b\\\\"","c,d","e\\\\\\\\f"}'
    with pytest.raises(TypeError):
        text_array([1, 2])


def test_row_encoder_refuses_wrong_widths_and_unknown_types():
    encode = row_encoder(2)
    assert encode([None, 3]) == "\\N\t3\n"
    with pytest.raises(ValueError, match="expected 2"):
        encode([1])
    with pytest.raises(TypeError, match="float"):
        encode([1.5, 1])


@pytest.mark.django_db
def test_hostile_values_round_trip_through_copy():
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE copy_probe (t text, n numeric, b boolean, i bigint, ts timestamptz, d date,"
            " arr varchar(200)[], doc jsonb, raw jsonb)"
        )
    at = datetime(2026, 10, 25, 2, 30, 15, 123456, tzinfo=BERLIN)  # the hour that exists twice in Berlin
    rows = [
        [
            HOSTILE,
            Decimal("1E+3"),
            True,
            2**62,
            at,
            date(2026, 2, 28),
            [HOSTILE, "", "NULL", "45000000"],
            {"text": HOSTILE, "value": Decimal("12.50"), "list": [1, None]},
            '{"already": "serialised\\n", "n": 1}',
        ],
        [NoticeKind.AWARD, None, False, 0, at.astimezone(timezone(timedelta(hours=-3))), None, [], [], "[]"],
    ]
    copy_rows(
        table="copy_probe",
        columns=["t", "n", "b", "i", "ts", "d", "arr", "doc", "raw"],
        rows=iter(rows),
        json_columns=["doc"],
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT t, n, b, i, ts, d, arr, doc, raw FROM copy_probe ORDER BY b DESC")
        # Django reads jsonb as text (JSONField decodes it itself).
        first, second = ([*row[:7], json.loads(row[7]), json.loads(row[8])] for row in cursor.fetchall())
    assert first[0] == HOSTILE and first[1] == Decimal("1000") and first[2] is True and first[3] == 2**62
    # Ambiguous local times never compare equal across zones (PEP 495): compare the instants.
    assert first[4].timestamp() == at.timestamp() and first[5] == date(2026, 2, 28)
    assert first[6] == [HOSTILE, "", "NULL", "45000000"]
    assert first[7] == {"text": HOSTILE, "value": "12.50", "list": [1, None]}
    assert first[8] == {"already": "serialised\n", "n": 1}
    assert second[0] == "award" and second[1] is None and second[4].timestamp() == at.timestamp() and second[5] is None
    assert second[6] == [] and second[7] == [] and second[8] == []


# --- the whole-line fast path must write exactly what the field-by-field rules write ----------------------


def _field_by_field(values, json_columns=frozenset()):
    """The format's definition: every field through ``_scalar`` (or ``json_text``), NULL as \\N."""
    return (
        "\t".join(
            NULL if value is None else (json_text if i in json_columns else _scalar)(value)
            for i, value in enumerate(values)
        )
        + "\n"
    )


class _Labelled(str, enum.Enum):  # noqa: UP042  (its str() is "_Labelled.TAB", its text "a\tb")
    TAB = "a\tb"


TRICKY_ROWS = [
    (["plain", "\\N", None], "plain\t\\\\N\t\\N\n"),  # the text "\N" is no NULL
    (["back\\slash", 1], "back\\\\slash\t1\n"),
    (["tab\there", "new\nline", "cr\rhere"], "tab\\there\tnew\\nline\tcr\\rhere\n"),
    ([["a", 'q"uote', "b\\s"], None], '{"a","q\\\\"uote","b\\\\\\\\s"}\t\\N\n'),
    ([["a,b", "{c}", ""], ()], '{"a,b","{c}",""}\t{}\n'),
    ([("x",), ["\t"]], '{"x"}\t{"\\t"}\n'),
    (["lone \ud800 surrogate", "日本 €"], "lone \ud800 surrogate\t日本 €\n"),  # PostgreSQL's encoding check refuses it
    ([NoticeKind.AWARD, True, False], "award\tt\tf\n"),
    ([Decimal("1E+3"), Decimal("-0.00"), 2**70], "1E+3\t-0.00\t1180591620717411303424\n"),
    ([datetime(2026, 3, 29, 2, 30, tzinfo=UTC), date(2026, 2, 28)], "2026-03-29T02:30:00+00:00\t2026-02-28\n"),
]


@pytest.mark.parametrize(("values", "line"), TRICKY_ROWS)
def test_tricky_rows_are_written_exactly(values, line):
    assert row_encoder(len(values))(values) == line == _field_by_field(values)


def test_json_columns_take_text_as_it_is_and_encode_the_rest():
    encode = row_encoder(4, frozenset({1, 2, 3}))
    row = ["t", [{"v": Decimal("1.50"), "s": 'x"\\'}], '{"a": "b\\n"}', None]
    assert encode(row) == 't\t[{"v":"1.50","s":"x\\\\"\\\\\\\\"}]\t{"a": "b\\\\n"}\t\\N\n'
    assert encode(row) == _field_by_field(row, frozenset({1, 2, 3}))
    assert encode(["t", _Labelled.TAB, "[]", "{}"]) == "t\ta\\tb\t[]\t{}\n"  # a str subclass's text, not its str()


def test_a_bad_row_raises_the_error_of_its_first_bad_field():
    encode = row_encoder(3)
    with pytest.raises(ValueError, match="NUL"):
        encode(["ok", "nul\x00", 1.5])
    with pytest.raises(TypeError, match="no COPY text encoding for float"):
        encode(["ok", 1.5, "nul\x00"])
    with pytest.raises(TypeError, match="array elements must be str, not int"):
        encode([["a", 1], None, None])
    with pytest.raises(ValueError, match="NUL"):
        encode([["a\x00"], None, None])
    with pytest.raises(TypeError, match="no COPY text encoding for _Odd"):
        encode(["ok", _Odd(3), None])


class _Odd(int):  # an int subclass is no int to the format
    pass


def test_random_rows_match_the_field_by_field_rules():
    rng = random.Random(20261201)
    pieces = ["a", " ", "\\", "\t", "\n", "\r", '"', ",", "{", "ü", "N", "\ud800"]

    def text():
        return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))

    def value(is_json):
        kind = rng.randrange(11)
        return [
            None,
            text(),
            rng.random() < 0.5,
            rng.randint(-(10**20), 10**20),
            Decimal(rng.choice(["1.5", "NaN", "1E+3", "-0"])),
            datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
            date(2026, 1, 2),
            [text() for _ in range(rng.randint(0, 3))],
            tuple(text() for _ in range(rng.randint(0, 3))),
            NoticeKind.AWARD,
            {"k": text(), "v": Decimal("1.2")} if is_json else "plain",
        ][kind]

    for _ in range(3000):
        width = rng.randint(1, 6)
        json_columns = frozenset(i for i in range(width) if rng.random() < 0.3)
        row = [value(i in json_columns) for i in range(width)]
        assert _outcome(row_encoder(width, json_columns), row) == _outcome(_field_by_field, row, json_columns), row


def _outcome(encode, *args):
    try:
        return encode(*args)
    except (TypeError, ValueError) as error:  # lone surrogates in JSON, NUL, elements of other types
        return type(error), str(error)


def test_datetimes_are_written_as_themselves_however_often_they_repeat():
    encode = row_encoder(3)
    at = datetime(2026, 10, 25, 2, 30, tzinfo=BERLIN)
    same_instant = at.astimezone(UTC)  # equal to ``at``, written differently
    for _ in range(2):
        assert (
            encode([at, same_instant, at])
            == "2026-10-25T02:30:00+02:00\t2026-10-25T00:30:00+00:00\t2026-10-25T02:30:00+02:00\n"
        )
    many = [at + timedelta(minutes=i) for i in range(5000)]  # past the memo's size: it starts over
    assert [encode([d, None, d]) for d in many] == [f"{d.isoformat()}\t\\N\t{d.isoformat()}\n" for d in many]
