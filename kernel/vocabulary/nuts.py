"""The names of NUTS codes, from the eForms SDK code lists (``data/nuts_names.csv``, see ``data/README.md``).

Every German code is named, at every level (Land, Regierungsbezirk, Kreis), including the Kreise
NUTS 2024 retired, which older notices still carry. Abroad only the countries are named: a
foreign region code shows its country ("AT130" - Österreich), which says what a German reader
needs (the work is abroad) without carrying some 1,700 foreign region names.

NUTS names are official in the region's own language, so a German region has the same name in
English; only the countries have an English name of their own.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

_TABLE = Path(__file__).with_name("data") / "nuts_names.csv"


@lru_cache(maxsize=1)
def _names() -> dict[str, tuple[str, str]]:
    with _TABLE.open(encoding="utf-8", newline="") as handle:
        return {row["code"]: (row["de"], row["en"] or row["de"]) for row in csv.DictReader(handle)}


def nuts_name(code: str | None, language: str | None = "de") -> str:
    """The name of a NUTS code in ``language`` ("de", else English), or "" for an unknown code.

    A German code is named only when it is in the list: a typo in a Kreis code ("DE2X9") names
    nothing rather than a region the buyer did not mean.
    """
    key = (code or "").strip().upper()
    names = _names()
    entry = names.get(key)
    if entry is None and len(key) > 2 and not key.startswith("DE"):
        entry = names.get(key[:2])
    if entry is None:
        return ""
    german, english = entry
    return german if (language or "de").lower().startswith("de") else english


def nuts_labelled(codes, language: str | None = "de") -> list[dict[str, str]]:
    """Each code with its name, in order: ``[{"code": "DE212", "name": "München, Kreisfreie Stadt"}]``."""
    return [{"code": code, "name": nuts_name(code, language)} for code in codes or ()]
