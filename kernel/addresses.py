"""Buyer names, towns and the Bundesland of a place, as legacy and free-text notices write them."""

from __future__ import annotations

import re
from functools import lru_cache

from kernel.normalise import MEMO_SIZE, clean_text, normalise_postal_code
from kernel.vocabulary.postcodes import bundesland_for_postcode
from kernel.vocabulary.regions import bundesland_for_nuts

_POSTAL_IN_TOWN = re.compile(r"(?:D-?\s*)?(\d{5})\s+(\S.*)")
_STREET = r"[A-Za-zÄÖÜäöüß][\w.\-äöüß]*(?:stra(?:ß|ss)e|str\.|weg|platz|allee|gasse|ring|damm|ufer|chaussee)"
_STREET_WITH_NUMBER = re.compile(rf"(?:^|[\s,]){_STREET}\s*\d", re.IGNORECASE)
_CONTACT_START = re.compile(
    r"[\s,;]*(?:\b(?:tel(?:efon)?|fon|fax|telefax|e-?mail|mail|internet|www)\b\s*[.:]?|https?://|\bpostfach\s+\d|\b\d{5}\s+[A-ZÄÖÜ])",
    re.IGNORECASE,
)
_STREET_START = re.compile(rf"[\s,;]+{_STREET}\s*\d", re.IGNORECASE)
# A street without a house number: named with a preposition ("Am Rathaus", "In der Aue") or by a street word.
_STREET_WITHOUT_NUMBER = re.compile(
    rf"^(?:(?:am|an\s+de[mnr]|auf\s+de[mnr]|im|in\s+de[mnr]|zum|zur|beim|hinter\s+de[mnr]|vor\s+de[mnr])\s+\S.*|.*{_STREET})$",
    re.IGNORECASE,
)
# "13187 Berlin", "13187, Berlin" (Vergabeplattform Berlin's feed), "D-13187 Berlin".
_PLACE_WITH_POSTCODE = re.compile(r"^\s*(?:D\s*-\s*)?(\d{5})\s*(?:,\s*|\s+)(\S.*)$")
_PLZ_TOWN_IN_TEXT = re.compile(r"\b(\d{5})[ \t]+([A-ZÄÖÜ][^\n,;0-9]*)")


@lru_cache(maxsize=MEMO_SIZE)
def split_town(city: str, zone: str) -> tuple[str, str]:
    """(town, PLZ) from ``cbc:CityName`` and ``cbc:PostalZone`` as legacy notices fill them.

    Legacy DÖE writes "10178 Berlin" into the town and leaves the postal zone out, or even
    "10178 Alexanderstraße 3, Berlin" or "25421 Am Rathaus, Pinneberg" (PLZ, street, town): the street
    is dropped. A comma after a town ("25813 Husum, Nordsee") is kept.
    """
    postal = normalise_postal_code(zone)
    match = None if postal else _POSTAL_IN_TOWN.fullmatch(city)
    if not match:
        return city, postal
    town = match.group(2)
    head, comma, tail = town.rpartition(",")
    # "Anger 5, Erfurt", "Am Rathaus, Pinneberg": a house number or a street's name before the comma marks the street.
    if (
        comma
        and tail.strip()
        and (
            _STREET_WITH_NUMBER.search(head)
            or re.search(r"\s\d+\s*[a-zA-Z]?$", head)
            or _STREET_WITHOUT_NUMBER.match(head.strip())
        )
    ):
        town = tail.strip()
    return town, match.group(1)


def split_postcode_town(raw: str | None) -> tuple[str, str]:
    """(PLZ, town) of a place written "PLZ Ort" or "PLZ, Ort"; ("", text) when it starts with no postcode."""
    text = clean_text(raw)
    match = _PLACE_WITH_POSTCODE.match(text)
    if match:
        return match.group(1), clean_text(match.group(2))
    return "", text


@lru_cache(maxsize=MEMO_SIZE)
def name_without_contact_block(raw: str) -> str:
    """The organisation's name alone, when a legacy notice pasted street, phone, fax and e-mail into it."""
    name = clean_text(raw).split("\n", 1)[0]
    for pattern in (_CONTACT_START, _STREET_START):
        match = pattern.search(name)
        if match and match.start() >= 3:
            name = name[: match.start()]
    return name.strip(" ,;:-") or clean_text(raw)


@lru_cache(maxsize=MEMO_SIZE)
def town_in_text(text: str) -> tuple[str, str]:
    """(town, PLZ) of the first "12345 Ort" in free text (a place description, an address line), else ("", "")."""
    match = _PLZ_TOWN_IN_TEXT.search(text or "")
    return (clean_text(match.group(2)), match.group(1)) if match else ("", "")


_GERMANY = {"DEU", "DE", ""}


def country_is_germany(country: str | None) -> bool:
    """Germany, or no country stated: a place whose postcode may be read as a PLZ ("DEU", "DE", "")."""
    return (country or "").strip().upper() in _GERMANY


def bundesland_for_place(
    *,
    nuts_codes: tuple[str, ...] | list[str],
    postal_code: str,
    country: str,
    buyer_nuts: str = "",
    buyer_postal_code: str = "",
    buyer_country: str = "",
) -> str:
    """The Bundesland of the place of performance.

    The country is checked first: a place abroad has none, and a place that names no country is
    where its buyer is (an Italian buyer's "21027" is Ispra, not Hamburg). Then the postcode decides
    when it is known (a wrong NUTS code is the commoner error: buyers copy their own region); else
    the NUTS code. Only a place stated with neither postcode nor NUTS falls back to the buyer's seat,
    and only to a seat in Germany.
    """
    german_nuts = [code for code in nuts_codes if code.upper().startswith("DE")]
    place_country = (country or buyer_country).upper()
    if not country_is_germany(place_country) or (nuts_codes and not german_nuts):
        return ""
    by_postcode = bundesland_for_postcode(postal_code)
    if by_postcode or postal_code:
        return by_postcode or bundesland_for_nuts(german_nuts)
    if german_nuts:
        return bundesland_for_nuts(german_nuts)
    # A place in Germany whose buyer sits abroad: the seat's postcode is a foreign one ("75015" is
    # Paris, not Bretten), so it names no Land.
    if not country_is_germany(buyer_country):
        return ""
    return bundesland_for_postcode(buyer_postal_code) or bundesland_for_nuts([buyer_nuts])
