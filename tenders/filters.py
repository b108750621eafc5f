"""Search filters as a value: ``TenderFilters``, parsed from what users type, send or stored. Pure.

``TenderFilters`` is a frozen value parsed from query parameters (portal URL, API)
or from a saved search's JSON, by the parsers ``tenders.filter_fields`` declares.
``tenders.filter_query.filters_q`` turns it into a condition over ``Tender``: the
portal, the partner API and the matching of saved searches all use that one builder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from datetime import date
from decimal import Decimal

from kernel.errors import ApplicationError
from kernel.vocabulary.statuses import TenderStatus
from tenders.filter_fields import FILTER_FIELDS, FILTER_NAMES
from tenders.filter_limits import (
    MAX_VALUE_LENGTH,
    MAX_VALUES_PER_PARAMETER,
    normalise_whitespace,
    query_problem,
    text_problem,
    values_problem,
)
from tenders.filter_values import STATUSES, raw_values, split_values

__all__ = [
    "DEFAULT_STATUSES",
    "FILTER_PARAMETERS",
    "ORDERS",
    "STATUSES",
    "FilterError",
    "TenderFilters",
    "effective_filters",
    "parse_filters",
]

ORDERS = ("relevance", "deadline", "published")
# Parameters parse_filters reads; each raw value is checked against ``tenders.filter_limits`` first.
FILTER_PARAMETERS = FILTER_NAMES


class FilterError(ApplicationError):
    """Invalid filter input; ``errors`` (= ``fields``) maps parameter name to a message a user can act on."""

    default_code = "invalid_filters"

    def __init__(self, errors: dict[str, str]):
        super().__init__(fields=errors)

    @property
    def errors(self) -> dict[str, str]:
        return self.fields


@dataclass(frozen=True)
class TenderFilters:
    q: str = ""
    q_scope: str = ""  # "" = keywords hit anywhere; "title" = in the title, or a CPV code of ``cpv`` (filter_values)
    cpv: tuple[str, ...] = ()  # 8-digit codes, or 2..7-digit prefixes (a division is 2 digits)
    bundesland: tuple[str, ...] = ()
    plz: str = ""  # prefix
    kreis: tuple[str, ...] = ()  # Kreisschlüssel (tenders.place_values)
    umkreis_plz: str = ""  # radius around this postcode ...
    umkreis_km: int | None = None  # ... of this many km (both or neither)
    value_min: Decimal | None = None
    value_max: Decimal | None = None
    deadline_days: int | None = None  # deadline within N days from now
    deadline_until: date | None = None
    published_since: date | None = None
    status: tuple[str, ...] = ()
    portal: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return self == TenderFilters()

    # --- (de)serialisation: URLs and saved searches -------------------------------------------

    def to_params(self) -> list[tuple[str, str]]:
        """Query parameters that reproduce these filters (for bookmarkable URLs)."""
        params: list[tuple[str, str]] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value in (None, "", ()):
                continue
            if isinstance(value, tuple):
                params.extend((f.name, str(item)) for item in value)
            else:
                params.append((f.name, value.isoformat() if isinstance(value, date) else str(value)))
        return params

    def to_json(self) -> dict:
        data = {k: v for k, v in asdict(self).items() if v not in (None, "", ())}
        for key, value in list(data.items()):
            if isinstance(value, (Decimal, date)):
                data[key] = str(value) if isinstance(value, Decimal) else value.isoformat()
            elif isinstance(value, tuple):
                data[key] = list(value)
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> TenderFilters:
        """Stored filters, parsed by the same rules as typed ones (rules added later apply to old rows too)."""
        if not isinstance(data or {}, Mapping):
            raise FilterError({"filters": "Gespeicherte Filter sind kein Objekt."})
        return parse_filters({str(k): v if isinstance(v, list) else [v] for k, v in (data or {}).items()})


def filters_checked(filters: TenderFilters) -> TenderFilters:
    """``filters`` re-read through ``parse_filters``; raises FilterError for values built in code that break a rule.

    Services storing filters call this, so a path that builds ``TenderFilters`` without parsing
    input (operator tools, data loads) cannot store what matching could not evaluate.
    """
    return TenderFilters.from_json(filters.to_json())


DEFAULT_STATUSES = (TenderStatus.ACTIVE.value,)


def effective_filters(filters: TenderFilters) -> TenderFilters:
    """The one meaning of a query everywhere: no status named means open ("laufend") tenders only.

    The search page, the partner API, ``manage.py search``, a saved search's preview and its matching
    all read filters through this, so "Als Suchprofil speichern" previews the hits the search showed
    and the profile alerts on exactly those. An expired, awarded or cancelled tender is no opportunity;
    naming those statuses still finds them. The search form shows the default ticked.
    """
    if filters.status:
        return filters
    return replace(filters, status=DEFAULT_STATUSES)


def _input_problems(params) -> dict[str, str]:
    """Values no rule below should ever see: control characters, over-long text, too many values."""
    errors: dict[str, str] = {}
    for name in FILTER_PARAMETERS:
        raw = raw_values(params, name)
        # Characters are checked as typed (strip() would quietly drop some controls, e.g. U+0085);
        # lengths and counts after the values are split and trimmed.
        limit = MAX_VALUE_LENGTH * MAX_VALUES_PER_PARAMETER
        problem = next(filter(None, (text_problem(value, max_length=limit) for value in raw)), None)
        if name == "q":
            problem = problem or query_problem(normalise_whitespace(" ".join(raw)).strip())
        else:
            # One form field may carry several comma-separated values (CPV codes).
            problem = problem or values_problem(split_values(params, name))
        if problem:
            errors[name] = problem
    return errors


def parse_filters(params) -> TenderFilters:
    """Parse query parameters (a QueryDict or a dict of lists); raise FilterError listing every problem.

    Each declared field (``tenders.filter_fields``) is read by its parser; rules between fields follow.
    """
    errors: dict[str, str] = {}
    # Raw input problems (control characters, lengths, counts) win over what the parsers say.
    input_problems = _input_problems(params)
    values = {field.name: field.parse(params, field.name, errors) for field in FILTER_FIELDS}
    if (
        values["value_min"] is not None
        and values["value_max"] is not None
        and values["value_min"] > values["value_max"]
    ):
        errors["value_max"] = "Der Höchstwert ist kleiner als der Mindestwert."
    errors.update(input_problems)
    if errors:
        raise FilterError(errors)
    return TenderFilters(**values)
