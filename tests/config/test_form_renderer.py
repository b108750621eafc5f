"""config.form_renderer writes Django's standard widget templates in Python: the same bytes, escaped alike.

Every field of every form the project declares is rendered by both renderers (unbound, bound with data,
with errors, with hostile text), then every page a signed-in company admin or an operator can open
without arguments; a difference anywhere fails.
"""

from __future__ import annotations

import copy
import datetime
import importlib
import re
from decimal import Decimal

import pytest
from django import forms
from django.contrib import admin
from django.contrib.auth import forms as auth_forms
from django.forms.models import ModelChoiceField, ModelChoiceIteratorValue
from django.forms.renderers import DjangoTemplates, get_default_renderer
from django.forms.utils import ErrorDict
from django.forms.widgets import ChoiceWidget
from django.test import override_settings
from django.utils import timezone, translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

from config.form_renderer import FormRenderer
from tests.config.architecture import BASE_DIR
from tests.fixtures.tenants import operator_sign_in
from tests.tenders.search_corpus import ingest_corpus
from tests.url_routes import tenant_routes

PROJECT_PACKAGES = ("kernel", "accounts", "config", "notifications", "sources", "tenders")
HOSTILE = "<script>alert(\"x\")</script> & 'q'"
DJANGO = DjangoTemplates()
FAST = FormRenderer()
# A class statement whose bases name a form ("forms.Form", "forms.ModelForm", "AuthenticationForm" …).
_FORM_CLASS = re.compile(r"^class \w+\([^)]*Form\b[^)]*\):", re.MULTILINE)


