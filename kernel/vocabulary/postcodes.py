"""German postcode (PLZ) -> Bundesland, from ranges of GeoNames' postcode list (``data/README.md``).

A postcode inside a run of known postcodes of one Land belongs to it; postcodes listed under two
Länder, and gaps between runs of different Länder, decide nothing (""), so a wrong guess never
overrides a NUTS code.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from pathlib import Path

from kernel.vocabulary.regions import LAND_NAMES

_TABLE = Path(__file__).with_name("data") / "postcode_laender.txt"


@lru_cache(maxsize=1)
def _ranges() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    starts, ends, lands = [], [], []
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        span, land = line.split()
        first, last = span.split("-")
        starts.append(first)
        ends.append(last)
        lands.append(LAND_NAMES[land])
    return tuple(starts), tuple(ends), tuple(lands)


def bundesland_for_postcode(postal_code: str | None) -> str:
    """The Bundesland of a five-digit German postcode, or ""."""
    code = (postal_code or "").strip()
    if len(code) != 5 or not (code.isascii() and code.isdigit()):
        return ""
    starts, ends, lands = _ranges()
    index = bisect_right(starts, code) - 1
    return lands[index] if index >= 0 and code <= ends[index] else ""
