"""Form, saved-search summary, error hints and API parameters are all built from ``tenders.filter_fields``."""

from django.http import QueryDict
from django.utils import translation

from notifications.api.filter_schema import FILTER_PARAMETERS, TenderFiltersSerializer
from notifications.api.serializers import FILTER_KEYS
from notifications.portal.formatting import FILTER_LABELS
from notifications.portal.forms import _ERROR_HINTS, FilterForm, SearchForm, bound_form, parse_search
from tenders.filter_fields import FILTER_FIELDS, FILTER_NAMES


def test_form_api_parameters_schema_summary_and_hints_list_the_declared_fields():
    declared = list(FILTER_NAMES)
    assert list(FilterForm.base_fields) == declared
    assert list(SearchForm.base_fields)[: len(declared)] == declared
    assert [parameter.name for parameter in FILTER_PARAMETERS] == declared
    assert list(TenderFiltersSerializer().fields) == declared
    assert list(FILTER_KEYS) == declared
    assert list(FILTER_LABELS) == declared
    assert set(declared) <= set(_ERROR_HINTS)


def test_the_form_shows_the_declared_labels_widgets_and_choices():
    form = FilterForm(portals=[("ted", "TED")])
    for field in FILTER_FIELDS:
        assert form.fields[field.name].label == field.label
    assert form.fields["portal"].choices == [("ted", "TED")]
    assert ("active", "laufend") in form.fields["status"].choices
    assert form.fields["plz"].widget.attrs["inputmode"] == "numeric"
    assert form.fields["deadline_until"].widget.input_type == "date"
    assert form.fields["q"].widget.input_type == "search"


def test_an_error_on_an_english_page_shows_the_declared_hint():
    params = QueryDict("plz=8x&deadline_days=0")
    errors = parse_search(params).errors
    with translation.override("en"):
        form = bound_form(FilterForm, params, portals=[], errors=errors)
        assert form.errors["plz"] == ["Postcode prefix: 1 to 5 digits."]
        assert form.errors["deadline_days"] == [str(_ERROR_HINTS["deadline_days"])] != [errors["deadline_days"]]
    with translation.override("de"):
        form = bound_form(FilterForm, params, portals=[], errors=errors)
        assert form.errors["plz"] == [errors["plz"]]
