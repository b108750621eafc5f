"""Pure normalisation helpers shared by every adapter.

Portals disagree on almost everything: CPV codes come with or without check
digit, procedure types in German, English or as eForms codes, dates as ISO with
offsets or as ``dd.mm.yyyy HH:MM`` local time. These functions fold them into
the canonical forms stored on ``Tender``.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from zoneinfo import ZoneInfo

from tenders.vocabulary.procedures import EFORMS_DE_PROCEDURE_CODES

BERLIN = ZoneInfo("Europe/Berlin")

# Canonical procedure types (eForms procurement-procedure-type, folded) with German labels.
PROCEDURE_TYPES: dict[str, str] = {
    "open": "Offenes Verfahren",
    "restricted": "Nicht offenes Verfahren",
    "negotiated_with_call": "Verhandlungsverfahren mit Teilnahmewettbewerb",
    "negotiated_without_call": "Verhandlungsverfahren ohne Teilnahmewettbewerb",
    "competitive_dialogue": "Wettbewerblicher Dialog",
    "innovation_partnership": "Innovationspartnerschaft",
    "public_tender": "Öffentliche Ausschreibung",
    "limited_tender": "Beschränkte Ausschreibung",
    "negotiated_award": "Verhandlungsvergabe",
    "other": "Sonstiges Verfahren",
}

_PROCEDURE_ALIASES: dict[str, str] = {
    # eForms codelist procurement-procedure-type
    "open": "open",
    "restricted": "restricted",
    "neg-w-call": "negotiated_with_call",
    "neg-wo-call": "negotiated_without_call",
    "comp-dial": "competitive_dialogue",
    "innovation": "innovation_partnership",
    "oth-single": "other",
    "oth-mult": "other",
    "comp-tend": "other",
    # OCDS method codelist (coarser)
    "selective": "restricted",
    "limited": "negotiated_without_call",
    "direct": "negotiated_without_call",
    # English names as DÖE's OCDS procurementMethodDetails carries them
    "open procedure": "open",
    "restricted procedure": "restricted",
    "negotiated procedure with prior publication": "negotiated_with_call",
    "negotiated procedure with prior publication of a call for competition": "negotiated_with_call",
    "competitive procedure with negotiation": "negotiated_with_call",
    "negotiated with prior publication of a call for competition / competitive with negotiation": (
        "negotiated_with_call"
    ),
    "negotiated procedure without prior publication": "negotiated_without_call",
    "negotiated without prior call for competition": "negotiated_without_call",
    "competitive dialogue": "competitive_dialogue",
    "innovation partnership": "innovation_partnership",
    "public announcement": "public_tender",
    "other single stage procedure": "other",
    "other multiple stage procedure": "other",
    # German names (EU and national)
    "offenes verfahren": "open",
    "nicht offenes verfahren": "restricted",
    "verhandlungsverfahren mit teilnahmewettbewerb": "negotiated_with_call",
    "verhandlungsverfahren ohne teilnahmewettbewerb": "negotiated_without_call",
    "verhandlungsverfahren": "negotiated_with_call",
    "wettbewerblicher dialog": "competitive_dialogue",
    "innovationspartnerschaft": "innovation_partnership",
    "öffentliche ausschreibung": "public_tender",
    "beschränkte ausschreibung": "limited_tender",
    "beschränkte ausschreibung mit teilnahmewettbewerb": "limited_tender",
    "beschränkte ausschreibung ohne teilnahmewettbewerb": "limited_tender",
    "verhandlungsvergabe": "negotiated_award",
    "verhandlungsvergabe mit teilnahmewettbewerb": "negotiated_award",
    "verhandlungsvergabe ohne teilnahmewettbewerb": "negotiated_award",
    "freihändige vergabe": "negotiated_award",
    # eForms-DE national codes ("de-open", "de-restricted-wo-call" …)
    **EFORMS_DE_PROCEDURE_CODES,
}


def procedure_type_code(raw: str | None) -> str:
    """Map any known spelling of a procedure type to its canonical code ("" if unknown/empty)."""
    if not raw:
        return ""
    key = " ".join(raw.strip().lower().split())
    if key in _PROCEDURE_ALIASES:
        return _PROCEDURE_ALIASES[key]
    for alias, code in _PROCEDURE_ALIASES.items():
        if len(alias) > 8 and key.startswith(alias):
            return code
    return "other"


def procedure_type_label(code: str) -> str:
    return PROCEDURE_TYPES.get(code, "")


# NUTS level 1 of Germany -> Bundesland.
BUNDESLAENDER: dict[str, str] = {
    "DE1": "Baden-Württemberg",
    "DE2": "Bayern",
    "DE3": "Berlin",
    "DE4": "Brandenburg",
    "DE5": "Bremen",
    "DE6": "Hamburg",
    "DE7": "Hessen",
    "DE8": "Mecklenburg-Vorpommern",
    "DE9": "Niedersachsen",
    "DEA": "Nordrhein-Westfalen",
    "DEB": "Rheinland-Pfalz",
    "DEC": "Saarland",
    "DED": "Sachsen",
    "DEE": "Sachsen-Anhalt",
    "DEF": "Schleswig-Holstein",
    "DEG": "Thüringen",
}

# First digit(s) of a PLZ are not a clean Bundesland key; only NUTS is used for that.


def bundesland_for_nuts(nuts_codes: tuple[str, ...] | list[str]) -> str:
    """The Bundesland of the first German NUTS code, or "" (several Länder: the first wins)."""
    for code in nuts_codes:
        code = (code or "").strip().upper()
        if code.startswith("DE") and len(code) >= 3 and code[:3] in BUNDESLAENDER:
            return BUNDESLAENDER[code[:3]]
    return ""


# Codes, postcodes and dates repeat across notices and between a notice's eForms XML and its OCDS
# twin (parsed in the same worker): the normalised value of a text is computed once per process.
# The caches are bounded and hold only immutable values (str, datetime).
MEMO_SIZE = 8192


@lru_cache(maxsize=MEMO_SIZE)
def normalise_nuts(raw: str | None) -> str:
    code = (raw or "").strip().upper().replace(" ", "")
    return code if re.fullmatch(r"[A-Z]{2}[0-9A-Z]{0,3}", code) else ""


_CPV_RE = re.compile(r"(\d{8})(?:-\d)?")


def normalise_cpv(raw: str | None) -> str:
    """ "45233140-2", "45233140", " 45233140 -2" -> "45233140"; anything else -> ""."""
    return _cpv_of_text(str(raw)) if raw else ""


@lru_cache(maxsize=MEMO_SIZE)
def _cpv_of_text(text: str) -> str:
    compact = re.sub(r"\s+", "", text)
    match = _CPV_RE.fullmatch(compact) or _CPV_RE.match(compact)
    return match.group(1) if match else ""


def unique_cpv(codes) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c for c in (normalise_cpv(x) for x in codes) if c))


@lru_cache(maxsize=MEMO_SIZE)
def normalise_postal_code(raw: str | None) -> str:
    match = re.search(r"\b(\d{5})\b", raw or "")
    return match.group(1) if match else ""


_LINE_BREAKS = re.compile(r"([\n\t])")
_BLANKS = re.compile(r"[ \t\r\f\v]+")
_AROUND_NEWLINE = re.compile(r"\s*\n\s*")


def _without_controls(text: str) -> str:
    """Category C (controls, format characters, surrogates, private use, unassigned) -> space; \\n and \\t stay.

    ``str.isprintable`` answers in C for whole strings and lines; only a line that holds
    something unprintable (a control, or a space other than " ") is walked character by character.
    """
    if text.isprintable():
        return text
    parts = _LINE_BREAKS.split(text)
    return "".join(
        part
        if part.isprintable() or part in ("\n", "\t")
        else "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in part)
        for part in parts
    )


def clean_text(raw: str | None, *, limit: int | None = None) -> str:
    """NFC, collapse whitespace, drop control characters; keeps umlauts and €."""
    if not raw:
        return ""
    raw = str(raw)
    # Most texts (ids, codes, names) are already clean: printable (no control, no line break,
    # no space but " "), NFC, single-spaced, trimmed. They are returned as they are.
    if (
        raw.isprintable()
        and "  " not in raw
        and raw[0] != " "
        and raw[-1] != " "
        and (raw.isascii() or unicodedata.is_normalized("NFC", raw))
    ):
        return raw if limit is None or len(raw) <= limit else raw[: limit - 1].rstrip() + "…"
    text = _without_controls(unicodedata.normalize("NFC", raw))
    text = _BLANKS.sub(" ", text)
    text = _AROUND_NEWLINE.sub("\n", text).strip()
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def parse_decimal(raw) -> Decimal | None:
    """ "1.234.567,89", "1234567.89", 1234567 -> Decimal; garbage -> None."""
    if raw is None or raw == "" or isinstance(raw, bool):
        return None
    if isinstance(raw, int | Decimal):
        value = Decimal(raw)
    elif isinstance(raw, float):  # JSON numbers, including NaN and Infinity, which json.loads accepts
        value = Decimal(str(raw))
    else:
        text = re.sub(r"[^\d,.\-]", "", str(raw))
        if not text:
            return None
        if "," in text and "." in text:
            text = (
                text.replace(".", "").replace(",", ".") if text.rfind(",") > text.rfind(".") else text.replace(",", "")
            )
        elif "," in text:
            text = text.replace(".", "").replace(",", ".") if text.count(",") == 1 else text.replace(",", "")
        try:
            value = Decimal(text)
        except InvalidOperation:
            return None
    # A value is a non-negative amount; NaN, infinities and negatives (typed numbers too) are garbage.
    return value if value.is_finite() and value >= 0 else None


def parse_iso_datetime(raw: str | None, *, default_time: time | None = None) -> datetime | None:
    """ISO 8601 date or datetime, with or without offset, to an aware datetime.

    A value without offset is Europe/Berlin local time; a bare date gets
    ``default_time`` (None → the value is returned at 00:00 Berlin).
    eForms writes dates as ``2026-10-01+02:00`` (date with offset): handled.
    """
    if not raw:
        return None
    return _iso_datetime(str(raw).strip(), default_time)


@lru_cache(maxsize=MEMO_SIZE)
def _iso_datetime(text: str, default_time: time | None) -> datetime | None:
    try:
        if "T" in text:
            value = datetime.fromisoformat(text.replace("Z", "+00:00"))
        else:
            date_part, offset = text[:10], text[10:]
            d = date.fromisoformat(date_part)
            value = datetime.combine(d, default_time or time(0, 0))
            if offset:
                value = datetime.fromisoformat(value.isoformat() + offset.replace("Z", "+00:00"))
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=BERLIN)
    return plausible_datetime(value)


PLAUSIBLE_YEARS = range(1990, 2100)


def plausible_datetime(value: datetime | None) -> datetime | None:
    """None for placeholder dates (0001-01-01, 9999-12-31 …): no notice means them, and time-zone
    arithmetic on them overflows Python's date range. Decided on the year as written, before any conversion."""
    if value is None or value.year not in PLAUSIBLE_YEARS:
        return None
    return value


