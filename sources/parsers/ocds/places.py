"""Places of delivery of an OCDS release: addresses, NUTS, postcode and town, country."""

from __future__ import annotations

import re

from kernel.addresses import town_in_text
from kernel.normalise import clean_text, normalise_postal_code
from kernel.vocabulary.regions import nuts_codes_from

from .values import as_dict, as_dicts, as_str, as_strs


def delivery_places(tender: dict) -> tuple[list[dict], list[dict]]:
    """Delivery addresses and locations of tender, items and lots (location extension, both spellings)."""
    holders = [tender, *as_dicts(tender.get("items")), *as_dicts(tender.get("lots"))]
    addresses: list[dict] = []
    locations: list[dict] = []
    for holder in holders:
        addresses += [as_dict(holder.get("deliveryAddress")), *as_dicts(holder.get("deliveryAddresses"))]
        locations += [as_dict(holder.get("deliveryLocation")), *as_dicts(holder.get("deliveryLocations"))]
    return [a for a in addresses if a], [loc for loc in locations if loc]


def nuts(addresses: list[dict], locations: list[dict]) -> tuple[str, ...]:
    raw = [as_str(a.get("region")) for a in addresses]
    for location in locations:
        gazetteer = as_dict(location.get("gazetteer"))
        if "NUTS" in as_str(gazetteer.get("scheme")).upper():
            raw += as_strs(gazetteer.get("identifiers"))
    return nuts_codes_from(raw)


_PLZ_TOWN = re.compile(r"\b(\d{5})[ \t]+([^\n,;]+)")


def postal_code_and_town(addresses: list[dict], locations: list[dict]) -> tuple[str, str]:
    """First delivery postal code and town; else "PLZ Ort" in an address line (``streetAddress``) or in a
    location's free-text description."""
    postal = next((c for c in (normalise_postal_code(as_str(a.get("postalCode"))) for a in addresses) if c), "")
    town = next((t for t in (clean_text(as_str(a.get("locality"))) for a in addresses) if t), "")
    for address in addresses:  # e.g. {"streetAddress": "Hauptstraße 1, 06108 Halle (Saale)"}
        if not postal or not town:
            line_town, line_postal = town_in_text(as_str(address.get("streetAddress")))
            postal, town = postal or line_postal, town or line_town
    for location in locations:  # e.g. "Landkreis Harz\nSternstraße 11\n38820 Halberstadt"
        if (not postal or not town) and (match := _PLZ_TOWN.search(as_str(location.get("description")))):
            postal, town = postal or match.group(1), town or clean_text(match.group(2))
    return postal, town


# OCDS 1.1 has only countryName (DÖE writes "DEU"); the OCP eForms mapping writes address.country as
# ISO alpha-2 ("NO"). Alpha-2 is read for the countries of EU/EEA notices; others stay unread.
_COUNTRY_ALIASES = {
    "DEUTSCHLAND": "DEU", "GERMANY": "DEU",
    "AL": "ALB", "AT": "AUT", "BE": "BEL", "BG": "BGR", "CH": "CHE", "CY": "CYP", "CZ": "CZE", "DE": "DEU",
    "DK": "DNK", "EE": "EST", "ES": "ESP", "FI": "FIN", "FR": "FRA", "GB": "GBR", "GR": "GRC", "HR": "HRV",
    "HU": "HUN", "IE": "IRL", "IS": "ISL", "IT": "ITA", "LI": "LIE", "LT": "LTU", "LU": "LUX", "LV": "LVA",
    "ME": "MNE", "MK": "MKD", "MT": "MLT", "NL": "NLD", "NO": "NOR", "PL": "POL", "PT": "PRT", "RO": "ROU",
    "RS": "SRB", "SE": "SWE", "SI": "SVN", "SK": "SVK", "TR": "TUR", "UA": "UKR",
}  # fmt: skip


def country(addresses: list[dict]) -> str:
    for address in addresses:
        raw = (as_str(address.get("countryName")) or as_str(address.get("country"))).upper()
        code = _COUNTRY_ALIASES.get(raw, raw)
        if re.fullmatch(r"[A-Z]{3}", code):
            return code
    return ""
