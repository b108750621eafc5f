"""Award results from TED search results: flat per-notice lists, aligned with the lots where they can be.

In a result notice TED returns ``winner-name`` once per lot result (names repeat when one company wins
several lots), but ``winner-identifier``/``winner-city``/``winner-country`` once per distinct winner;
``tender-value`` once per lot result; ``received-submissions-type-code``/``-val`` as pairs, one
``tenders`` pair per lot. The saved notice 291981-2026 (Stadt Worms, three lots, two winners) has
exactly this shape. Lists that do not line up with the lots are not guessed: that part stays empty.
"""

from __future__ import annotations

from typing import Any

from kernel.normalise import clean_text, parse_decimal
from kernel.records import Award, AwardStatus


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):  # a language map: the first language present
        for language in ("deu", "ger", "de", "eng", "en", *value):
            if texts := _texts(value.get(language)):
                return texts
    return []


def _tender_counts(obj: dict) -> list[int | None]:
    codes = _texts(obj.get("received-submissions-type-code"))
    values = _texts(obj.get("received-submissions-type-val"))
    if len(codes) != len(values):
        return []
    pairs = zip(codes, values, strict=True)
    return [int(v) if v.isascii() and v.isdigit() else None for c, v in pairs if c.lower() == "tenders"]


def ted_awards(obj: dict, lot_ids: list[str]) -> tuple[Award, ...]:
    """One award per lot result with its winner, value and tender count (when the lists line up)."""
    names = [clean_text(n) for n in _texts(obj.get("winner-name"))]
    if not names:
        return ()
    distinct = list(dict.fromkeys(names))
    details: dict[str, dict[str, str]] = {name: {} for name in distinct}
    for field, key in (("winner-identifier", "id"), ("winner-city", "town"), ("winner-country", "country")):
        values = _texts(obj.get(field))
        if len(values) == len(distinct):
            for name, value in zip(distinct, values, strict=True):
                details[name][key] = value
    amounts = _texts(obj.get("tender-value"))
    currencies = _texts(obj.get("tender-value-cur"))
    counts = _tender_counts(obj)
    per_lot = len(names) == len(lot_ids)
    awards = []
    for index, name in enumerate(names):
        value = parse_decimal(amounts[index]) if len(amounts) == len(names) else None
        currency = (currencies[index] if len(currencies) == len(names) else currencies[0] if currencies else "").upper()
        awards.append(
            Award(
                lot_id=lot_ids[index] if per_lot else "",
                status=AwardStatus.AWARDED,
                supplier_name=name,
                supplier_id=details[name].get("id", ""),
                supplier_town=details[name].get("town", ""),
                supplier_country=details[name].get("country", "").upper(),
                value=value,
                currency=currency if value is not None else "",
                tenders_received=counts[index] if per_lot and len(counts) == len(names) else None,
            )
        )
    return tuple(awards)
