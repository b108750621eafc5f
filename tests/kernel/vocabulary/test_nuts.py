from __future__ import annotations

import csv

import pytest

from kernel.vocabulary import nuts
from kernel.vocabulary.nuts import nuts_labelled, nuts_name
from kernel.vocabulary.regions import BUNDESLAENDER


@pytest.mark.parametrize(
    ("code", "name"),
    [
        ("DE212", "München, Kreisfreie Stadt"),
        ("DE300", "Berlin"),
        ("DEA23", "Köln, Kreisfreie Stadt"),
        ("DE21", "Oberbayern"),  # level 2: Regierungsbezirk
        ("DE2", "Bayern"),  # level 1: Land
        ("DE", "Deutschland"),
        ("DEZZZ", "Extra-Regio NUTS 3"),
        ("DEG0R", "Wartburgkreis"),  # NUTS 2024
        ("DEG0N", "Eisenach, Kreisfreie Stadt"),  # NUTS 2021, retired in 2024, still on older notices
        (" de212 ", "München, Kreisfreie Stadt"),
    ],
)
def test_german_codes_at_every_level(code, name):
    assert nuts_name(code) == name


def test_foreign_codes_name_their_country():
    assert nuts_name("AT") == "Österreich"
    assert nuts_name("AT130") == "Österreich"
    assert nuts_name("EL301") == "Griechenland"  # NUTS writes Greece "EL", not "GR"
    assert nuts_name("UKI31") == "Vereinigtes Königreich"
    assert nuts_name("AT130", "en") == "Austria"


@pytest.mark.parametrize("code", ["", None, "DE2X9", "DEU", "XY123", "D"])
def test_unknown_codes_have_no_name(code):
    assert nuts_name(code) == ""


def test_english_names_are_the_official_ones():
    # NUTS names are in the region's own language; only a country has an English name of its own.
    assert nuts_name("DE212", "en") == "München, Kreisfreie Stadt"
    assert nuts_name("DE", "en") == "Germany"
    assert nuts_name("DE", "en-gb") == "Germany"
    assert nuts_name("DE", "de-at") == "Deutschland"


def test_level_one_names_are_the_laender():
    assert {code: nuts_name(code) for code in BUNDESLAENDER} == BUNDESLAENDER


def test_every_german_code_at_every_level():
    with nuts._TABLE.open(encoding="utf-8", newline="") as handle:
        codes = [row["code"] for row in csv.DictReader(handle) if row["code"].startswith("DE")]
    by_level = {level: [c for c in codes if len(c) == level + 2 and not c.startswith("DEZ")] for level in (1, 2, 3)}
    assert len(by_level[1]) == 16
    assert len(by_level[2]) == 38  # Regierungsbezirke and the Länder without them
    assert len(by_level[3]) == 400 + 7  # the Kreise of NUTS 2024 and the seven NUTS 2021 retired
    assert all(nuts_name(code) for code in codes)
    assert all(code[:-1] in codes for code in codes if len(code) > 3)  # every code has its parent


def test_labelled_keeps_order_and_unknown_codes():
    assert nuts_labelled(["DEA23", "XY1", "DE212"]) == [
        {"code": "DEA23", "name": "Köln, Kreisfreie Stadt"},
        {"code": "XY1", "name": ""},
        {"code": "DE212", "name": "München, Kreisfreie Stadt"},
    ]
    assert nuts_labelled(()) == []
