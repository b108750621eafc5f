"""The one filter builder: search in the portal, the partner API and matching of saved searches.

``TenderFilters`` is a frozen value parsed from query parameters (portal URL,
API) or from a saved search's JSON; ``filters_q`` turns it into a Django ``Q``
over ``Tender``. Matching ORs/UNIONs these same Q objects, so a saved search
finds exactly what the portal shows for the same filters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import date, datetime, time, timedelta
from decimal import Decimal, InvalidOperation

from django.db.models import Exists, OuterRef, Q

from tenders.filter_limits import (
    MAX_VALUE_LENGTH,
    MAX_VALUES_PER_PARAMETER,
    amount_problem,
    date_problem,
    normalise_whitespace,
    query_problem,
    text_problem,
    values_problem,
)
from tenders.fulltext import search_query, websearch_text  # noqa: F401  (re-exported)
from tenders.vocabulary.cpv import cpv_divisions, cpv_prefix, normalise_cpv
from tenders.vocabulary.regions import BUNDESLAENDER
from tenders.vocabulary.statuses import TenderStatus
from tenders.vocabulary.time_zone import BERLIN

STATUSES = tuple(status.value for status in TenderStatus)
ORDERS = ("relevance", "deadline", "published")
# Parameters parse_filters reads; each raw value is checked against ``tenders.filter_limits`` first.
FILTER_PARAMETERS = (
    "q",
    "cpv",
    "bundesland",
    "plz",
    "value_min",
    "value_max",
    "deadline_days",
    "deadline_until",
    "published_since",
    "status",
    "portal",
)


class FilterError(ValueError):
    """Invalid filter input; ``errors`` maps parameter name to a message a user can act on."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))


@dataclass(frozen=True)
class TenderFilters:
    q: str = ""
    cpv: tuple[str, ...] = ()  # 8-digit codes, or 2..7-digit prefixes (a division is 2 digits)
    bundesland: tuple[str, ...] = ()
    plz: str = ""  # prefix
    value_min: Decimal | None = None
    value_max: Decimal | None = None
    deadline_days: int | None = None  # deadline within N days from now
    deadline_until: date | None = None
    published_since: date | None = None
    status: tuple[str, ...] = ()
    portal: tuple[str, ...] = ()
    extra: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_empty(self) -> bool:
        return self == TenderFilters()

    # --- (de)serialisation: URLs and saved searches -------------------------------------------

    def to_params(self) -> list[tuple[str, str]]:
        """Query parameters that reproduce these filters (for bookmarkable URLs)."""
        params: list[tuple[str, str]] = []
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if value in (None, "", ()):
                continue
            if isinstance(value, tuple):
                params.extend((f.name, str(item)) for item in value)
            else:
                params.append((f.name, value.isoformat() if isinstance(value, date) else str(value)))
        return params

    def to_json(self) -> dict:
        data = {k: v for k, v in asdict(self).items() if k != "extra" and v not in (None, "", ())}
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


def alert_filters(filters: TenderFilters) -> TenderFilters:
    """What a saved search matches and previews: open tenders only, unless it names statuses itself.

    An expired, awarded or cancelled tender is no opportunity; a filter on those statuses still finds them.
    """
    if filters.status:
        return filters
    return replace(filters, status=(TenderStatus.ACTIVE.value,))


def _raw_values(params, name: str) -> list[str]:
    """Every value of ``name`` as typed, from a QueryDict or a dict of lists (or of single values)."""
    values = params.getlist(name) if hasattr(params, "getlist") else _as_list(params.get(name))
    return [str(value) for value in values]


def _getlist(params, name: str) -> list[str]:
    """The values of ``name``, comma-separated ones split apart, trimmed, empty ones dropped."""
    return [part.strip() for value in _raw_values(params, name) for part in value.split(",") if part.strip()]


def _first(params, name: str) -> str:
    values = _getlist(params, name)
    return values[0] if values else ""


def _input_problems(params) -> dict[str, str]:
    """Values no rule below should ever see: control characters, over-long text, too many values."""
    errors: dict[str, str] = {}
    for name in FILTER_PARAMETERS:
        raw = _raw_values(params, name)
        # Characters are checked as typed (strip() would quietly drop some controls, e.g. U+0085);
        # lengths and counts after the values are split and trimmed.
        limit = MAX_VALUE_LENGTH * MAX_VALUES_PER_PARAMETER
        problem = next(filter(None, (text_problem(value, max_length=limit) for value in raw)), None)
        if name == "q":
            problem = problem or query_problem(normalise_whitespace(" ".join(raw)).strip())
        else:
            # One form field may carry several comma-separated values (CPV codes).
            problem = problem or values_problem(_getlist(params, name))
        if problem:
            errors[name] = problem
    return errors


