"""Country names from the eForms SDK country list (``data/country_names.csv``, see ``data/README.md``).

Notices name a country by ISO 3166-1 alpha-3 ("DEU", "FRA"), as eForms does; a two-letter code is
read as a NUTS country ("DE", "EL" for Greece), the way a place's NUTS code begins.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

from kernel.vocabulary.nuts import nuts_name

_TABLE = Path(__file__).with_name("data") / "country_names.csv"


@lru_cache(maxsize=1)
def _names() -> dict[str, tuple[str, str]]:
    with _TABLE.open(encoding="utf-8", newline="") as handle:
        return {row["code"]: (row["de"], row["en"] or row["de"]) for row in csv.DictReader(handle)}


def country_name(code: str | None, language: str | None = "de") -> str:
    """ "FRA" → "Frankreich" (German) or "France" (else); "" for an unknown code."""
    key = (code or "").strip().upper()
    if len(key) == 2:
        return nuts_name(key, language)
    entry = _names().get(key)
    if entry is None:
        return ""
    german, english = entry
    return german if (language or "de").lower().startswith("de") else english
