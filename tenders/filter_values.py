"""How one filter parameter's typed values become its value: pure parsers, one per kind of field.

Each parser takes the parameters (a QueryDict or a dict of lists, or of single values), the
parameter's name and the dict of problems; it returns the parsed value, or the field's empty
value after recording a German message under ``name``. ``tenders.filter_fields`` says which
parser reads which parameter; ``tenders.filters.parse_filters`` runs them all.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

from kernel.vocabulary.cpv import cpv_divisions, normalise_cpv
from kernel.vocabulary.regions import BUNDESLAENDER
from kernel.vocabulary.statuses import TenderStatus
from tenders.filter_limits import amount_problem, date_problem, normalise_whitespace

STATUSES = tuple(status.value for status in TenderStatus)


def _as_list(value) -> list:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def raw_values(params, name: str) -> list[str]:
    """Every value of ``name`` as typed, from a QueryDict or a dict of lists (or of single values)."""
    values = params.getlist(name) if hasattr(params, "getlist") else _as_list(params.get(name))
    return [str(value) for value in values]


def split_values(params, name: str) -> list[str]:
    """The values of ``name``, comma-separated ones split apart, trimmed, empty ones dropped."""
    return [part.strip() for value in raw_values(params, name) for part in value.split(",") if part.strip()]


def _first(params, name: str) -> str:
    values = split_values(params, name)
    return values[0] if values else ""


def _unique(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def keywords(params, name: str, errors: dict[str, str]) -> str:
    # Several values (q=a&q=b) are one search; bounds are checked by the caller's input pass.
    return normalise_whitespace(" ".join(raw_values(params, name))).strip()


def cpv_codes(params, name: str, errors: dict[str, str]) -> tuple[str, ...]:
    """8-digit codes (check digit dropped) or 2..7-digit prefixes of a known division."""
    codes = []
    for raw in split_values(params, name):
        digits = re.sub(r"[^0-9]", "", raw.split("-")[0])
        if 2 <= len(digits) <= 8 and digits[:2] not in cpv_divisions():
            errors[name] = f"{raw!r}: {digits[:2]} ist keine CPV-Abteilung."
        elif len(digits) == 8:
            codes.append(normalise_cpv(digits))
        elif 2 <= len(digits) < 8:
            codes.append(digits)
        else:
            errors[name] = f"{raw!r} ist kein CPV-Code (8 Ziffern) und keine Abteilung (2 Ziffern)."
    return _unique(codes)


def bundeslaender(params, name: str, errors: dict[str, str]) -> tuple[str, ...]:
    valid = {land.lower(): land for land in BUNDESLAENDER.values()}
    laender = []
    for raw in split_values(params, name):
        if (land := valid.get(raw.lower())) is None:
            errors[name] = f"Unbekanntes Bundesland {raw!r}."
        else:
            laender.append(land)
    return _unique(laender)


def plz_prefix(params, name: str, errors: dict[str, str]) -> str:
    plz = _first(params, name)
    if plz and not re.fullmatch(r"[0-9]{1,5}", plz):
        errors[name] = "PLZ-Anfang: 1 bis 5 Ziffern."
    return plz


def amount(params, name: str, errors: dict[str, str]) -> Decimal | None:
    """A euro amount as Germans and machines type it: 100000, 100.000, 1.000.000,50, 250 000 €."""
    values = raw_values(params, name)  # no comma splitting: "1.000.000,00" is one number
    raw = (values[0].strip() if values else "").replace(" ", "").replace("€", "")
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


def days(params, name: str, errors: dict[str, str]) -> int | None:
    raw = _first(params, name)
    if not raw:
        return None
    if re.fullmatch(r"[0-9]{1,4}", raw) and 0 < int(raw) <= 3650:
        return int(raw)
    errors[name] = "Frist in Tagen: eine ganze Zahl von 1 bis 3650."
    return None


def iso_date(params, name: str, errors: dict[str, str]) -> date | None:
    raw = _first(params, name)
    if not raw:
        return None
    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", raw):
            raise ValueError(raw)
        value = date.fromisoformat(raw)
    except ValueError:
        errors[name] = "Datum im Format JJJJ-MM-TT angeben."
        return None
    if problem := date_problem(value):
        errors[name] = problem
        return None
    return value


def statuses(params, name: str, errors: dict[str, str]) -> tuple[str, ...]:
    found = []
    for raw in split_values(params, name):
        if raw not in STATUSES:
            errors[name] = f"Unbekannter Status {raw!r}; erlaubt: {', '.join(STATUSES)}."
        else:
            found.append(raw)
    return _unique(found)


def source_keys(params, name: str, errors: dict[str, str]) -> tuple[str, ...]:
    # Keys that cannot be a Source key are dropped, not refused: they would match nothing anyway.
    return _unique([key for key in split_values(params, name) if re.fullmatch(r"[a-z0-9-]{2,40}", key)])


# Where the keywords must hit: "" (default, also typed "all") anywhere in the search vector; "title" in the
# title (its words and their compound parts), or the tender carries one of the CPV codes the search names.
Q_SCOPES = ("all", "title")


def keyword_scope(params, name: str, errors: dict[str, str]) -> str:
    raw = _first(params, name)
    if raw in ("", None, "all"):
        return ""
    if raw not in Q_SCOPES:
        errors[name] = f"Unbekannter Suchbereich {raw!r}; erlaubt: {', '.join(Q_SCOPES)}."
        return ""
    return raw
