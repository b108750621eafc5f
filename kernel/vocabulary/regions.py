"""The Bundesländer and NUTS codes: which Land a NUTS code or a postcode table names, and which
strings are NUTS codes at all.

Each Land once, with the two keys the sources use: its NUTS level 1 code (notices) and its
abbreviation (the postcode table, ``postcodes``).
"""

from __future__ import annotations

import re
from functools import lru_cache

# (abbreviation, NUTS level 1, name)
_LAENDER: tuple[tuple[str, str, str], ...] = (
    ("BW", "DE1", "Baden-Württemberg"),
    ("BY", "DE2", "Bayern"),
    ("BE", "DE3", "Berlin"),
    ("BB", "DE4", "Brandenburg"),
    ("HB", "DE5", "Bremen"),
    ("HH", "DE6", "Hamburg"),
    ("HE", "DE7", "Hessen"),
    ("MV", "DE8", "Mecklenburg-Vorpommern"),
    ("NI", "DE9", "Niedersachsen"),
    ("NW", "DEA", "Nordrhein-Westfalen"),
    ("RP", "DEB", "Rheinland-Pfalz"),
    ("SL", "DEC", "Saarland"),
    ("SN", "DED", "Sachsen"),
    ("ST", "DEE", "Sachsen-Anhalt"),
    ("SH", "DEF", "Schleswig-Holstein"),
    ("TH", "DEG", "Thüringen"),
)
# NUTS level 1 of Germany -> Bundesland.
BUNDESLAENDER: dict[str, str] = {nuts: name for _, nuts, name in _LAENDER}
# Abbreviation -> Bundesland.
LAND_NAMES: dict[str, str] = {abbreviation: name for abbreviation, _, name in _LAENDER}


def bundesland_for_nuts(nuts_codes: tuple[str, ...] | list[str]) -> str:
    """The Bundesland of the first German NUTS code, or "" (several Länder: the first wins)."""
    for code in nuts_codes:
        code = (code or "").strip().upper()
        if code.startswith("DE") and len(code) >= 3 and code[:3] in BUNDESLAENDER:
            return BUNDESLAENDER[code[:3]]
    return ""


@lru_cache(maxsize=8192)  # a handful of codes recur in every notice of a region
def normalise_nuts(raw: str | None) -> str:
    code = (raw or "").strip().upper().replace(" ", "")
    return code if re.fullmatch(r"[A-Z]{2}[0-9A-Z]{0,3}", code) else ""


# ISO 3166-1 alpha-3 codes of NUTS countries pass the NUTS pattern ("DEU", "EST") but are no
# NUTS codes; TED's ``place-of-performance`` mixes both.
# Read across: the formatter would give each code a line of its own (80 lines for two lists).
# fmt: off
_NUTS_COUNTRY_PREFIXES = frozenset(
    {
        "AL", "AT", "BE", "BG", "CH", "CY", "CZ", "DE", "DK", "EE", "EL", "ES", "FI", "FR", "HR", "HU", "IE",
        "IS", "IT", "LI", "LT", "LU", "LV", "ME", "MK", "MT", "NL", "NO", "PL", "PT", "RO", "RS", "SE", "SI",
        "SK", "TR", "UK",
    }
)
_ALPHA3_COUNTRIES = frozenset(
    {
        "ALB", "AUT", "BEL", "BGR", "CHE", "CYP", "CZE", "DEU", "DNK", "EST", "GRC", "ESP", "FIN", "FRA", "HRV",
        "HUN", "IRL", "ISL", "ITA", "LIE", "LTU", "LUX", "LVA", "MNE", "MKD", "MLT", "NLD", "NOR", "POL", "PRT",
        "ROU", "SRB", "SWE", "SVN", "SVK", "TUR", "GBR",
    }
)
# fmt: on


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
