"""COPY text encoding: hostile values survive a round trip through PostgreSQL unchanged."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from django.db import connection

from sources.records import NoticeKind
from tenders.bulk import copy_rows
from tenders.copy_text import escape, row_encoder, text_array
from tenders.vocabulary.time_zone import BERLIN

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
