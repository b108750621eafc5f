"""The filter declaration is the one list: the value type and the parser follow it."""

from dataclasses import fields

from django.http import QueryDict

from tenders.filter_fields import FILTER_FIELDS, FILTER_NAMES
from tenders.filters import FILTER_PARAMETERS, TenderFilters, parse_filters


def test_the_filters_value_has_exactly_the_declared_fields_in_order():
    assert tuple(f.name for f in fields(TenderFilters)) == FILTER_NAMES
    assert FILTER_PARAMETERS == FILTER_NAMES
    assert len(set(FILTER_NAMES)) == len(FILTER_NAMES)


def test_every_declared_field_is_parsed_by_its_parser():
    typed = {
        "q": "Dach",
        "q_scope": "title",
        "cpv": "45",
        "bundesland": "bayern",
        "plz": "80",
        "kreis": "DE212",
        "umkreis_plz": "70173",
        "umkreis_km": "50",
        "value_min": "1.000",
        "value_max": "2000",
        "deadline_days": "30",
        "deadline_until": "2030-01-31",
        "published_since": "2025-01-01",
        "status": "active",
        "portal": "ted",
    }
    assert set(typed) == set(FILTER_NAMES)  # a new field needs a typed value here
    filters = parse_filters(QueryDict("&".join(f"{k}={v}" for k, v in typed.items())))
    assert all(getattr(filters, name) not in (None, "", ()) for name in FILTER_NAMES)
    assert parse_filters(QueryDict("&".join(f"{k}={v}" for k, v in filters.to_params()))) == filters


def test_every_declared_field_has_what_form_api_and_hints_need():
    for field in FILTER_FIELDS:
        assert field.description and str(field.label) and str(field.hint) and str(field.summary), field.name
        assert (field.widget in ("select", "checkboxes", "chips")) == bool(field.choices), field.name
