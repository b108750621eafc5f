"""Bounds of filter input (pure): what PostgreSQL could not take is refused with a German message."""

from decimal import Decimal

import pytest
from django.http import QueryDict

from tenders.filter_limits import VALUE_MAX
from tenders.filters import FilterError, TenderFilters, effective_filters, filters_checked, parse_filters
from tenders.models import Tender


def _errors(params) -> dict[str, str]:
    with pytest.raises(FilterError) as caught:
        parse_filters(params)
    return caught.value.errors


def test_the_amount_bound_is_the_tender_value_column():
    column = Tender._meta.get_field("estimated_value")
    whole_digits = column.max_digits - column.decimal_places
    assert Decimal(10) ** whole_digits - Decimal(1).scaleb(-column.decimal_places) == VALUE_MAX


@pytest.mark.parametrize("typed", ["1e131072", "10000000000000000", "1E+17"])
def test_amounts_beyond_the_column_are_refused(typed):
    errors = _errors(QueryDict(f"value_min={typed}"))
    assert "höchstens 9.999.999.999.999.999,99 €" in errors["value_min"]


def test_the_largest_storable_amount_is_accepted():
    assert parse_filters(QueryDict("value_max=9999999999999999.99")).value_max == VALUE_MAX


@pytest.mark.parametrize("name", ["q", "cpv", "bundesland", "plz", "value_min", "deadline_until", "status", "portal"])
@pytest.mark.parametrize("bad", ["\x00", "\x1b[31m", "\x7f", "\x85", "\ud800"])
def test_control_characters_and_surrogates_are_refused_in_every_parameter(name, bad):
    errors = _errors({name: [f"Dach{bad}"]})
    assert errors == {name: "Enthält unzulässige Steuerzeichen (z. B. ein Null-Byte)."}


def test_tabs_and_line_breaks_in_keywords_count_as_spaces():
    assert parse_filters({"q": ["Dach\tSanierung\r\nSchule"]}).q == "Dach Sanierung Schule"


def test_over_long_keywords_are_refused_not_cut():
    assert parse_filters({"q": ["x" * 300]}).q == "x" * 300
    assert _errors({"q": ["x" * 301]}) == {"q": "Zu lang: höchstens 300 Zeichen."}


def test_over_long_values_and_too_many_values_are_refused():
    assert _errors({"portal": ["p" * 101]}) == {"portal": "Zu lang: höchstens 100 Zeichen."}
    assert _errors({"cpv": ["45000000"] * 101}) == {"cpv": "Höchstens 100 Werte."}
    # One field with many comma-separated codes is fine up to the same count.
    assert len(parse_filters({"cpv": [", ".join(["45000000"] * 100)]}).cpv) == 1


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"deadline_days": ["²"]}, "deadline_days"),  # str.isdigit() is true for superscripts, int() is not
        ({"deadline_days": ["99999999999999999999"]}, "deadline_days"),
        ({"plz": ["٣٣"]}, "plz"),
        ({"published_since": ["0001-01-01"]}, "published_since"),
        ({"deadline_until": ["9999-12-31"]}, "deadline_until"),
        ({"deadline_until": ["2026-W01-1"]}, "deadline_until"),
    ],
)
def test_numbers_and_dates_outside_their_range_are_refused(params, name):
    assert set(_errors(params)) == {name}


def test_stored_filters_are_checked_by_the_same_rules_when_loaded():
    with pytest.raises(FilterError) as caught:
        TenderFilters.from_json({"value_min": "1e131072", "q": "Dach\x00"})
    assert set(caught.value.errors) == {"value_min", "q"}
    with pytest.raises(FilterError):
        TenderFilters.from_json(["not", "an", "object"])


def test_filters_built_in_code_are_checked_before_they_are_stored():
    with pytest.raises(FilterError):
        filters_checked(TenderFilters(value_min=Decimal("1e131072")))
    with pytest.raises(FilterError):
        filters_checked(TenderFilters(q="Dach\x00"))
    assert filters_checked(TenderFilters(q="Dach")) == TenderFilters(q="Dach")


def test_alerts_and_previews_see_open_tenders_unless_a_status_is_named():
    assert effective_filters(TenderFilters(q="Dach")).status == ("active",)
    assert effective_filters(TenderFilters(q="Dach", status=("awarded",))).status == ("awarded",)
