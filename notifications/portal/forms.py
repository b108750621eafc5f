"""Forms of the portal.

The search filters are *rendered* by ``FilterForm``, built from their declaration
(``tenders.filter_fields``), but *validated* only by ``tenders.filters.parse_filters``:
one rule set for portal, API and matching.
``parse_search`` returns the parsed filters plus a form carrying the errors.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.conf import settings
from django.forms.utils import ErrorDict
from django.http import QueryDict
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from kernel.vocabulary.regions import BUNDESLAENDER
from notifications.models import TriageStatus
from notifications.portal.services import NAME_MAX_LENGTH, NOTE_MAX_LENGTH
from tenders.filter_fields import FILTER_FIELDS, Q_SCOPE_CHOICES, FilterField
from tenders.filters import DEFAULT_STATUSES, FilterError, TenderFilters, parse_filters
from tenders.models import TENDER_STATUS_CHOICES

ORDER_CHOICES = [
    ("relevance", _("Relevanz")),
    ("deadline", _("Frist (nächste zuerst)")),
    ("published", _("Veröffentlichung (neueste zuerst)")),
]

# Shown instead of the parser's German messages when the page is not German; the filters' hints
# come from their declaration, the result list adds its own parameters.
_ERROR_HINTS = {
    **{field.name: field.hint for field in FILTER_FIELDS},
    "triage": _("Bitte eine Bewertung aus der Liste wählen."),
}


def _message(name: str, message: str) -> str:
    if (get_language() or "de").startswith("de") or name not in _ERROR_HINTS:
        return message
    return str(_ERROR_HINTS[name])


def filter_error_messages(errors: dict[str, str]) -> dict[str, str]:
    """The parser's messages in the page's language (German as written, hints otherwise)."""
    return {name: _message(name, message) for name, message in errors.items()}


def _choices(vocabulary: str) -> list[tuple[str, str]]:
    """Options of a declared choice field; "sources" are the tenant's, set per form instance."""
    if vocabulary == "bundeslaender":
        return [(name, name) for name in sorted(BUNDESLAENDER.values())]
    if vocabulary == "statuses":
        return list(TENDER_STATUS_CHOICES)
    if vocabulary == "q_scopes":
        return list(Q_SCOPE_CHOICES)
    return []


class ChipPicker(forms.SelectMultiple):
    """A type-ahead picker whose chosen values are chips (``templates/portal/_chip_picker.html``).

    The value is the list of chosen values as typed; the template shows each as a chip with its
    label (``notifications.portal.filter_chips``) and the search input beside them.
    """

    def __init__(self, *, vocabulary: str, placeholder="", attrs=None):
        super().__init__(attrs=attrs)
        self.vocabulary = vocabulary
        self.placeholder = placeholder


def _form_field(field: FilterField) -> forms.Field:
    """The portal input of one declared filter; the form only displays, ``parse_filters`` validates."""
    options = {"label": field.label, "required": False, "help_text": field.help_text}
    if field.widget == "chips":
        widget = ChipPicker(vocabulary=field.choices, placeholder=field.placeholder)
        return forms.MultipleChoiceField(widget=widget, **options)
    if field.widget == "select":
        widget = forms.SelectMultiple(attrs={"size": 4})
        return forms.MultipleChoiceField(choices=_choices(field.choices), widget=widget, **options)
    if field.widget == "checkboxes":
        return forms.MultipleChoiceField(
            choices=_choices(field.choices), widget=forms.CheckboxSelectMultiple, **options
        )
    attrs = {
        "search": {"type": "search"},
        "numeric": {"inputmode": "numeric"},
    }.get(field.widget, {})
    if field.placeholder:
        attrs["placeholder"] = field.placeholder
    widget = forms.DateInput(attrs={"type": "date"}) if field.widget == "date" else forms.TextInput(attrs=attrs)
    return forms.CharField(max_length=field.max_length, widget=widget, **options)


class _FilterFormBase(forms.Form):
    # A field's HTML follows from its name, value, errors and choices (``{% form_field %}`` keeps it):
    # no field of these forms takes attributes or labels per instance, only the portals' choices.
    fields_render_alike = True

    def __init__(self, *args, portals: list[tuple[str, str]] = (), **kwargs):
        super().__init__(*args, **kwargs)
        for field in FILTER_FIELDS:
            if field.choices == "sources":
                self.fields[field.name].choices = list(portals)

    def full_clean(self):
        # Validation belongs to tenders.filters.parse_filters; this form only displays values and errors.
        self._errors = ErrorDict()
        self.cleaned_data = {}

    def show_errors(self, errors: dict[str, str]) -> None:
        for name, message in errors.items():
            self.add_error(name if name in self.fields else None, _message(name, message))


