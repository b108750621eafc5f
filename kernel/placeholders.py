"""Values that fill a mandatory form field without saying anything: dropped at the ingest boundary."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

# "1 EUR" (and 0) is what forms get when the buyer will not state a value.
PLACEHOLDER_AMOUNT_LIMIT = Decimal(1)
_PLACEHOLDER_TEXT = re.compile(
    r"^(?:-+|\.+|/|k\.?\s?a\.?|n/?a|keine angabe|siehe .*|s\. .*|diverse|verschiedene|unbekannt|"
    r"standort de[rs] (?:beauftragten|auftragnehmer).*|ort der leistung.*|beim auftragnehmer.*|xxx+)$",
    re.IGNORECASE,
)


# TED fills the mandatory root ``TenderResult/AwardDate`` of eForms notices with 2000-01-01 (it stands in the
# eForms SDK's own examples); no award of a notice in these exports is that old, so any earlier date says nothing.
PLACEHOLDER_DATES_BEFORE = date(2000, 1, 2)


# The TED XML Data Converter (OP-TED/ted-xml-data-converter, xslt/functions-and-data.xslt) writes these fixed
# values, the eForms SDK examples' own, as notice id (BT-701) and procedure id (BT-04) of every notice it converts
# when its caller gives none: they name no notice and no procedure, and taken as ids they made every converted
# notice one notice of one tender.
CONVERTER_DEFAULT_IDS = frozenset({"f252f386-55ac-4fa8-9be4-9f950b9904c8", "aff2863e-b4cc-4e91-baba-b3b85f709117"})


def placeholder_identifier(value: str) -> bool:
    return value.strip().lower() in CONVERTER_DEFAULT_IDS


def placeholder_date(value: date | None) -> bool:
    return value is not None and value < PLACEHOLDER_DATES_BEFORE


def placeholder_amount(value: Decimal | None) -> bool:
    return value is not None and value <= PLACEHOLDER_AMOUNT_LIMIT


def without_placeholder(text: str) -> str:
    """``text``, or "" when it only stands in for a value ("-", "k. A.", "Standort der beauftragten Firma")."""
    return "" if text and _PLACEHOLDER_TEXT.match(text.strip()) else text


def plausible_buyer_id(value: str) -> str:
    """A buyer identifier has digits (Leitweg-ID, VAT, register number); names and "-" are no ids."""
    return value if any(ch.isdigit() for ch in value) else ""
