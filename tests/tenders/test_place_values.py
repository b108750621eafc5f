"""Parsing the place filters (pure): Kreis by key, NUTS-3 code or name; radius postcode and km, both or neither."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from tenders.filters import FilterError, TenderFilters, parse_filters


def test_kreise_are_stored_by_key_whatever_names_them():
    filters = parse_filters(QueryDict("kreis=DE212&kreis=Landkreis München,09162&kreis=DEA23"))
    assert filters.kreis == ("09162", "09184", "05315")
    # A name with its comma is one Kreis, not two unknown words.
    assert parse_filters(QueryDict("kreis=München, Landkreis&kreis=DE212, 08111")).kreis == ("09184", "09162", "08111")


def test_a_radius_takes_a_known_postcode_and_whole_km():
    filters = parse_filters(QueryDict("umkreis_plz=70173&umkreis_km=50 km"))
    assert (filters.umkreis_plz, filters.umkreis_km) == ("70173", 50)
    assert TenderFilters.from_json(filters.to_json()) == filters
    assert parse_filters(QueryDict("&".join(f"{k}={v}" for k, v in filters.to_params()))) == filters


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("kreis=München", "kreis", "Unbekannter Landkreis bzw. kreisfreie Stadt 'München'"),
        ("kreis=DE2ZZ", "kreis", "Unbekannter Landkreis"),
        ("umkreis_plz=00000&umkreis_km=50", "umkreis_plz", "Die PLZ 00000 ist nicht bekannt"),
        ("umkreis_plz=7017&umkreis_km=50", "umkreis_plz", "die PLZ hat 5 Ziffern"),
        ("umkreis_plz=70173", "umkreis_km", "bitte die Entfernung in km angeben (1 bis 300)"),
        ("umkreis_km=50", "umkreis_plz", "bitte die PLZ angeben"),
        ("umkreis_plz=70173&umkreis_km=0", "umkreis_km", "von 1 bis 300 km"),
        ("umkreis_plz=70173&umkreis_km=301", "umkreis_km", "von 1 bis 300 km"),
        ("umkreis_plz=70173&umkreis_km=12.5", "umkreis_km", "von 1 bis 300 km"),
    ],
)
def test_place_input_a_user_must_fix_is_refused_with_a_clear_message(query, field, message):
    with pytest.raises(FilterError) as caught:
        parse_filters(QueryDict(query))
    assert message in caught.value.errors[field]


def test_stored_place_filters_are_read_by_the_same_rules():
    assert TenderFilters.from_json({"kreis": ["DE300"], "umkreis_plz": "80331", "umkreis_km": 80}) == TenderFilters(
        kreis=("11000",), umkreis_plz="80331", umkreis_km=80
    )
    with pytest.raises(FilterError):
        TenderFilters.from_json({"umkreis_plz": "80331"})