def parse_filters(params) -> TenderFilters:
    """Parse query parameters (a QueryDict or a dict of lists); raise FilterError listing every problem."""
    errors: dict[str, str] = {}
    # Raw input problems (control characters, lengths, counts) win over what the rules below say.
    input_problems = _input_problems(params)
    q = normalise_whitespace(" ".join(_raw_values(params, "q"))).strip()

    cpv = []
    for raw in _getlist(params, "cpv"):
        digits = re.sub(r"[^0-9]", "", raw.split("-")[0])
        if 2 <= len(digits) <= 8 and digits[:2] not in cpv_divisions():
            errors["cpv"] = f"{raw!r}: {digits[:2]} ist keine CPV-Abteilung."
        elif len(digits) == 8:
            cpv.append(normalise_cpv(digits))
        elif 2 <= len(digits) < 8:
            cpv.append(digits)
        else:
            errors["cpv"] = f"{raw!r} ist kein CPV-Code (8 Ziffern) und keine Abteilung (2 Ziffern)."
    bundesland = []
    valid_laender = {name.lower(): name for name in BUNDESLAENDER.values()}
    for raw in _getlist(params, "bundesland"):
        name = valid_laender.get(raw.lower())
        if name is None:
            errors["bundesland"] = f"Unbekanntes Bundesland {raw!r}."
        else:
            bundesland.append(name)
    plz = _first(params, "plz")
    if plz and not re.fullmatch(r"[0-9]{1,5}", plz):
        errors["plz"] = "PLZ-Anfang: 1 bis 5 Ziffern."
    value_min = _decimal(params, "value_min", errors)
    value_max = _decimal(params, "value_max", errors)
    if value_min is not None and value_max is not None and value_min > value_max:
        errors["value_max"] = "Der Höchstwert ist kleiner als der Mindestwert."
    deadline_days = None
    if raw := _first(params, "deadline_days"):
        if re.fullmatch(r"[0-9]{1,4}", raw) and 0 < int(raw) <= 3650:
            deadline_days = int(raw)
        else:
            errors["deadline_days"] = "Frist in Tagen: eine ganze Zahl von 1 bis 3650."
    deadline_until = _date(params, "deadline_until", errors)
    published_since = _date(params, "published_since", errors)
    status = []
    for raw in _getlist(params, "status"):
        if raw not in STATUSES:
            errors["status"] = f"Unbekannter Status {raw!r}; erlaubt: {', '.join(STATUSES)}."
        else:
            status.append(raw)
    portal = [p for p in _getlist(params, "portal") if re.fullmatch(r"[a-z0-9-]{2,40}", p)]
    errors.update(input_problems)
    if errors:
        raise FilterError(errors)
    return TenderFilters(
        q=q,
        cpv=tuple(dict.fromkeys(cpv)),
        bundesland=tuple(dict.fromkeys(bundesland)),
        plz=plz,
        value_min=value_min,
        value_max=value_max,
        deadline_days=deadline_days,
        deadline_until=deadline_until,
        published_since=published_since,
        status=tuple(dict.fromkeys(status)),
        portal=tuple(dict.fromkeys(portal)),
    )


def _as_list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _first_raw(params, name: str) -> str:
    """The first value as typed (no comma splitting: "1.000.000,00" is one number)."""
    values = _raw_values(params, name)
    return values[0].strip() if values else ""


def _decimal(params, name: str, errors: dict) -> Decimal | None:
    raw = _first_raw(params, name).replace(" ", "").replace("€", "")
    if not raw:
        return None
    if "," in raw:
        raw = raw.replace(".", "").replace(",", ".")  # German: 1.000.000,50
    elif re.fullmatch(r"\d{1,3}(\.\d{3})+", raw):
        raw = raw.replace(".", "")  # German thousands without decimals: 100.000
    try:
        value = Decimal(raw)
    except InvalidOperation:
        errors[name] = "Bitte eine Zahl angeben (z. B. 100000)."
        return None
    if problem := amount_problem(value):
        errors[name] = problem
        return None
    return value


def _date(params, name: str, errors: dict) -> date | None:
    raw = _first(params, name)
    if not raw:
        return None
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", raw):
        errors[name] = "Datum im Format JJJJ-MM-TT angeben."
        return None
    try:
        value = date.fromisoformat(raw)
    except ValueError:
        errors[name] = "Datum im Format JJJJ-MM-TT angeben."
        return None
    if problem := date_problem(value):
        errors[name] = problem
        return None
    return value


# --- keywords: tenders.fulltext builds the tsquery (re-exported here for existing imports) ------------


# --- the builder -------------------------------------------------------------------------------------


def _cpv_q(codes: tuple[str, ...]) -> Q:
    # Tender.cpv_prefixes holds every prefix of every code, so any level is one GIN-indexed overlap.
    return Q(cpv_prefixes__overlap=sorted({cpv_prefix(code) for code in codes}))


def filters_q(filters: TenderFilters, *, now: datetime) -> Q:
    """A Q over Tender for everything except keywords' ranking (see ``tender_search``)."""
    condition = Q()
    if filters.q:
        condition &= Q(search_vector=search_query(filters.q))
    if filters.cpv:
        condition &= _cpv_q(filters.cpv)
    if filters.bundesland:
        condition &= Q(bundesland__in=filters.bundesland)
    if filters.plz:
        condition &= Q(postal_code__startswith=filters.plz)
    if filters.value_min is not None:
        condition &= Q(estimated_value__gte=filters.value_min)
    if filters.value_max is not None:
        condition &= Q(estimated_value__lte=filters.value_max)
    if filters.deadline_days is not None:
        until = now + timedelta(days=filters.deadline_days)
        condition &= Q(submission_deadline__gte=now, submission_deadline__lte=until)
    if filters.deadline_until is not None:
        end = datetime.combine(filters.deadline_until, time.max, tzinfo=BERLIN)
        condition &= Q(submission_deadline__gte=now, submission_deadline__lte=end)
    if filters.published_since is not None:
        condition &= Q(published_at__gte=datetime.combine(filters.published_since, time.min, tzinfo=BERLIN))
    if filters.status:
        condition &= Q(status__in=filters.status)
    if filters.portal:
        from tenders.models import TenderSource

        condition &= Q(Exists(TenderSource.objects.filter(tender=OuterRef("pk"), source__in=filters.portal)))
    return condition