def combine_date_time(date_raw: str | None, time_raw: str | None) -> datetime | None:
    """eForms splits deadlines into ``cbc:EndDate`` (``2026-10-01+02:00``) and ``cbc:EndTime`` (``12:00:00+02:00``)."""
    if not date_raw:
        return None
    date_text = date_raw.strip()[:10]
    if time_raw:
        t = time_raw.strip()
        offset = t[8:] if len(t) > 8 else date_raw.strip()[10:]
        candidate = f"{date_text}T{t[:8]}{offset}"
        value = parse_iso_datetime(candidate)
        if value is not None:
            return value
    return parse_iso_datetime(date_raw)


_GERMAN_DT = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})(?:\s*,?\s*(?:um\s*)?(\d{1,2}):(\d{2})(?::(\d{2}))?)?")


END_OF_DAY = time(23, 59)  # a deadline given as a date alone: the whole day counts


def parse_german_datetime(raw: str | None, *, default_time: time | None = None) -> datetime | None:
    """ "01.10.2026 12:00" (Europe/Berlin local time) -> aware datetime; a date alone gets ``default_time``
    (None: 00:00; deadlines pass ``END_OF_DAY``); "24:00" is the end of that day (``END_OF_DAY``)."""
    if not raw:
        return None
    match = _GERMAN_DT.search(raw)
    if not match:
        return None
    day, month, year, hour, minute, second = match.groups()
    if hour is None and default_time is not None:
        hour, minute, second = default_time.hour, default_time.minute, default_time.second
    elif hour is not None and int(hour) == 24 and int(minute) == 0 and not int(second or 0):
        # "22.12.2026 24:00" (NetServer) is the end of the 22nd, stored like a date-only deadline,
        # so it is shown on the day the portal names and not as 00:00 of the next one.
        hour, minute, second = END_OF_DAY.hour, END_OF_DAY.minute, END_OF_DAY.second
    try:
        value = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
    except ValueError:
        return None
    return plausible_datetime(value.replace(tzinfo=BERLIN))


