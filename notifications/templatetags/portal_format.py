"""Formatting for portal templates: money and counts per locale, deadline distance, safe external links."""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from datetime import datetime, time
from decimal import Decimal

from django import template
from django.utils import numberformat, timezone
from django.utils.dateformat import re_formatchars
from django.utils.formats import date_format, get_format, number_format
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from kernel.vocabulary.nuts import nuts_name
from notifications.bid_dates import ITEM_LABELS
from notifications.portal.formatting import deadline_distance, notice_text
from sources.selectors import source_names

register = template.Library()

_SYMBOLS = {"EUR": "€"}


@register.filter
def money(value, currency: str = "EUR") -> str:
    """250000 → "250.000 €" (German) or "€250,000" (English); cents only when there are any."""
    if value in (None, ""):
        return "–"
    amount = Decimal(str(value))
    places = 0 if amount == amount.to_integral_value() else 2
    language = get_language()
    decimal_separator, grouping, thousand_separator = _number_separators(language)
    # django.utils.formats.number_format, with the language's separators looked up once (a result page has 25).
    number = numberformat.format(
        amount, decimal_separator, places, grouping, thousand_separator, force_grouping=True, use_l10n=True
    )
    code = (currency or "EUR").upper()
    symbol = _SYMBOLS.get(code)
    english = symbol and (language or "de").startswith("en")
    text = f"{symbol}{number}" if english else f"{number} {symbol or code}"
    return SafeString(f'<span class="amount">{html.escape(text)}</span>')  # an amount never breaks across lines


@functools.lru_cache(maxsize=16)
def _number_separators(language: str | None) -> tuple[str, object, str]:
    return (
        get_format("DECIMAL_SEPARATOR", language, use_l10n=True),
        get_format("NUMBER_GROUPING", language, use_l10n=True),
        get_format("THOUSAND_SEPARATOR", language, use_l10n=True),
    )


@register.filter
def when(value) -> str:
    """A moment in the active language's short format; a date-only value (local midnight) without "00:00"."""
    if value in (None, ""):
        return ""
    if not isinstance(value, datetime):
        return date_format(value, "SHORT_DATE_FORMAT") if hasattr(value, "year") else str(value)
    local = timezone.localtime(value) if timezone.is_aware(value) else value
    if local.time() == time(0, 0):
        return date_text(local, "SHORT_DATE_FORMAT")
    return date_text(local, "SHORT_DATETIME_FORMAT")


# The letters of the short formats (de "d.m.Y H:i", en "d/m/Y H:i"), written as django.utils.dateformat writes them.
_DATE_LETTERS: dict[str, Callable] = {
    "d": lambda value: f"{value.day:02d}",
    "m": lambda value: f"{value.month:02d}",
    "Y": lambda value: f"{value.year:04d}",
    "H": lambda value: f"{value.hour:02d}",
    "i": lambda value: f"{value.minute:02d}",
}


@functools.lru_cache(maxsize=32)
def _date_pieces(format_string: str) -> tuple | None:
    """A format as literal texts and letter writers; None when it has another letter or an escape."""
    if "\\" in format_string:
        return None
    pieces = []
    for index, piece in enumerate(re_formatchars.split(format_string)):
        if index % 2:
            if piece not in _DATE_LETTERS:
                return None
            pieces.append(_DATE_LETTERS[piece])
        elif piece:
            pieces.append(piece)
    return tuple(pieces)


@functools.lru_cache(maxsize=32)
def _language_date_pieces(language: str | None, format_name: str) -> tuple | None:
    return _date_pieces(get_format(format_name, language))


def date_text(value, format_name: str) -> str:
    """``date_format(value, format_name)``, the same text; a result list writes three per row, and Django's
    formatter sets up a formatter object (checking the moment against its time zone's changes) for each."""
    pieces = _language_date_pieces(get_language(), format_name)
    if pieces is None or not isinstance(value, datetime):
        return date_format(value, format_name)
    return "".join(piece if isinstance(piece, str) else piece(value) for piece in pieces)


@register.filter
def source_name(key) -> str:
    """A source's name for people ("TED (Tenders Electronic Daily)"), not its key ("ted")."""
    return source_names().get(str(key), str(key))


@register.filter
def nuts_named(code) -> str:
    """The code with its name in the active language ("DE212 – München, Kreisfreie Stadt"), else the code alone."""
    name = nuts_name(code, get_language())
    return f"{code} – {name}" if name else str(code)


@register.filter
def notice_named(notice_id, publication_number: str = "") -> str:
    """A notice by its publication number, else its portal id; "" for an eForms UUID (``formatting.notice_text``)."""
    return notice_text(str(notice_id or ""), str(publication_number or ""))


@register.filter
def grouped(value) -> str:
    """A count with the locale's thousands separator (1.234 / 1,234)."""
    if value in (None, ""):
        return ""
    return number_format(value, decimal_pos=0, use_l10n=True, force_grouping=True)


@register.simple_tag
def deadline_in(deadline):
    """DeadlineDistance (``.text``, ``.urgency``) of a deadline from now, or None."""
    return deadline_distance(deadline, now=timezone.now())


@register.filter
def email_wrapped(value) -> str:
    """An e-mail address that a narrow line breaks at its "@" (and only inside if a part is still too long)."""
    text = str(value or "")
    local, at, domain = text.partition("@")
    if not at:
        return format_html('<span class="breakable" title="{}">{}</span>', text, text)
    return format_html('<span class="breakable" title="{}">{}<wbr>@{}</span>', text, local, domain)


@register.filter
def dated_item_label(kind: str, stored: str = "") -> str:
    """A card's dated item in the reader's language; a history row keeps the label it was written with as fallback."""
    return str(ITEM_LABELS[kind]) if kind in ITEM_LABELS else stored or kind
