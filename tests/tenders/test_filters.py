"""Parsing of filter parameters (pure): what users type in the portal or send to the API."""

from decimal import Decimal

import pytest
from django.http import QueryDict

from kernel.vocabulary.cpv import cpv_prefix
from kernel.vocabulary.search_words import websearch_text
from tenders.filters import FilterError, TenderFilters, parse_filters


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("100000", Decimal("100000")),
        ("100.000", Decimal("100000")),
        ("1.000.000,50", Decimal("1000000.50")),
        ("2500,5", Decimal("2500.5")),
        ("1.5", Decimal("1.5")),
        ("250 000 €", Decimal("250000")),
    ],
)
def test_values_accept_german_and_plain_numbers(typed, expected):
    assert parse_filters(QueryDict(f"value_min={typed}")).value_min == expected


def test_every_problem_is_reported_at_once():
    with pytest.raises(FilterError) as caught:
        parse_filters(QueryDict("cpv=12&bundesland=Atlantis&plz=8x&value_min=abc&deadline_days=0&status=open"))
    assert set(caught.value.errors) == {"cpv", "bundesland", "plz", "value_min", "deadline_days", "status"}


def test_filters_round_trip_through_json_and_url_params():
    filters = parse_filters(
        QueryDict("q=Dach -Asbest&cpv=45000000&cpv=72212000-4&bundesland=bayern&plz=80&value_max=1.000.000,00")
    )
    assert filters.cpv == ("45000000", "72212000")
    assert filters.bundesland == ("Bayern",)
    assert TenderFilters.from_json(filters.to_json()) == filters
    assert parse_filters(QueryDict("&".join(f"{k}={v}" for k, v in filters.to_params()))) == filters


def test_cpv_hierarchy_follows_trailing_zeros():
    assert cpv_prefix("45000000") == "45"
    assert cpv_prefix("45200000") == "452"
    assert cpv_prefix("45261210") == "4526121"  # its children 45261211… are Dacharbeiten too
    assert cpv_prefix("45261214") == "45261214"


def test_umlaut_spellings_are_expanded_but_phrases_and_exclusions_kept():
    assert websearch_text("Muell") == "Muell or müll"
    assert websearch_text('"Straße und Weg" -Asbest') == '"Straße und Weg" -Asbest'
