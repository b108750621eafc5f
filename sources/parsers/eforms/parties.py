"""Organisations: the buyer, and the results of award notices (status, winning suppliers).

eForms names every organisation once, in ``efac:Organizations/efac:Organization/
efac:Company``, and refers to it by id (``ORG-0001``) from the buyer
(``cac:ContractingParty``) and from the tendering parties of results. Legacy
DÖE exports (eforms-sdk-0.1) have no organisation list and name the buyer
inline in ``cac:ContractingParty/cac:Party/cac:PartyName``.
"""

from __future__ import annotations

from sources.normalise import normalise_nuts
from sources.records import TenderStatus

from .tree import NS, Element, first, localised, texts


def organisations(ext: Element) -> dict[str, Element]:
    """``efac:Company`` elements by their organisation id (first one wins on duplicates)."""
    orgs: dict[str, Element] = {}
    for company in ext.findall("efac:Organizations/efac:Organization/efac:Company", NS):
        org_id = first(company, "cac:PartyIdentification/cbc:ID")
        if org_id:
            orgs.setdefault(org_id, company)
    return orgs


def buyer(root: Element, orgs: dict[str, Element]) -> tuple[str, str, str]:
    """(name, legal id, NUTS of its address) of the first buyer; empty strings when unknown.

    The organisation id (``ORG-…``) is notice-local and therefore never returned as buyer id.
    """
    party = root.find("cac:ContractingParty/cac:Party", NS)
    company = orgs.get(first(party, "cac:PartyIdentification/cbc:ID"))
    for holder in (company, party):
        name = localised(holder, "cac:PartyName/cbc:Name")
        if name:
            legal_id = first(holder, "cac:PartyLegalEntity/cbc:CompanyID")
            return name, legal_id, normalise_nuts(first(holder, "cac:PostalAddress/cbc:CountrySubentityCode"))
    return "", "", ""


def results(ext: Element, orgs: dict[str, Element]) -> tuple[TenderStatus | None, tuple[str, ...]]:
    """Status from ``efac:NoticeResult`` and the winners' names; ``(None, ())`` when there are no results.

    AWARDED if any lot result is ``selec-w`` (winner chosen); CANCELLED if every lot
    result is ``clos-nw`` (closed without winner); otherwise (``open-nw``: no winner
    yet, competition still open, or mixed/unknown codes) ACTIVE.
    """
    result = ext.find("efac:NoticeResult", NS)
    if result is None:
        return None, ()
    lot_results = result.findall("efac:LotResult", NS)
    codes = [first(lot_result, "cbc:TenderResultCode").lower() for lot_result in lot_results]
    winners = [lot_result for lot_result, code in zip(lot_results, codes, strict=True) if code == "selec-w"]
    if winners:
        status = TenderStatus.AWARDED
    elif codes and all(code == "clos-nw" for code in codes):
        status = TenderStatus.CANCELLED
    else:
        status = TenderStatus.ACTIVE
    return status, _winner_names(result, winners, orgs)


def _winner_names(result: Element, winners: list[Element], orgs: dict[str, Element]) -> tuple[str, ...]:
    """Winning lot result -> its tenders -> tendering party -> tenderer organisations -> names.

    A lot result may list tenders that did not win; when it names settled contracts,
    only the tenders those contracts were signed on count.
    """
    settled = result.findall("efac:SettledContract", NS)
    contracts = {first(c, "cbc:ID"): texts(c, "efac:LotTender/cbc:ID") for c in settled}
    tenders = {first(t, "cbc:ID"): t for t in result.findall("efac:LotTender", NS)}
    parties = {first(p, "cbc:ID"): p for p in result.findall("efac:TenderingParty", NS)}
    names: list[str] = []
    for lot_result in winners:
        signed = [t for c in texts(lot_result, "efac:SettledContract/cbc:ID") for t in contracts.get(c, [])]
        for tender_id in signed or texts(lot_result, "efac:LotTender/cbc:ID"):
            party = parties.get(first(tenders.get(tender_id), "efac:TenderingParty/cbc:ID"))
            for org_id in texts(party, "efac:Tenderer/cbc:ID"):
                names.append(localised(orgs.get(org_id), "cac:PartyName/cbc:Name"))
    return tuple(dict.fromkeys(name for name in names if name))
