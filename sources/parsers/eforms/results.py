"""Award results: per lot the outcome, the winners, the value, the number of tenders, the date.

eForms (``efac:NoticeResult``): a ``efac:LotResult`` names its lot (``efac:TenderLot``), its outcome
(``cbc:TenderResultCode``: ``selec-w`` winner chosen, ``clos-nw`` closed without winner, ``open-nw``
still open), the tender statistics (``efac:ReceivedSubmissionsStatistics``, code ``tenders``) and
the tenders and contracts; a ``efac:LotTender`` carries the tender's value
(``cac:LegalMonetaryTotal/cbc:PayableAmount``) and its ``efac:TenderingParty``, whose
``efac:Tenderer`` entries point at organisations. A ``efac:SettledContract`` names the tenders it
was signed on and its date (``cbc:IssueDate``, else the decision date ``cbc:AwardDate``).

Contract modification notices (subtype 38-40) restate the contract without a ``selec-w`` code:
a lot result without any code but with contracts or tenders counts as awarded, so their winners
are kept.

Legacy notices (``eforms-sdk-0.1`` DÖE exports) use plain UBL instead: ``cac:TenderResult`` (at
the root or in a lot) with ``cbc:AwardDate``, ``cbc:ReceivedTenderQuantity``,
``cac:AwardedTenderedProject`` (lot id, ``cac:LegalMonetaryTotal/cbc:PayableAmount``) and
``cac:WinningParty`` (a party: name, identification, address).

A consortium is recorded under its lead member (``efbc:GroupLeadIndicator``, else the first);
every member's name still goes to the notice's supplier names.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from kernel.normalise import clean_text, parse_decimal, parse_iso_datetime
from kernel.placeholders import placeholder_date
from kernel.records import Award, AwardStatus
from kernel.vocabulary.statuses import TenderStatus

from .tree import Element, attribute, find, findall, first, localised, texts

_OUTCOMES = {"selec-w": AwardStatus.AWARDED, "clos-nw": AwardStatus.NOT_AWARDED, "open-nw": AwardStatus.OPEN}


def results(
    ext: Element, root: Element, orgs: dict[str, Element]
) -> tuple[TenderStatus | None, tuple[Award, ...], tuple[str, ...]]:
    """(status from the results, awards, every winner's name); ``(None, (), ())`` without results."""
    result = find(ext, "efac:NoticeResult")
    if result is not None:
        awards, names = _eforms_awards(result, root, orgs)
        codes = [first(lot_result, "cbc:TenderResultCode").lower() for lot_result in findall(result, "efac:LotResult")]
    else:
        awards, names = _legacy_awards(root)
        codes = []
        if not awards:
            return None, (), ()
    return _status(codes, awards), awards, names


def _status(codes: list[str], awards: tuple[Award, ...]) -> TenderStatus:
    """AWARDED if any lot has a winner; CANCELLED if every lot result is ``clos-nw``; else ACTIVE."""
    if any(a.status is AwardStatus.AWARDED for a in awards):
        return TenderStatus.AWARDED
    if codes and all(code == "clos-nw" for code in codes):
        return TenderStatus.CANCELLED
    return TenderStatus.ACTIVE


def _amount(el: Element | None, path: str) -> tuple[Decimal | None, str]:
    found = find(el, path)
    if found is None:
        return None, ""
    return parse_decimal(found.text), attribute(found, "currencyID").upper()


def _date(raw: str) -> date | None:
    value = parse_iso_datetime(raw or None)
    day = value.date() if value else None
    return None if placeholder_date(day) else day


def _tenders_received(lot_result: Element) -> int | None:
    for statistics in findall(lot_result, "efac:ReceivedSubmissionsStatistics"):
        if first(statistics, "efbc:StatisticsCode").lower() == "tenders":
            raw = first(statistics, "efbc:StatisticsNumeric")
            return int(raw) if raw.isascii() and raw.isdigit() else None
    return None


def _supplier(org: Element | None) -> dict:
    return {
        "supplier_name": localised(org, "cac:PartyName/cbc:Name"),
        "supplier_id": first(org, "cac:PartyLegalEntity/cbc:CompanyID"),
        "supplier_town": first(org, "cac:PostalAddress/cbc:CityName"),
        "supplier_country": first(org, "cac:PostalAddress/cac:Country/cbc:IdentificationCode").upper(),
    }


def _eforms_awards(
    result: Element, root: Element, orgs: dict[str, Element]
) -> tuple[tuple[Award, ...], tuple[str, ...]]:
    contracts = {first(c, "cbc:ID"): c for c in findall(result, "efac:SettledContract")}
    tenders = {first(t, "cbc:ID"): t for t in findall(result, "efac:LotTender")}
    parties = {first(p, "cbc:ID"): p for p in findall(result, "efac:TenderingParty")}
    fallback_date = _date(first(root, "cac:TenderResult/cbc:AwardDate"))
    awards: list[Award] = []
    names: list[str] = []
    for lot_result in findall(result, "efac:LotResult"):
        lot_id = first(lot_result, "efac:TenderLot/cbc:ID")
        code = first(lot_result, "cbc:TenderResultCode").lower()
        received = _tenders_received(lot_result)
        contract_ids = texts(lot_result, "efac:SettledContract/cbc:ID")
        signed = [t for c in contract_ids for t in texts(contracts.get(c), "efac:LotTender/cbc:ID")]
        tender_ids = signed or texts(lot_result, "efac:LotTender/cbc:ID")
        status = _OUTCOMES.get(code) or (AwardStatus.AWARDED if not code and tender_ids else AwardStatus.OPEN)
        if status is not AwardStatus.AWARDED or not tender_ids:
            awards.append(Award(lot_id=lot_id, status=status, tenders_received=received))
            continue
        contract_of = {t: c for c in contract_ids for t in texts(contracts.get(c), "efac:LotTender/cbc:ID")}
        for tender_id in dict.fromkeys(tender_ids):
            tender = tenders.get(tender_id)
            contract = contracts.get(contract_of.get(tender_id, ""))
            value, currency = _amount(tender, "cac:LegalMonetaryTotal/cbc:PayableAmount")
            party = parties.get(first(tender, "efac:TenderingParty/cbc:ID"))
            members = findall(party, "efac:Tenderer")
            lead = next((m for m in members if first(m, "efbc:GroupLeadIndicator").lower() == "true"), None)
            member_orgs = [orgs.get(first(m, "cbc:ID")) for m in members]
            names += [name for name in (localised(o, "cac:PartyName/cbc:Name") for o in member_orgs) if name]
            lead_org = orgs.get(first(lead, "cbc:ID")) if lead is not None else next(iter(member_orgs), None)
            awards.append(
                Award(
                    lot_id=lot_id or first(tender, "efac:TenderLot/cbc:ID"),
                    status=AwardStatus.AWARDED,
                    value=value,
                    currency=currency,
                    tenders_received=received,
                    date=_date(first(contract, "cbc:IssueDate"))
                    or _date(first(contract, "cbc:AwardDate"))
                    or fallback_date,
                    **_supplier(lead_org),
                )
            )
    return tuple(awards), tuple(dict.fromkeys(clean_text(n) for n in names))


def _legacy_awards(root: Element) -> tuple[tuple[Award, ...], tuple[str, ...]]:
    holders = [(root, "")] + [(lot, first(lot, "cbc:ID")) for lot in findall(root, "cac:ProcurementProjectLot")]
    awards: list[Award] = []
    for holder, holder_lot in holders:
        for tender_result in findall(holder, "cac:TenderResult"):
            winners = findall(tender_result, "cac:WinningParty")
            if not winners:
                continue
            project = find(tender_result, "cac:AwardedTenderedProject")
            value, currency = _amount(project, "cac:LegalMonetaryTotal/cbc:PayableAmount")
            if value is None:
                value, currency = _amount(project, "cbc:TotalAmount")
            received = first(tender_result, "cbc:ReceivedTenderQuantity")
            for winner in winners:
                party = find(winner, "cac:Party")
                party = party if party is not None else winner
                awards.append(
                    Award(
                        lot_id=first(project, "cbc:ProcurementProjectLotID") or holder_lot,
                        status=AwardStatus.AWARDED,
                        supplier_name=localised(party, "cac:PartyName/cbc:Name"),
                        supplier_id=first(party, "cac:PartyLegalEntity/cbc:CompanyID")
                        or first(party, "cac:PartyIdentification/cbc:ID"),
                        supplier_town=first(party, "cac:PostalAddress/cbc:CityName"),
                        supplier_country=first(party, "cac:PostalAddress/cac:Country/cbc:IdentificationCode").upper(),
                        value=value,
                        currency=currency,
                        tenders_received=int(received) if received.isascii() and received.isdigit() else None,
                        date=_date(first(tender_result, "cbc:AwardDate")),
                    )
                )
    return tuple(awards), tuple(dict.fromkeys(a.supplier_name for a in awards if a.supplier_name))