def _project_form_classes() -> list[type[forms.BaseForm]]:
    for package in PROJECT_PACKAGES:
        for path in sorted((BASE_DIR / package).rglob("*.py")):
            if "migrations" not in path.parts and _FORM_CLASS.search(path.read_text(encoding="utf-8")):
                importlib.import_module(".".join(path.relative_to(BASE_DIR).with_suffix("").parts))

    def walk(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from walk(sub)

    return sorted(
        {
            cls
            for cls in walk(forms.BaseForm)
            if cls.__module__.split(".")[0] in PROJECT_PACKAGES or cls.__module__ == auth_forms.__name__
        },
        key=lambda cls: f"{cls.__module__}.{cls.__qualname__}",
    )


FORM_CLASSES = _project_form_classes()

# Choices a model field would list, without a query: the values are what ModelChoiceField hands the widget.
_MODEL_CHOICES = [
    ("", "---------"),
    (ModelChoiceIteratorValue(1, None), "Erster <Eintrag>"),
    (ModelChoiceIteratorValue(22, None), 'Zweiter "Eintrag"'),
]


# A callable initial's first value per form and field, so that both renderers are given the same one.
_FIXED_INITIALS: dict[tuple[type, str], object] = {}


def _form(form_class: type[forms.BaseForm], renderer, data=None) -> forms.BaseForm:
    """The form without its own ``__init__`` (some need a user or a tenant's portals): its declared fields only."""
    form = form_class.__new__(form_class)
    forms.BaseForm.__init__(form, data=data, renderer=renderer)
    for name, field in form.fields.items():
        if callable(field.initial):  # e.g. date_joined's timezone.now: the two renderings may fall in two seconds
            field.initial = _FIXED_INITIALS.setdefault((form_class, name), field.initial())
        if isinstance(field, ModelChoiceField):
            field.choices = _MODEL_CHOICES
        elif isinstance(field, forms.ChoiceField) and not list(field.choices):
            field.choices = [("a", "A"), ("b", HOSTILE)]
    return form


def _choice_values(field: forms.Field) -> list[str]:
    values = []
    for value, label in field.choices:
        if isinstance(label, list | tuple):  # an optgroup
            values.extend(str(inner) for inner, _label in label)
        else:
            values.append(str(value))
    return [value for value in values if value][:2]


def _data(form: forms.BaseForm, *, hostile: bool) -> dict[str, object]:
    data = {}
    for name, field in form.fields.items():
        if isinstance(field.widget, forms.CheckboxInput):
            data[name] = "on"
        elif isinstance(field, forms.ChoiceField):
            chosen = _choice_values(field)
            if hostile:
                chosen = [*chosen[:1], HOSTILE]
            data[name] = chosen if isinstance(field, forms.MultipleChoiceField) else (chosen or [""])[0]
        else:
            data[name] = HOSTILE if hostile else "Wert 1"
    return data


def _rendered(form_class, renderer, state: str) -> dict[str, str]:
    form = _form(form_class, renderer)
    if state != "unbound":
        form = _form(form_class, renderer, data=_data(form, hostile=state == "hostile"))
        form._errors, form.cleaned_data = ErrorDict(), {}  # shown as invalid without running its clean()
        for name in form.fields:
            form.add_error(name, f"Fehler in {name}")
    return {name: str(form[name]) for name in form.fields}


def test_the_project_forms_are_found():
    names = {cls.__name__ for cls in FORM_CLASSES}
    assert {"SearchForm", "SavedSearchForm", "TriageForm", "SmtpSettingsForm", "MailboxSettingsForm"} <= names
    assert {"WebhookCreateForm", "InviteForm", "EmailAuthenticationForm", "SourceForm", "SetPasswordForm"} <= names


def test_the_site_renders_forms_with_it():
    assert isinstance(get_default_renderer(), FormRenderer)


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("state", ["unbound", "bound", "hostile"])
@pytest.mark.parametrize("form_class", FORM_CLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_field_of_every_form_renders_the_same(form_class, state, language):
    with translation.override(language):
        assert _rendered(form_class, FAST, state) == _rendered(form_class, DJANGO, state)


class _Picker(forms.CheckboxSelectMultiple):
    option_template_name = "django/forms/widgets/input.html"  # not an option template: left to the engine


_WIDGETS = [
    forms.TextInput(attrs={"placeholder": HOSTILE, "data-n": 1234567, "data-t": (1, "a")}),
    forms.NumberInput(attrs={"step": Decimal("0.5"), "min": 0}),
    forms.EmailInput(attrs={"autocomplete": "email", "class": mark_safe("a&amp;b")}),
    forms.URLInput(),
    forms.ColorInput(),
    forms.SearchInput(attrs={"type": "search", "required": True, "disabled": False}),
    forms.TelInput(),
    forms.PasswordInput(render_value=True),
    forms.HiddenInput(),
    forms.FileInput(),
    forms.Textarea(attrs={"rows": 3}),
    forms.DateInput(attrs={"type": "date"}),
    forms.DateTimeInput(),
    forms.TimeInput(),
    forms.CheckboxInput(),
    forms.Select(),
    forms.NullBooleanSelect(),
    forms.SelectMultiple(attrs={"size": 4}),
    forms.RadioSelect(attrs={"class": "inline"}),
    forms.CheckboxSelectMultiple(),
    _Picker(),
    # These stay templates (they include their parts by name); the renderer must pass them through.
    forms.MultipleHiddenInput(),
    forms.ClearableFileInput(),
    forms.SplitDateTimeWidget(),
    forms.SelectDateWidget(years=[2025, 2026]),
]
_CHOICES = [
    ("", "---------"),
    (1, 1234),
    ("b", gettext_lazy("Sortierung")),
    ("c", mark_safe("<em>sicher</em>")),
    (HOSTILE, HOSTILE),
    (ModelChoiceIteratorValue(7, None), "Modell"),
    ("Gruppe <1>", [("g1", "Eins"), (Decimal("2.5"), 2.5)]),
    (None, [("g3", "ohne Namen")]),
]
_VALUES = [
    None,
    "",
    "Text",
    HOSTILE,
    mark_safe("<b>fett</b>"),
    gettext_lazy("Sortierung"),
    0,
    1234567,
    Decimal("1234.5"),
    1.5,
    True,
    False,
    datetime.date(2026, 3, 4),
    timezone.make_aware(datetime.datetime(2026, 3, 4, 5, 6)),
    ["b", 1, "g1"],
    [HOSTILE],
]


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("widget", _WIDGETS, ids=lambda widget: type(widget).__name__)
def test_every_standard_widget_renders_the_same(widget, language):
    if isinstance(widget, ChoiceWidget):
        widget = copy.deepcopy(widget)
        widget.choices = _CHOICES
    with translation.override(language):
        for value in _VALUES:
            for attrs in (None, {"id": "id_feld"}, {"id": HOSTILE, "aria-invalid": "true", "required": True}):
                assert _outcome(widget, value, attrs, FAST) == _outcome(widget, value, attrs, DJANGO), (value, attrs)


def _outcome(widget, value, attrs, renderer) -> str:
    try:
        return widget.render("feld", value, attrs, renderer=renderer)
    except (TypeError, AttributeError) as error:  # a value the widget cannot take (a list for yes/no) fails alike
        return repr(error)


def test_text_from_users_is_escaped():
    widget = forms.Select(choices=[(HOSTILE, HOSTILE)], attrs={"data-x": HOSTILE})
    html = widget.render("feld", HOSTILE, renderer=FAST)
    escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;q&#x27;"
    assert html == (
        f'<select name="feld" data-x="{escaped}">\n  <option value="{escaped}" selected>{escaped}</option>\n\n</select>'
    )
    assert "<script>" not in forms.TextInput().render(HOSTILE, HOSTILE, {"id": HOSTILE}, renderer=FAST)


def test_standard_widgets_skip_the_template_engine(monkeypatch):
    def no_template(self, template_name):
        raise AssertionError(f"{template_name} went through the template engine")

    monkeypatch.setattr(FormRenderer, "get_template", no_template)
    for widget in (forms.TextInput(), forms.Textarea(), forms.CheckboxSelectMultiple(choices=_CHOICES)):
        widget.render("feld", "b", renderer=FAST)
    forms.Select(choices=_CHOICES).render("feld", "b", renderer=FAST)


def test_a_callable_value_is_left_to_the_template_engine():
    # The engine calls what it looks up; the Python path does not pretend to.
    widget = forms.TextInput(attrs={"data-x": lambda: "gerufen"})
    assert widget.render("feld", "v", renderer=FAST) == widget.render("feld", "v", renderer=DJANGO)
    assert 'data-x="gerufen"' in widget.render("feld", "v", renderer=FAST)


@pytest.fixture
def corpus(db) -> dict[str, int]:
    return ingest_corpus(timezone.now())


_TOKENS = re.compile(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": "|nonce=")[^"]*"')


def _page(client, url: str, renderer: str) -> tuple[int, str]:
    with override_settings(FORM_RENDERER=renderer):
        response = client.get(url)
    content = b"".join(response) if response.streaming else response.content
    return response.status_code, _TOKENS.sub(r'\1"', content.decode(errors="replace"))


def _same_pages(client, urls: list[str]) -> list[str]:
    compared = []
    for url in urls:
        fast = _page(client, url, "config.form_renderer.FormRenderer")
        assert fast == _page(client, url, "django.forms.renderers.DjangoTemplates"), url
        if fast[0] == 200:
            compared.append(url)
    return compared


def test_the_search_page_is_the_same_with_data_and_errors(alpha_client, corpus):
    urls = [
        "/suche/",
        "/suche/?q=Stra%C3%9Fenbau&bundesland=Bayern&order=deadline&triage=neu",
        "/suche/?q=%3Cscript%3E%22&plz=8x&value_min=viel&status=geheim&portal=%3Cb%3E&cpv=abc",
    ]
    assert _same_pages(alpha_client, urls) == urls[:2]  # the third is refused (400) with its errors shown


def test_every_tenant_page_without_arguments_is_the_same(alpha_admin_client, corpus):
    urls = [route.url({}) for route in tenant_routes() if route.buildable and not route.kwargs and not route.is_api]
    compared = _same_pages(alpha_admin_client, urls)
    assert {"/suche/", "/suchprofile/neu/", "/einstellungen/smtp/", "/einstellungen/postfach/"} <= set(compared)


def test_every_console_page_without_arguments_is_the_same(public_client):
    operator_client = operator_sign_in(public_client)
    urls = ["/admin/"]
    for model, _model_admin in admin.site._registry.items():
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        urls += [base, f"{base}add/"]
    compared = _same_pages(operator_client, urls)
    assert {"/admin/sources/source/add/", "/admin/auth/user/add/", "/admin/tenders/tender/"} <= set(compared)
