from __future__ import annotations

import pytest

from kernel.vocabulary.regions import BUNDESLAENDER, LAND_NAMES, bundesland_for_nuts, normalise_nuts, nuts_codes_from


def test_both_keys_name_the_same_sixteen_laender():
    assert len(BUNDESLAENDER) == len(LAND_NAMES) == 16
    assert sorted(BUNDESLAENDER.values()) == sorted(LAND_NAMES.values())
    assert BUNDESLAENDER["DE2"] == LAND_NAMES["BY"] == "Bayern"
    assert BUNDESLAENDER["DEA"] == LAND_NAMES["NW"] == "Nordrhein-Westfalen"


@pytest.mark.parametrize(
    ("codes", "land"),
    [
        (["DE212"], "Bayern"),
        (["de300"], "Berlin"),
        (["AT130", "DEG01"], "Thüringen"),  # the first German code decides
        (["DE21", "DEA23"], "Bayern"),
        (["DE"], ""),  # country only
        (["DEZ"], ""),  # no such Land
        (["", None], ""),
    ],
)
def test_bundesland_for_nuts(codes, land):
    assert bundesland_for_nuts(codes) == land


def test_nuts_codes_are_normalised_and_filtered():
    assert normalise_nuts(" de 212 ") == "DE212"
    assert normalise_nuts("DE21234") == ""  # longer than level 3
    assert nuts_codes_from(["de212", "DEU", "WIEN", "DE212", "AT130", 7, "EST"]) == ("DE212", "AT130")
