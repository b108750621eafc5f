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


def _search_form(raw: str, portals=(("doe", "DÖE OpenData"),)):
    params = QueryDict(raw)
    return bound_form(SearchForm, params, portals=list(portals), errors=parse_search(params).errors)


def test_a_search_fields_block_is_kept_and_given_again(db, monkeypatch):
    import notifications.templatetags.form_fields as module

    first = form_field(_search_form("q=Reinigung")["bundesland"])
    monkeypatch.setattr(module, "_field_block", lambda field: pytest.fail(f"{field.name} rendered again"))
    assert form_field(_search_form("q=Reinigung&plz=8")["bundesland"]) is first


def test_a_kept_block_is_only_given_for_the_same_value_choices_errors_and_language(db):
    base = form_field(_search_form("")["q"])
    typed = form_field(_search_form(urlencode({"q": HOSTILE}))["q"])
    assert typed != base and "&lt;script&gt;" in typed and "<script>" not in typed
    # another tenant's portals are other choices: their names never come from a kept block
    ours = form_field(_search_form("")["portal"])
    theirs = form_field(_search_form("", portals=[("netserver-x", "Vergabeportal Beispielstadt")])["portal"])
    assert "DÖE OpenData" in ours and "Beispielstadt" not in ours
    assert "Beispielstadt" in theirs and "DÖE" not in theirs
    plain = form_field(_search_form("plz=8")["plz"])
    flagged = bound_form(SearchForm, QueryDict("plz=8"), portals=[], errors={"plz": "Diese PLZ gibt es nicht."})
    assert 'class="error"' not in plain and "Diese PLZ gibt es nicht." in form_field(flagged["plz"])
    with translation.override("en"):
        english = form_field(_search_form("")["order"])
    with translation.override("de"):
        german = form_field(_search_form("")["order"])
    assert english != german and "Relevanz" in german and "Relevanz" not in english


def test_forms_that_do_not_promise_it_are_rendered_each_time(db, monkeypatch):
    import notifications.templatetags.form_fields as module

    form_field(SavedSearchForm({"name": "Reinigung"})["name"])
    rendered = []
    real = module._field_block
    monkeypatch.setattr(module, "_field_block", lambda field: rendered.append(field.name) or real(field))
    form_field(SavedSearchForm({"name": "Reinigung"})["name"])
    assert rendered == ["name"]


def test_the_kept_blocks_are_bounded(db, monkeypatch):
    import notifications.templatetags.form_fields as module

    monkeypatch.setattr(module, "REMEMBERED_BLOCKS", 5)
    for number in range(12):
        form_field(_search_form(f"q=Wort{number}")["q"])
    assert len(module._remembered) <= 5
    assert any(key[6] == "Wort11" for key in module._remembered)
