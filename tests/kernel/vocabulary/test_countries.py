"""Country codes as names: alpha-3 as notices state them, NUTS country codes, German and English."""

from __future__ import annotations

from kernel.vocabulary.countries import country_name


def test_alpha3_codes_are_named_in_german_and_english():
    assert country_name("DEU") == "Deutschland"
    assert country_name("FRA") == "Frankreich"
    assert country_name("fra", "en") == "France"
    assert country_name("GBR", "en-gb") == "United Kingdom"
    assert country_name("AUT", "de-at") == "Österreich"


def test_two_letter_codes_are_nuts_countries():
    assert country_name("EL") == "Griechenland"
    assert country_name("FR", "en") == "France"


def test_unknown_or_empty_codes_name_nothing():
    assert country_name("XYZ") == country_name("") == country_name(None) == country_name("ZZ") == ""
