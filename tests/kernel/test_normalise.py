"""Text normalisation of foreign input (pure, no database)."""

from __future__ import annotations

import random
import re
import unicodedata
from datetime import datetime
from decimal import Decimal

import pytest

from kernel.normalise import END_OF_DAY, clean_text, parse_decimal, parse_german_datetime, parse_iso_datetime
from kernel.vocabulary.time_zone import BERLIN


def _reference(raw: str) -> str:
    """The definition clean_text implements, character by character (slow, obviously right)."""
    text = unicodedata.normalize("NFC", raw)
    text = "".join(ch if ch in "\n\t" or unicodedata.category(ch)[0] != "C" else " " for ch in text)
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    return re.sub(r"\s*\n\s*", "\n", text).strip()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Straßenbau  Los 1", "Straßenbau Los 1"),
        ("Zeile 1\r\nZeile 2\t\tEnde", "Zeile 1\nZeile 2 Ende"),
        ("Bu\u0308ro", "Büro"),  # decomposed umlaut composed (NFC)
        ("Dach\x00arbeiten\x07", "Dach arbeiten"),
        ("\ufeffTitel mit BOM", "Titel mit BOM"),
        ("weich\u00adgetrennt", "weich getrennt"),  # soft hyphen is a format character
        ("null\u200bbreite", "null breite"),
        ("geschützt\u00a0Leerzeichen", "geschützt\u00a0Leerzeichen"),  # no-break space is kept
        ("kaputt \ud800 ersetzt", "kaputt ersetzt"),  # lone surrogate from hostile JSON
        ("privat \ue000 Zeichen", "privat Zeichen"),
        ("  \n\n  ", ""),
        ("5.000 € netto", "5.000 € netto"),
    ],
)
def test_clean_text_examples(raw, expected):
    assert clean_text(raw) == expected


def test_clean_text_agrees_with_its_definition_on_random_text():
    rng = random.Random(20261130)
    alphabet = [*"abcÄöüß€ \n\t\r\f\v.,;-", "\x00", "\x1f", "\x85", "\u00a0", "\u00ad", "\u200b", "\u2028"]
    alphabet += ["\u2029", "\ufeff", "\ud800", "\udfff", "\ue000", "\U000e0001", "\U0010fffd", "\u0378", "e\u0301"]
    for _ in range(3000):
        raw = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert clean_text(raw) == _reference(raw), repr(raw)


def test_clean_text_limit_ends_with_an_ellipsis():
    assert clean_text("Sanierung der Grundschule", limit=10) == "Sanierung…"
    assert clean_text(None) == clean_text("") == ""


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1.234.567,89 €", Decimal("1234567.89")),
        ("1234567.89", Decimal("1234567.89")),
        (250000, Decimal("250000")),
        (12.5, Decimal("12.5")),
        (Decimal("0"), Decimal("0")),
        ("-5", None),
        (-5, None),  # typed numbers get the same checks as text
        (Decimal("-1"), None),
        (float("nan"), None),  # json.loads accepts NaN and Infinity
        (float("inf"), None),
        (Decimal("NaN"), None),
        (True, None),
        ("keine Angabe", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_decimal_accepts_only_finite_non_negative_amounts(raw, expected):
    assert parse_decimal(raw) == expected


@pytest.mark.parametrize(
    "raw", ["9999-12-31T23:59:59Z", "9999-12-31", "0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00"]
)
def test_placeholder_dates_are_no_dates(raw):
    assert parse_iso_datetime(raw) is None


def test_german_placeholder_dates_are_no_dates_either():
    assert parse_german_datetime("31.12.9999 23:59") is None
    assert parse_german_datetime("01.10.2026 12:00") == datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN)


def test_a_date_alone_takes_the_default_time_a_written_time_wins():
    assert parse_german_datetime("01.10.2026") == datetime(2026, 10, 1, 0, 0, tzinfo=BERLIN)
    assert parse_german_datetime("01.10.2026", default_time=END_OF_DAY) == datetime(2026, 10, 1, 23, 59, tzinfo=BERLIN)
    assert parse_german_datetime("01.10.2026 10:30", default_time=END_OF_DAY) == datetime(
        2026, 10, 1, 10, 30, tzinfo=BERLIN
    )


def test_long_field_values_are_parsed_alike_but_not_remembered():
    from kernel import normalise

    pasted_date = "2026-10-01T10:00:00+02:00" + " " * 100
    before = normalise._iso_datetime.cache_info().currsize
    assert parse_iso_datetime(pasted_date) == parse_iso_datetime("2026-10-01T10:00:00+02:00")
    assert parse_iso_datetime("x" * 500) is None
    after_short = normalise._iso_datetime.cache_info().currsize
    assert after_short <= before + 1  # only the short spelling may have been remembered
    address = "Rathausplatz 1, 50667 Köln, Deutschland. " * 10
    postcodes_before = normalise._postal_code.cache_info().currsize
    assert normalise.normalise_postal_code(address) == "50667"
    assert normalise._postal_code.cache_info().currsize == postcodes_before
