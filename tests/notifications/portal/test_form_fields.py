"""``{% form_field %}`` (notifications.templatetags.form_fields) gives the HTML ``portal/_field.html`` gave.

``OLD_FIELD`` is that template, rendered by Django's engine for the same bound fields: every field of the search
form and the profile and triage forms, empty, filled with hostile text, with errors, in German and English.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.template import engines
from django.utils import translation

from notifications.portal.forms import SavedSearchForm, SearchForm, TriageForm, bound_form, parse_search
from notifications.templatetags.form_fields import form_field

OLD_FIELD = """{% load i18n %}<div class="field{% if field.errors %} has-error{% endif %}" data-field="{{ field.name }}">
  {% if field.widget_type == 'checkboxselectmultiple' %}
    <fieldset><legend>{{ field.label }}</legend>{{ field }}</fieldset>
  {% elif field.widget_type == 'chippicker' %}
    {% include "portal/_chip_picker.html" %}
  {% else %}
    <label for="{{ field.id_for_label }}">{{ field.label }}</label>
    {{ field }}
  {% endif %}
  {% if field.help_text %}<small class="muted" id="{{ field.auto_id }}_help">{{ field.help_text }}</small>{% endif %}
  {% for error in field.errors %}<p class="error" role="alert">{{ error }}</p>{% endfor %}
</div>
"""  # noqa: E501

HOSTILE = "<script>alert(\"x\")</script> & 'q'"
SEARCHES = [
    "",
    "q=Reinigung&status=active&status=expired&bundesland=Bayern&cpv=45&cpv=90911200&kreis=09162&order=deadline",
    urlencode({"q": HOSTILE, "plz": "8", "umkreis_plz": "80331", "umkreis_km": "25", "value_min": "1000"})
    + "&value_max=5000&portal=doe&triage=neu",
    "plz=abc&value_min=-5&deadline_until=gestern&umkreis_km=9999&cpv=999&kreis=Atlantis&order=unknown",
]


def _old(field) -> str:
    return engines["django"].from_string(OLD_FIELD).render({"field": field})


def _search_forms():
    for raw in SEARCHES:
        params = QueryDict(raw)
        parsed = parse_search(params)
        yield bound_form(SearchForm, params, portals=[("doe", "DÖE <OpenData>")], errors=parsed.errors)


def _other_forms():
    yield SavedSearchForm()
    yield SavedSearchForm({"name": HOSTILE, "is_shared": "on"})
    yield SavedSearchForm({"name": ""})  # required: an error
    yield TriageForm({"status": "pruefung", "note": HOSTILE})
    yield TriageForm({"status": "nonsense", "note": "x" * 5000})


@pytest.mark.parametrize("language", ["de", "en"])
def test_every_field_renders_as_the_template_did(db, language):
    with translation.override(language):
        forms = [*_search_forms(), *_other_forms()]
        fields = [form[name] for form in forms for name in form.fields]
        assert any(field.errors for field in fields) and any(field.help_text for field in fields)
        assert {field.widget_type for field in fields} >= {"checkboxselectmultiple", "chippicker", "select", "text"}
        for field in fields:
            assert str(form_field(field)) == _old(field), field.name


def test_hostile_text_is_escaped(db):
    form = SavedSearchForm({"name": HOSTILE})
    html = str(form_field(form["name"]))
    assert "<script>" not in html and "&lt;script&gt;" in html
