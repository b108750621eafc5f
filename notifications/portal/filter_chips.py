"""The chips of a chip picker (CPV codes, Kreise): each chosen value with the label a person reads.

Pure presentation: values come as the URL or the saved search carries them, valid or not; an unknown
value is shown as typed (and marked), the filter's own error says what is wrong with it. A Kreis named
by NUTS-3 code or name ("DE212", "München, Landkreis") is shown, and submitted again, by its key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from kernel.vocabulary.cpv import cpv_entry
from kernel.vocabulary.places import kreis_lookup


@dataclass(frozen=True)
class Chip:
    value: str  # submitted again as the parameter's value
    label: str
    known: bool


def _cpv_chip(raw: str, language: str) -> Chip:
    # A prefix names the code it is the start of: "4521" is the class 45210000.
    digits = re.sub(r"[^0-9]", "", raw.split("-")[0])
    entry = cpv_entry(digits.ljust(8, "0")) if 2 <= len(digits) <= 8 else None
    if entry is None:
        return Chip(raw, raw, False)
    return Chip(raw, f"{entry.code if len(digits) == 8 else digits} {entry.label_in(language)}", True)


def _kreis_chips(raw: str) -> list[Chip]:
    # A name holds a comma ("München, Landkreis"); anything else may be a comma-separated list.
    parts = [raw] if kreis_lookup(raw) else [part.strip() for part in raw.split(",") if part.strip()]
    chips = []
    for part in parts:
        kreis = kreis_lookup(part)
        chips.append(Chip(kreis.key, kreis.name, True) if kreis else Chip(part, part, False))
    return chips


def picker_chips(vocabulary: str, values: Iterable[str], *, language: str = "de") -> list[Chip]:
    """The chips for the chosen ``values`` of a picker over ``vocabulary`` ("cpv" or "kreise"), once each."""
    chips: dict[str, Chip] = {}
    for raw in (str(value).strip() for value in values):
        if not raw:
            continue
        if vocabulary == "kreise":
            found = _kreis_chips(raw)
        else:
            found = [_cpv_chip(part.strip(), language) for part in raw.split(",") if part.strip()]
        for chip in found:
            chips.setdefault(chip.value, chip)
    return list(chips.values())
