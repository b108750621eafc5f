"""Organisations: the list of companies, and the buyer.

eForms names every organisation once, in ``efac:Organizations/efac:Organization/
efac:Company``, and refers to it by id (``ORG-0001``) from the buyer
(``cac:ContractingParty``) and from the tendering parties of results. Legacy
DÖE exports (eforms-sdk-0.1) have no organisation list and name the buyer
inline in ``cac:ContractingParty/cac:Party/cac:PartyName``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernel.addresses import name_without_contact_block, split_town
from kernel.vocabulary.regions import normalise_nuts

from .tree import Element, find, findall, first, localised


def organisations(ext: Element) -> dict[str, Element]:
    """``efac:Company`` elements by their organisation id (first one wins on duplicates)."""
    orgs: dict[str, Element] = {}
    for company in findall(ext, "efac:Organizations/efac:Organization/efac:Company"):
        org_id = first(company, "cac:PartyIdentification/cbc:ID")
        if org_id:
            orgs.setdefault(org_id, company)
    return orgs


@dataclass(frozen=True, slots=True)
class Buyer:
    name: str = ""
    legal_id: str = ""
    nuts: str = ""
    street: str = ""
    postal_code: str = ""
    town: str = ""
    country: str = ""
    email: str = ""
    phone: str = ""


def buyer(root: Element, orgs: dict[str, Element]) -> Buyer:
    """The first buyer: name, legal id, seat and contact; empty when unknown.

    The organisation id (``ORG-…``) is notice-local and therefore never returned as buyer id.
    Legacy notices sometimes put the whole contact block into the name; it is cut to the name.
    """
    party = find(root, "cac:ContractingParty/cac:Party")
    company = orgs.get(first(party, "cac:PartyIdentification/cbc:ID"))
    for holder in (company, party):
        raw_name = localised(holder, "cac:PartyName/cbc:Name")
        if not raw_name:
            continue
        address = find(holder, "cac:PostalAddress")
        street = " ".join(filter(None, (first(address, "cbc:StreetName"), first(address, "cbc:BuildingNumber"))))
        town, postal_code = split_town(first(address, "cbc:CityName"), first(address, "cbc:PostalZone"))
        return Buyer(
            name=name_without_contact_block(raw_name),
            legal_id=first(holder, "cac:PartyLegalEntity/cbc:CompanyID"),
            nuts=normalise_nuts(first(address, "cbc:CountrySubentityCode")),
            street=street,
            postal_code=postal_code,
            town=town,
            country=first(address, "cac:Country/cbc:IdentificationCode").upper(),
            email=first(holder, "cac:Contact/cbc:ElectronicMail"),
            phone=first(holder, "cac:Contact/cbc:Telephone"),
        )
    return Buyer()
