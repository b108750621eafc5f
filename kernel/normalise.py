"""Pure normalisation helpers shared by every adapter: texts, amounts, postcodes, dates.

Portals disagree on almost everything: amounts as ``1.234,56`` or ``1234.56``, dates as ISO
with offsets or as ``dd.mm.yyyy HH:MM`` local time. These functions fold them into the
canonical forms stored on ``Tender``. The code lists (CPV, procedure types, NUTS and
Bundesländer, the time zone) are shared vocabulary: ``kernel.vocabulary``.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation

from kernel.memo import short_text_memo
from kernel.vocabulary.time_zone import BERLIN

# Postcodes, dates, towns and names repeat across notices and between a notice's eForms XML and
# its OCDS twin (parsed in the same worker): their normalised value is computed once per process.
# The caches are bounded and hold only immutable values (str, datetime, tuples of str).
MEMO_SIZE = 8192
# Only short values are remembered (kernel.memo): a date or postcode field holding a pasted
# paragraph (hostile or broken input) is computed, not kept.
MEMO_MAX_CHARS = 64


def normalise_postal_code(raw: str | None) -> str:
    return _postal_code(raw or "")


@short_text_memo(max_chars=MEMO_MAX_CHARS, maxsize=MEMO_SIZE)
def _postal_code(raw: str) -> str:
    match = re.search(r"\b(\d{5})\b", raw)
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


@short_text_memo(max_chars=MEMO_MAX_CHARS, maxsize=MEMO_SIZE)
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
