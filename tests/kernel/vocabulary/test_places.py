"""Postcodes as places: points, Kreise and their NUTS-3 codes, distances and radius sets (pure)."""

from __future__ import annotations

import math

import pytest

from kernel.vocabulary.places import (
    Point,
    distance_km,
    kreis_by_key,
    kreis_lookup,
    kreis_postcodes,
    kreis_suggestions,
    kreise,
    kreise_within,
    postcode_kreise,
    postcode_point,
    postcodes_within,
)


def _law_of_cosines_km(a: Point, b: Point) -> float:
    # A second formula for the same great circle, written out by hand: the figures below were computed
    # with it from the shipped points, independently of the haversine in the module.
    lat1, lat2 = math.radians(a.lat), math.radians(b.lat)
    cos = math.sin(lat1) * math.sin(lat2) + math.cos(lat1) * math.cos(lat2) * math.cos(math.radians(b.lon - a.lon))
    return 6371.0088 * math.acos(cos)


@pytest.mark.parametrize(
    ("first", "second", "km"),
    [
        # 70173 Stuttgart (48.7726, 9.18) - 80331 München (48.1345, 11.571): about 190 km by air.
        ("70173", "80331", 190.06),
        # 10117 Berlin-Mitte (52.517, 13.3872) - 20095 Hamburg (53.5494, 10.0059).
        ("10117", "20095", 253.54),
        # 50667 Köln (50.9387, 6.9547) - 60311 Frankfurt am Main (50.1112, 8.6831).
        ("50667", "60311", 152.95),
        # 70173 Stuttgart - 72070 Tübingen (48.5241, 9.0177), the radius tests' 30 km tender.
        ("70173", "72070", 30.09),
    ],
)
def test_distances_between_real_postcodes_are_the_hand_computed_ones(first, second, km):
    a, b = postcode_point(first), postcode_point(second)
    assert distance_km(a, b) == pytest.approx(km, abs=0.01)
    assert distance_km(a, b) == pytest.approx(_law_of_cosines_km(a, b), abs=1e-6)
    assert distance_km(b, a) == pytest.approx(distance_km(a, b))


def test_a_postcode_has_its_point_and_kreis():
    assert postcode_point("70173") == Point(48.7726, 9.18)
    assert [kreis.key for kreis in postcode_kreise("80331")] == ["09162"]
    assert postcode_point("00000") is None and postcode_point("7017") is None and postcode_point(None) is None
    assert postcode_kreise("99999") == ()


@pytest.mark.parametrize(
    ("raw", "key", "nuts", "name"),
    [
        ("DE212", "09162", ("DE212",), "München, Kreisfreie Stadt"),
        ("de300", "11000", ("DE300",), "Berlin"),
        ("DEA23", "05315", ("DEA23",), "Köln, Kreisfreie Stadt"),
        ("09184", "09184", ("DE21H",), "München, Landkreis"),
        ("Landkreis München", "09184", ("DE21H",), "München, Landkreis"),
        ("münchen, landkreis", "09184", ("DE21H",), "München, Landkreis"),
        ("DE111", "08111", ("DE111",), "Stuttgart, Stadtkreis"),
        ("Region Hannover", "03241", ("DE929",), "Region Hannover"),
        # Eisenach joined the Wartburgkreis in 2021; its old code and both NUTS versions lead there.
        ("DEG0N", "16063", ("DEG0P", "DEG0R", "DEG0N"), "Wartburgkreis"),
    ],
)
def test_a_kreis_is_found_by_key_nuts_code_or_exact_name(raw, key, nuts, name):
    kreis = kreis_lookup(raw)
    assert (kreis.key, kreis.nuts, kreis.name) == (key, nuts, name)


@pytest.mark.parametrize("raw", ["München", "DE2", "DE21", "12345", "DEZZZ", "", "Atlantis"])
def test_an_ambiguous_or_unknown_kreis_is_not_guessed(raw):
    assert kreis_lookup(raw) is None


def test_every_kreis_has_postcodes_a_point_in_germany_and_its_own_nuts_codes():
    all_kreise = kreise()
    assert len(all_kreise) == 400
    codes = [code for kreis in all_kreise for code in kreis.nuts]
    assert len(codes) == len(set(codes)) == 407  # every German NUTS-3 code of nuts_names.csv, once
    for kreis in all_kreise:
        assert kreis_postcodes(kreis.key), kreis
        assert 47.2 < kreis.point.lat < 55.1 and 5.8 < kreis.point.lon < 15.1, kreis
        assert all(code.startswith("DE") and len(code) == 5 for code in kreis.nuts), kreis
    assert len(kreis_postcodes("11000")) > 150  # Berlin
    assert "80331" in kreis_postcodes("09162") and "80331" not in kreis_postcodes("09184")


def test_postcodes_within_a_radius_are_exactly_those_whose_point_is_near_enough():
    within = postcodes_within("70173", 40.0)
    # From the radius tests: 9.95, 15.93, 30.09 and 36.47 km inside; 41.23, 62.9 and 190.06 km outside.
    assert {"70173", "73728", "71032", "72070", "75175"} <= set(within)
    assert not {"74072", "76133", "80331"} & set(within)
    assert list(within) == sorted(within)
    origin = postcode_point("70173")
    assert all(distance_km(origin, postcode_point(code)) <= 40.0 for code in within)
    assert postcodes_within("00000", 50.0) == ()


def test_kreise_within_a_radius_are_judged_by_their_point():
    keys = {kreis.key for kreis in kreise_within("70173", 40.0)}
    # Stuttgart 0.44 km, Göppingen 38.51 km inside; Stadtkreis Heilbronn 41.74 km outside.
    assert {"08111", "08117"} <= keys and "08121" not in keys
    assert kreis_by_key("08121").nuts == ("DE117",)


@pytest.mark.parametrize(
    "term, keys",
    [
        ("München", ["09162", "09184"]),
        ("muench land", ["09184"]),  # every word the start of a word of the name, umlauts as typed
        ("Landkreis München", ["09184"]),
        ("09162", ["09162"]),
        ("DE212", ["09162"]),
        ("Deg", ["09271"]),  # Deggendorf, not the NUTS codes DEG…
        ("<script>", []),
        ("   ", []),
    ],
)
def test_kreis_suggestions_by_name_key_or_nuts_code(term, keys):
    assert [kreis.key for kreis in kreis_suggestions(term)] == keys


def test_kreis_suggestions_are_bounded_and_led_by_names_that_start_with_the_word():
    assert kreis_suggestions("DE", limit=5)[0].name == "Deggendorf"  # no digit: the start of a name
    assert len(kreis_suggestions("0", limit=5)) == 5
    assert kreis_suggestions("Neustadt")[0].name.startswith("Neustadt")
