"""The one declaration of the search filters: each parameter, how it is parsed, shown and documented.

Everything that lists the filters is built from ``FILTER_FIELDS``: ``tenders.filters.parse_filters``
(and so saved searches and matching), the portal's filter form and saved-search summary,
the error hints on non-German pages, and the partner API's query parameters and its filter
object in the OpenAPI schema. A new filter is one entry here plus its ``TenderFilters`` field
and its condition in ``tenders.filter_query``; tests check that every list agrees.

Pure: labels are lazy translations, parsers are ``tenders.filter_values``; no ORM.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from tenders import filter_values, place_values

# The API type of one value; ``many`` fields take a list of them (repeated or comma-separated).
ApiType = Literal["string", "number", "integer", "date"]
# How the portal shows the field; choice widgets take their options from ``choices``. "chips": a
# type-ahead picker whose chosen values are removable chips (vocabularies too long to list: CPV, Kreise).
Widget = Literal["text", "search", "numeric", "date", "select", "checkboxes", "chips"]


@dataclass(frozen=True)
class FilterField:
    name: str  # URL/API parameter and TenderFilters attribute
    parse: Callable[[Any, str, dict[str, str]], Any]  # see tenders.filter_values
    api_type: ApiType
    many: bool
    description: str  # API documentation (German, like the rest of the API docs)
    label: Promise  # form label
    hint: Promise  # error hint shown instead of the parser's German message on other languages
    widget: Widget = "text"
    choices: str = ""  # vocabulary of a choice or chips widget: "bundeslaender", "kreise", "cpv", "statuses", "sources"
    summary_label: Promise | None = None  # in a saved search's summary; default ``label``
    help_text: Promise | str = ""
    placeholder: Promise | str = ""
    max_length: int | None = None

    @property
    def summary(self) -> Promise:
        return self.summary_label or self.label


_DATE_HINT = _("Datum im Format JJJJ-MM-TT zwischen 1900 und 2999 angeben.")

FILTER_FIELDS: tuple[FilterField, ...] = (
    FilterField(
        "q",
        filter_values.keywords,
        "string",
        False,
        'Suchbegriffe ("Phrase", -ohne, or; Umlaute: ue = ü)',
        label=_("Suchbegriffe"),
        hint=_("Suchbegriffe: höchstens 300 Zeichen, ohne Steuerzeichen."),
        widget="search",
        placeholder=_('z. B. Straßenbau "Los 1" -Planung'),
    ),
    FilterField(
        "q_scope",
        filter_values.keyword_scope,
        "string",
        False,
        "Suchbereich: all (Standard) oder title = Suchbegriffe nur im Titel (mit seinen Wortteilen), nicht in "
        "Beschreibung, Vergabestelle und CPV-Bezeichnungen; mit cpv genügt statt des Titeltreffers ein CPV-Code "
        "der Suche",
        label=_("Suchbereich"),
        hint=_("Suchbereich: all oder title angeben."),
        widget="checkboxes",
        choices="q_scopes",
    ),
    FilterField(
        "cpv",
        filter_values.cpv_codes,
        "string",
        True,
        "CPV-Code (8 Ziffern) oder Präfix ab 2 Ziffern; mehrere = oder",
        label=_("CPV-Codes"),
        summary_label=_("CPV"),
        hint=_("CPV-Code mit 8 Ziffern oder Abteilung/Gruppe mit 2 bis 7 Ziffern angeben."),
        widget="chips",
        choices="cpv",
        help_text=_("Begriff oder Nummer eingeben und einen Treffer wählen"),
        placeholder=_("z. B. Reinigung oder 4523"),
    ),
    FilterField(
        "bundesland",
        filter_values.bundeslaender,
        "string",
        True,
        "Bundesland, z. B. Bayern; mehrere = oder",
        label=_("Bundesland"),
        hint=_("Bitte ein Bundesland aus der Liste wählen."),
        widget="checkboxes",
        choices="bundeslaender",
    ),
    FilterField(
        "plz",
        filter_values.plz_prefix,
        "string",
        False,
        "PLZ-Anfang (1 bis 5 Ziffern)",
        label=_("PLZ beginnt mit"),
        hint=_("PLZ-Anfang: 1 bis 5 Ziffern."),
        widget="numeric",
        max_length=5,
    ),
    FilterField(
        "kreis",
        place_values.kreise,
        "string",
        True,
        "Landkreis oder kreisfreie Stadt: Kreisschlüssel (5 Ziffern, z. B. 09162), NUTS-3-Code (z. B. DE212) "
        "oder Name (z. B. „München, Landkreis“); mehrere = oder. Trifft Ausschreibungen mit einer PLZ im Kreis "
        "und solche ohne PLZ mit dem NUTS-3-Code des Kreises",
        label=_("Landkreis / kreisfreie Stadt"),
        summary_label=_("Kreis"),
        hint=_("Bitte einen Landkreis oder eine kreisfreie Stadt aus der Liste wählen."),
        widget="chips",
        choices="kreise",
        help_text=_("Name, Kreisschlüssel oder NUTS-3-Code eingeben und einen Treffer wählen"),
        placeholder=_("z. B. München oder DE212"),
    ),
    FilterField(
        "umkreis_plz",
        place_values.radius_postcode,
        "string",
        False,
        "Umkreissuche: PLZ des Mittelpunkts (5 Ziffern), zusammen mit umkreis_km",
        label=_("Umkreis um PLZ"),
        summary_label=_("Umkreis"),
        hint=_("Umkreis: eine bekannte deutsche PLZ mit 5 Ziffern und die Entfernung in km angeben."),
        widget="numeric",
        placeholder=_("z. B. 70173"),
        max_length=5,
    ),
    FilterField(
        "umkreis_km",
        place_values.radius_km,
        "integer",
        False,
        f"Umkreissuche: Entfernung in km ({place_values.MIN_RADIUS_KM} bis {place_values.MAX_RADIUS_KM}), "
        "Luftlinie zwischen den Mittelpunkten der PLZ-Gebiete; Ausschreibungen ohne PLZ zählen mit dem "
        "Mittelpunkt ihres NUTS-3-Kreises",
        label=_("Umkreis (km)"),
        summary_label=_("im Umkreis von (km)"),
        hint=_("Umkreis: eine ganze Zahl von 1 bis 300 km und eine PLZ angeben."),
        widget="numeric",
        placeholder=_("z. B. 50"),
        max_length=4,
    ),
    FilterField(
        "value_min",
        filter_values.amount,
        "number",
        False,
        "geschätzter Wert ab (EUR)",
        label=_("Wert ab (€)"),
        summary_label=_("Wert ab"),
        hint=_("Bitte eine positive Zahl bis 9.999.999.999.999.999,99 angeben (z. B. 100000)."),
        widget="numeric",
    ),
    FilterField(
        "value_max",
        filter_values.amount,
        "number",
        False,
        "geschätzter Wert bis (EUR)",
        label=_("Wert bis (€)"),
        summary_label=_("Wert bis"),
        hint=_("Bitte eine positive Zahl bis 9.999.999.999.999.999,99 angeben, nicht kleiner als der Mindestwert."),
        widget="numeric",
    ),
    FilterField(
        "deadline_days",
        filter_values.days,
        "integer",
        False,
        "Angebotsfrist in den nächsten N Tagen",
        label=_("Frist in den nächsten … Tagen"),
        summary_label=_("Frist innerhalb (Tage)"),
        hint=_("Frist in Tagen: eine ganze Zahl von 1 bis 3650."),
        widget="numeric",
    ),
    FilterField(
        "deadline_until",
        filter_values.iso_date,
        "date",
        False,
        "Angebotsfrist bis (einschließlich)",
        label=_("Frist bis"),
        hint=_DATE_HINT,
        widget="date",
    ),
    FilterField(
        "published_since",
        filter_values.iso_date,
        "date",
        False,
        "veröffentlicht ab",
        label=_("Veröffentlicht seit"),
        hint=_DATE_HINT,
        widget="date",
    ),
    FilterField(
        "status",
        filter_values.statuses,
        "string",
        True,
        f"{', '.join(filter_values.STATUSES)}; mehrere = oder; ohne Angabe nur active (laufend), wie in Suchprofilen",
        label=_("Status"),
        hint=_("Bitte einen Status aus der Liste wählen."),
        widget="checkboxes",
        choices="statuses",
    ),
    FilterField(
        "portal",
        filter_values.source_keys,
        "string",
        True,
        "nur Ausschreibungen, die auf diesem Portal erschienen sind",
        label=_("Quelle"),
        hint=_("Bitte eine Quelle aus der Liste wählen."),
        widget="checkboxes",
        choices="sources",
    ),
)

FILTER_NAMES: tuple[str, ...] = tuple(field.name for field in FILTER_FIELDS)
# The one option of the "q_scope" checkbox (unticked: the keywords hit anywhere).
Q_SCOPE_CHOICES = (("title", _("nur im Titel oder über den CPV-Code")),)