# The filter fields with the URL parameter names of ``TenderFilters``, in declaration order.
FilterForm = type(
    "FilterForm",
    (_FilterFormBase,),
    {"__module__": __name__, **{field.name: _form_field(field) for field in FILTER_FIELDS}},
)


class SearchForm(FilterForm):
    """The filters plus what only the result list has: the user's triage and the sort order."""

    triage = forms.MultipleChoiceField(
        label=_("Meine Bewertung"), required=False, choices=TriageStatus.choices, widget=forms.CheckboxSelectMultiple
    )
    order = forms.ChoiceField(label=_("Sortierung"), required=False, choices=ORDER_CHOICES)


@dataclass(frozen=True)
class ParsedSearch:
    filters: TenderFilters
    triage: tuple[str, ...]
    order: str
    errors: dict[str, str]

    @property
    def is_valid(self) -> bool:
        return not self.errors


def parse_triage(params) -> tuple[tuple[str, ...], dict[str, str]]:
    values = [value for raw in params.getlist("triage") for value in raw.split(",") if value.strip()]
    unknown = [value for value in values if value not in TriageStatus.values]
    if unknown:
        return (), {"triage": f"Unbekannte Bewertung {unknown[0]!r}."}
    return tuple(dict.fromkeys(values)), {}


def parse_search(params) -> ParsedSearch:
    """Filters, triage and order from a QueryDict; on errors the filters are empty and errors say why."""
    errors: dict[str, str] = {}
    try:
        filters = parse_filters(params)
    except FilterError as exc:
        filters, errors = TenderFilters(), dict(exc.errors)
    triage, triage_errors = parse_triage(params)
    errors.update(triage_errors)
    order = params.get("order") or ""
    return ParsedSearch(filters, triage, order, errors)


def search_params(parsed: ParsedSearch) -> list[tuple[str, str]]:
    """URL parameters reproducing a search (filters, triage, order), for links, pagination and exports."""
    params = parsed.filters.to_params() + [("triage", value) for value in parsed.triage]
    if parsed.order:
        params.append(("order", parsed.order))
    return params


def bound_form(form_class: type[FilterForm], params, *, portals, errors: dict[str, str] | None = None) -> FilterForm:
    """A filter form showing ``params`` as typed (each chip picker's value is its list of chosen values)."""
    data = QueryDict(mutable=True)
    for key in form_class.base_fields:
        values = params.getlist(key) if hasattr(params, "getlist") else []
        if values:
            data.setlist(key, values)
    if "status" in form_class.base_fields and not data.getlist("status"):
        # No status named means "laufend" in the search, the preview and matching alike: shown ticked.
        data.setlist("status", list(DEFAULT_STATUSES))
    form = form_class(data, portals=portals)
    form.show_errors(errors or {})
    return form


def filters_as_params(filters: TenderFilters) -> QueryDict:
    data = QueryDict(mutable=True)
    for key, value in filters.to_params():
        data.appendlist(key, value)
    return data


class SavedSearchForm(forms.Form):
    """The profile's own settings; its filters come from a ``FilterForm`` on the same page."""

    name = forms.CharField(label=_("Name des Suchprofils"), max_length=NAME_MAX_LENGTH)
    is_shared = forms.BooleanField(
        label=_("Für alle im Unternehmen sichtbar (nur lesen)"), required=False, initial=False
    )
    instant_alert = forms.BooleanField(label=_("Sofortmeldung bei neuen Treffern"), required=False, initial=False)
    email_enabled = forms.BooleanField(
        label=_("In E-Mails (Sofortmeldung und Zusammenfassung) berücksichtigen"), required=False, initial=True
    )
    is_active = forms.BooleanField(label=_("Aktiv"), required=False, initial=True)


class TriageForm(forms.Form):
    status = forms.ChoiceField(label=_("Bewertung"), choices=TriageStatus.choices)
    note = forms.CharField(
        label=_("Notiz"), required=False, max_length=NOTE_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 3})
    )


class LanguageForm(forms.Form):
    language = forms.ChoiceField(choices=settings.LANGUAGES)
