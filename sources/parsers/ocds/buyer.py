"""The buyer of an OCDS release: its party, its identifier (DÖE swaps them) and its seat and contact."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kernel.addresses import name_without_contact_block
from kernel.normalise import clean_text, normalise_postal_code

from .values import as_dict, as_dicts, as_str, as_strs


def buyer_party(release: dict) -> dict:
    """The party with role "buyer" that ``release.buyer`` points at, else the first buyer party.

    Both ``buyer.id`` and ``buyer.identifier.id`` are tried as references because DÖE swaps
    them; a reference to a non-buyer party (DÖE once points at the supplier) is ignored.
    """
    buyers = [p for p in as_dicts(release.get("parties")) if "buyer" in as_strs(p.get("roles"))]
    buyer = as_dict(release.get("buyer"))
    refs = {as_str(buyer.get("id")), as_str(as_dict(buyer.get("identifier")).get("id"))} - {""}
    for party in buyers:
        if as_str(party.get("id")) in refs:
            return party
    return buyers[0] if buyers else {}


_INTERNAL_PARTY_ID = re.compile(r"^(ORG|TPO|TEN|CON|RES)-\d{3,}$", re.IGNORECASE)
_LEITWEG_ID = re.compile(r"^\d{2,12}(?:-[0-9A-Z]{1,30})?-\d{2}$", re.IGNORECASE)
_PHONE_PREFIX = re.compile(r"^\s*(?:t|tel|telefon|phone|fon)\s*[:.]", re.IGNORECASE)
_PHONE_CHARS = re.compile(r"^[\d\s()/+\-.]+$")


def _plausible_org_id(value: str) -> bool:
    """An organisation identifier worth keeping: not a phone number, not an internal party id.

    Leitweg-IDs ("991-12345-67", "11-1300000V00-74") and VAT/registration ids ("DE321903299",
    "DE 129 420 400") pass; "t: +49 46 32 84 91 0", "+49 431 988", "089 62730267", "000" and
    "ORG-0001" do not.
    """
    value = value.strip()
    if not value or _INTERNAL_PARTY_ID.match(value) or _PHONE_PREFIX.match(value):
        return False
    if _LEITWEG_ID.match(value):
        return True
    return not (_PHONE_CHARS.match(value) and (value.startswith(("+", "0")) or " " in value))


def resolve_buyer_id(release: dict, *, party: dict | None = None) -> str:
    """The buyer's organisation identifier (Leitweg-ID, VAT or registration id), or "".

    DÖE quirk: ``buyer.id`` holds the organisation identifier and ``buyer.identifier.id`` the
    internal party id ("ORG-0001"), and the organisation identifier is frequently a phone number.
    Candidates in order: the buyer party's ``identifier.id``, its ``additionalIdentifiers[].id``,
    then ``buyer.id`` and ``buyer.identifier.id``; the first plausible one wins.
    """
    if not isinstance(release, dict):
        return ""
    party = buyer_party(release) if party is None else party
    buyer = as_dict(release.get("buyer"))
    candidates = [as_str(as_dict(party.get("identifier")).get("id"))]
    candidates += [as_str(i.get("id")) for i in as_dicts(party.get("additionalIdentifiers"))]
    candidates += [as_str(buyer.get("id")), as_str(as_dict(buyer.get("identifier")).get("id"))]
    return next((c for c in candidates if _plausible_org_id(c)), "")


@dataclass(frozen=True, slots=True)
class BuyerDetails:
    name: str = ""
    street: str = ""
    postal_code: str = ""
    town: str = ""
    country: str = ""
    region: str = ""
    email: str = ""
    phone: str = ""


def buyer_details(release: dict, country_code, *, party: dict | None = None) -> BuyerDetails:
    """Name (without a pasted contact block), seat and contact of the buyer (``party``: its ``buyer_party``)."""
    party = buyer_party(release) if party is None else party
    buyer = as_dict(release.get("buyer"))
    address = as_dict(party.get("address")) or as_dict(buyer.get("address"))
    contact = as_dict(party.get("contactPoint")) or as_dict(buyer.get("contactPoint"))
    raw_name = (
        as_str(buyer.get("name"))
        or as_str(party.get("name"))
        or as_str(as_dict(as_dict(release.get("tender")).get("procuringEntity")).get("name"))
    )
    return BuyerDetails(
        name=name_without_contact_block(raw_name) if raw_name else "",
        street=clean_text(as_str(address.get("streetAddress"))),
        postal_code=normalise_postal_code(as_str(address.get("postalCode"))),
        town=clean_text(as_str(address.get("locality"))),
        country=country_code([address]),
        region=as_str(address.get("region")),
        email=as_str(contact.get("email")),
        phone=as_str(contact.get("telephone")),
    )