EMPTY_VALUES = (None, "", (), [])


def first_nonempty(*values):
    for value in values:
        if value not in EMPTY_VALUES:
            return value
    return None


# Appended for the OCDS/TED parsers. ISO 3166-1 alpha-3 codes of NUTS countries pass the NUTS
# pattern ("DEU", "EST") but are no NUTS codes; TED's ``place-of-performance`` mixes both.
_NUTS_COUNTRY_PREFIXES = frozenset(
    {
        "AL",
        "AT",
        "BE",
        "BG",
        "CH",
        "CY",
        "CZ",
        "DE",
        "DK",
        "EE",
        "EL",
        "ES",
        "FI",
        "FR",
        "HR",
        "HU",
        "IE",
        "IS",
        "IT",
        "LI",
        "LT",
        "LU",
        "LV",
        "ME",
        "MK",
        "MT",
        "NL",
        "NO",
        "PL",
        "PT",
        "RO",
        "RS",
        "SE",
        "SI",
        "SK",
        "TR",
        "UK",
    }
)
_ALPHA3_COUNTRIES = frozenset(
    {
        "ALB",
        "AUT",
        "BEL",
        "BGR",
        "CHE",
        "CYP",
        "CZE",
        "DEU",
        "DNK",
        "EST",
        "GRC",
        "ESP",
        "FIN",
        "FRA",
        "HRV",
        "HUN",
        "IRL",
        "ISL",
        "ITA",
        "LIE",
        "LTU",
        "LUX",
        "LVA",
        "MNE",
        "MKD",
        "MLT",
        "NLD",
        "NOR",
        "POL",
        "PRT",
        "ROU",
        "SRB",
        "SWE",
        "SVN",
        "SVK",
        "TUR",
        "GBR",
    }
)


def nuts_codes_from(values) -> tuple[str, ...]:
    """Plausible NUTS codes among ``values``: normalised, deduplicated, first-seen order.

    Drops alpha-3 country codes ("DEU") and words whose first two letters are no NUTS
    country ("WIEN"); non-string items are ignored.
    """
    found: dict[str, None] = {}
    for value in values or ():
        code = normalise_nuts(value) if isinstance(value, str) else ""
        if code and code[:2] in _NUTS_COUNTRY_PREFIXES and code not in _ALPHA3_COUNTRIES:
            found[code] = None
    return tuple(found)
