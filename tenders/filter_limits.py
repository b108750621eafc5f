"""What filter input may hold: bounds that keep every filter expressible in the database.

A filter is typed by a user (portal), sent by a partner (API) or stored long ago
(saved searches, re-read on every matching round). Anything PostgreSQL cannot take
as a parameter must be refused here with a message, not fail later inside a query:

* text with NUL or other control characters (PostgreSQL text cannot hold NUL; the
  driver refuses it before the query runs) or with lone UTF-16 surrogates (JSON may
  carry them, UTF-8 cannot encode them);
* amounts beyond ``numeric(18, 2)`` of ``Tender.estimated_value`` ("numeric field
  overflow" — one such saved search used to make its tenant's matching fail);
* dates outside a sane window, over-long strings, and more values than any form offers.

Pure functions; ``tenders.filters.parse_filters`` applies them to every parameter.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

# Tender.estimated_value is numeric(18, 2): at most 16 digits before the decimal point.
VALUE_MAX = Decimal("9999999999999999.99")
VALUE_MAX_TEXT = "9.999.999.999.999.999,99"
MAX_QUERY_LENGTH = 300
MAX_VALUE_LENGTH = 100  # one CPV code, Land, portal key, number or date as typed
MAX_VALUES_PER_PARAMETER = 100  # several CPV codes, Länder, sources or statuses
EARLIEST_DATE = date(1900, 1, 1)
LATEST_DATE = date(2999, 12, 31)

# C0 controls except tab, line feed and carriage return (those are whitespace in a search box),
# DEL, C1 controls, and lone surrogates.
_FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_WHITESPACE_CONTROLS = re.compile(r"[\t\n\r]+")


def text_problem(value: str, *, max_length: int = MAX_VALUE_LENGTH) -> str | None:
    """A German message when ``value`` cannot be a filter text; None when it can."""
    if _FORBIDDEN.search(value):
        return "Enthält unzulässige Steuerzeichen (z. B. ein Null-Byte)."
    if len(value) > max_length:
        return f"Zu lang: höchstens {max_length} Zeichen."
    return None


def query_problem(value: str) -> str | None:
    """Like ``text_problem`` for the keywords, whose limit is the search box's."""
    return text_problem(value, max_length=MAX_QUERY_LENGTH)


def normalise_whitespace(value: str) -> str:
    """Tabs and line breaks (pasted text) count as spaces."""
    return _WHITESPACE_CONTROLS.sub(" ", value)


def values_problem(values: list[str]) -> str | None:
    """A problem of a list parameter as a whole (count), or of its first bad element."""
    if len(values) > MAX_VALUES_PER_PARAMETER:
        return f"Höchstens {MAX_VALUES_PER_PARAMETER} Werte."
    for value in values:
        if problem := text_problem(value):
            return problem
    return None


def amount_problem(value: Decimal) -> str | None:
    if not value.is_finite() or value < 0:
        return "Bitte eine positive Zahl angeben."
    if value > VALUE_MAX:
        return f"Bitte einen Betrag bis höchstens {VALUE_MAX_TEXT} € angeben."
    return None


def date_problem(value: date) -> str | None:
    if not EARLIEST_DATE <= value <= LATEST_DATE:
        return f"Bitte ein Datum zwischen {EARLIEST_DATE:%d.%m.%Y} und {LATEST_DATE:%d.%m.%Y} angeben."
    return None
