"""Award results: per lot the outcome, the winners, the value, the number of tenders, the date.

eForms (``efac:NoticeResult``): a ``efac:LotResult`` names its lot (``efac:TenderLot``), its outcome
(``cbc:TenderResultCode``: ``selec-w`` winner chosen, ``clos-nw`` closed without winner, ``open-nw``
still open), the tender statistics (``efac:ReceivedSubmissionsStatistics``, code ``tenders``) and
the tenders and contracts; a ``efac:LotTender`` carries its own lot, the tender's value (BT-720,
``cac:LegalMonetaryTotal/cbc:PayableAmount``) and its ``efac:TenderingParty``, whose
``efac:Tenderer`` entries point at organisations. A ``efac:SettledContract`` names the tenders it
was signed on and its date (``cbc:IssueDate``, else the decision date ``cbc:AwardDate``).

A lot result lists every tender of its lot, losers included, and one contract may name the tenders
of several lots: a winner is a tender of that lot that a contract names (``_Result.winners``), one
row per lot and winner. Direct awards (VEAT) may have no lot result: each signed tender then counts
for its own lot. The lot's framework maximum (BT-709) and lowest/highest tender (BT-710/711) are
not a winner's value and are not used for it.

Contract modification notices (subtype 38-40) restate the contract without a ``selec-w`` code:
a lot result without any code but with contracts or tenders counts as awarded, so their winners
are kept.

Legacy notices (``eforms-sdk-0.1`` DÖE exports) use plain UBL instead: ``cac:TenderResult`` (at
the root or in a lot) with ``cbc:AwardDate``, ``cbc:ReceivedTenderQuantity``,
``cac:AwardedTenderedProject`` (lot id, ``cac:LegalMonetaryTotal/cbc:PayableAmount``) and
``cac:WinningParty`` (a party: name, identification, address), its day the ``cac:Contract``'s
``cbc:IssueDate``, else the ``cbc:AwardDate``. A result at the root of a notice with a single lot
belongs to that lot.

A consortium is recorded under its lead member (``efbc:GroupLeadIndicator``, else the first);
every member's name still goes to the notice's supplier names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from kernel.normalise import clean_text, parse_decimal, parse_iso_datetime
from kernel.placeholders import placeholder_date
from kernel.records import Award, AwardStatus
from kernel.vocabulary.statuses import TenderStatus

from .tree import Element, attribute, find, findall, first, localised, texts

_OUTCOMES = {"selec-w": AwardStatus.AWARDED, "clos-nw": AwardStatus.NOT_AWARDED, "open-nw": AwardStatus.OPEN}


def results(
    ext: Element, root: Element, orgs: dict[str, Element], lots: list[tuple[Element, str]]
) -> tuple[TenderStatus | None, tuple[Award, ...], tuple[str, ...]]:
    """(status from the results, awards, every winner's name); ``(None, (), ())`` without results.

    ``lots``: every ``cac:ProcurementProjectLot`` with its id, in document order, as the procedure read them.
    """
    result = find(ext, "efac:NoticeResult")
    if result is not None:
        awards, names, codes = _eforms_awards(result, root, orgs, frozenset(lot_id for _, lot_id in lots))
    else:
        awards, names = _legacy_awards(root, lots)
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
    """BT-759 of the type (BT-760) ``tenders``. A lone count without any type is that count too:
    TED publishes eForms SDK 1.8 notices so (2024-OJS065-00191534), and the form asks for it first."""
    statistics = findall(lot_result, "efac:ReceivedSubmissionsStatistics")
    for entry in statistics:
        if first(entry, "efbc:StatisticsCode").lower() == "tenders":
            return _count(first(entry, "efbc:StatisticsNumeric"))
    if len(statistics) == 1 and not first(statistics[0], "efbc:StatisticsCode"):
        return _count(first(statistics[0], "efbc:StatisticsNumeric"))
    return None


def _count(raw: str) -> int | None:
    return int(raw) if raw.isascii() and raw.isdigit() else None


def _supplier(org: Element | None) -> dict:
    return {
        "supplier_name": localised(org, "cac:PartyName/cbc:Name"),
        "supplier_id": first(org, "cac:PartyLegalEntity/cbc:CompanyID"),
        "supplier_town": first(org, "cac:PostalAddress/cbc:CityName"),
        "supplier_country": first(org, "cac:PostalAddress/cac:Country/cbc:IdentificationCode").upper(),
    }


@dataclass(frozen=True, slots=True)
class _Result:
    """The cross-references of one ``efac:NoticeResult``, by technical id, in document order."""

    contracts: dict[str, Element]
    tenders: dict[str, Element]
    parties: dict[str, Element]
    lot_of: dict[str, str]  # tender -> its own lot or lots group (BT-13714)
    signed_by: dict[str, list[str]]  # tender -> the contracts naming it (BT-3202)
    groups: dict[str, tuple[str, ...]]  # lots group (BT-330) -> its lots (BT-1375)
    notice_lots: frozenset[str]  # the notice's own lot ids (BT-137)
    signs: dict[str, list[str]]  # contract -> the tenders it names (BT-3202), as read for ``signed_by``
    # Read when first asked: tender -> its tendering party; party -> (its members' organisation ids, the lead's).
    party_of: dict[str, str] = field(default_factory=dict)
    members_of: dict[str, tuple[list[str], str]] = field(default_factory=dict)

    @classmethod
    def of(cls, result: Element, root: Element, notice_lots: frozenset[str]) -> _Result:
        contracts = {first(c, "cbc:ID"): c for c in findall(result, "efac:SettledContract")}
        tenders = {first(t, "cbc:ID"): t for t in findall(result, "efac:LotTender")}
        signed_by: dict[str, list[str]] = {}
        signs = {contract_id: texts(contract, "efac:LotTender/cbc:ID") for contract_id, contract in contracts.items()}
        for contract_id, tender_ids in signs.items():
            for tender_id in tender_ids:
                signed_by.setdefault(tender_id, []).append(contract_id)
        return cls(
            contracts=contracts,
            tenders=tenders,
            parties={first(p, "cbc:ID"): p for p in findall(result, "efac:TenderingParty")},
            lot_of={tender_id: first(t, "efac:TenderLot/cbc:ID") for tender_id, t in tenders.items()},
            signed_by=signed_by,
            groups={
                first(group, "cbc:LotsGroupID"): tuple(texts(group, "cac:ProcurementProjectLotReference/cbc:ID"))
                for group in findall(root, "cac:TenderingTerms/cac:LotDistribution/cac:LotsGroup")
            },
            notice_lots=notice_lots,
            signs=signs,
        )

    def lots(self, lot_or_group: str) -> tuple[str, ...]:
        """The lots an id stands for: a lot itself, a lots group ("GLO-…") its lots, an unknown group none."""
        return self.groups.get(lot_or_group, ()) if lot_or_group.upper().startswith("GLO-") else (lot_or_group,)

    def tendered_for(self, tender_id: str, lot_id: str) -> bool:
        """Whether the tender was submitted for the lot: filed under it, or under a lots group holding it."""
        return lot_id in self.lots(self.lot_of.get(tender_id, ""))

    def signed(self, contract_ids: list[str]) -> list[str]:
        return list(dict.fromkeys(t for c in contract_ids for t in self.signs.get(c, ())))

    def party(self, tender_id: str) -> str:
        """The tender's tendering party id (read once per tender)."""
        found = self.party_of.get(tender_id)
        if found is None:
            found = self.party_of[tender_id] = first(self.tenders.get(tender_id), "efac:TenderingParty/cbc:ID")
        return found

    def members(self, party_id: str) -> tuple[list[str], str]:
        """(the organisation ids of the party's ``efac:Tenderer`` entries, its lead member's:
        ``GroupLeadIndicator``, else the first)."""
        found = self.members_of.get(party_id)
        if found is None:
            members = findall(self.parties.get(party_id), "efac:Tenderer")
            ids = [first(m, "cbc:ID") for m in members]
            lead = next((i for i, m in enumerate(members) if first(m, "efbc:GroupLeadIndicator").lower() == "true"), 0)
            found = self.members_of[party_id] = (ids, ids[lead] if ids else "")
        return found

    def winners(self, lot_id: str, listed: list[str], listed_tenders: list[str]) -> list[str]:
        """The lot's winning tenders: a tender counts for its own lot only, and only if a contract names it.

        A lot result lists every tender of the lot, losers included, and a contract may name the tenders
        of several lots; so a winner is a tender of this lot that a contract signs - first one the lot
        result lists, else any (TED notices do list the wrong contract or swap the tender references
        between lots, see 2024-OJS065-00191534). Without such a contract: the contracts the lot result
        lists, whatever lot their tenders name (a contract can cover a lot its only tender was not filed
        under); else the lot's only tender, else its tenders ranked first (BT-171); else none.
        ``listed``, ``listed_tenders``: the contracts and tenders the lot result names.
        """

        def own(tender_id: str) -> bool:
            lot = self.lot_of.get(tender_id, "")
            return self.tendered_for(tender_id, lot_id) or (not lot and tender_id in listed_tenders)

        if lot_id:
            found = [t for t in self.signed(listed) if own(t)]
            found = found or [t for t in self.tenders if self.tendered_for(t, lot_id) and t in self.signed_by]
        else:  # no lot link: each signed tender counts for the lot it names
            found = self.signed(listed) or [t for t in listed_tenders if t in self.signed_by]
        if found:
            return found
        if found := self.signed(listed):
            # The contract names another lot's tender; the lot result's own tender of the same tendering
            # party is that winner's tender for this lot (and carries its value).
            parties = {self.party(t) for t in found} - {""}
            same = [t for t in listed_tenders if own(t) and self.party(t) in parties]
            return same or found
        candidates = list(
            dict.fromkeys([*listed_tenders, *(t for t in self.tenders if lot_id and self.tendered_for(t, lot_id))])
        )
        if len(candidates) == 1:
            return candidates
        return [t for t in candidates if first(self.tenders.get(t), "cbc:RankCode") == "1"]

    def contract(self, tender_id: str, preferred: list[str]) -> Element | None:
        named = self.signed_by.get(tender_id, [])
        chosen = next((c for c in preferred if c in named), None) or next(iter(named), "") or next(iter(preferred), "")
        return self.contracts.get(chosen)


def _eforms_awards(
    result: Element, root: Element, orgs: dict[str, Element], notice_lots: frozenset[str]
) -> tuple[tuple[Award, ...], tuple[str, ...], list[str]]:
    """(awards, every winner's name, each lot result's outcome code in lower case)."""
    index = _Result.of(result, root, notice_lots)
    fallback_date = _date(first(root, "cac:TenderResult/cbc:AwardDate"))
    rows: dict[tuple[str, str], Award] = {}
    names: list[str] = []
    # In document order: (lot, tender, tenders received, contracts the result lists, or the lot's outcome alone)
    won: list[tuple[str, str, int | None, list[str], Award | None]] = []
    covered: set[str] = set()

    lot_results = findall(result, "efac:LotResult")
    result_lots = [first(r, "efac:TenderLot/cbc:ID") for r in lot_results]
    codes = [first(r, "cbc:TenderResultCode").lower() for r in lot_results]
    own_result = set(result_lots)
    for position, (lot_result, result_lot, code) in enumerate(zip(lot_results, result_lots, codes, strict=True)):
        received = _tenders_received(lot_result)
        listed = texts(lot_result, "efac:SettledContract/cbc:ID")
        listed_tenders = texts(lot_result, "efac:LotTender/cbc:ID")
        # A result refers to a lot (BT-13713 is "LOT-…" only); one filed under a lots group stands for
        # each of the group's lots that has no result of its own, never for a lot named "GLO-…".
        lot_ids = (
            [lot for lot in index.lots(result_lot) if lot not in own_result] or [""]
            if result_lot.upper().startswith("GLO-")
            else [result_lot]
        )
        for lot_id in lot_ids:
            covered.add(lot_id)
            status = _OUTCOMES.get(code)
            # Losers are never winners: an unsuccessful or open lot keeps no tender.
            winners = index.winners(lot_id, listed, listed_tenders) if status in (None, AwardStatus.AWARDED) else []
            status = status or (AwardStatus.AWARDED if winners else AwardStatus.OPEN)
            if not winners:  # the lot's outcome alone; results without a lot link stay apart
                outcome = Award(lot_id=lot_id, status=status, tenders_received=received)
                won.append((lot_id, "" if lot_id else f"result {position}", received, [], outcome))
            won.extend((lot_id or index.lot_of.get(t, ""), t, received, listed, None) for t in winners)
    # Direct awards (VEAT, subtypes 25-28) and other notices may name the contract without any lot
    # result for its lot: each signed tender not yet counted then stands for its own lot (a lots
    # group's tender for each of the group's lots without a result). A contract counts once.
    counted = {tender_id for _, tender_id, _, _, outcome in won if outcome is None}
    for tender_id in [t for t in index.tenders if t in index.signed_by and t not in counted]:
        own = index.lot_of[tender_id]
        lots = [lot for lot in index.lots(own) if lot not in covered] if own.upper().startswith("GLO-") else [own]
        if own not in covered:
            won.extend((lot, tender_id, None, [], None) for lot in lots or [""])
    lots_of_tender: dict[str, set[str]] = {}
    for lot_id, tender_id, _, _, outcome in won:
        if outcome is None:
            lots_of_tender.setdefault(tender_id, set()).add(lot_id)

    for lot_id, tender_id, received, preferred, outcome in won:
        if outcome is not None:
            rows.setdefault((lot_id, tender_id), outcome)
            continue
        tender = index.tenders.get(tender_id)
        own_lot = index.lot_of.get(tender_id, "")
        party_id = index.party(tender_id)
        members, lead_id = index.members(party_id)
        key = (lot_id, lead_id or first(index.parties.get(party_id), "cbc:ID") or tender_id)
        if key in rows:  # one row per lot and winner, however many of its tenders were signed
            continue
        names.extend(n for n in (localised(orgs.get(m), "cac:PartyName/cbc:Name") for m in members) if n)
        # A tender filed under another lot is that lot's value, not this one's; a lots group's tender, or
        # one filed under a lot the notice does not have (converted TED notices: "1" beside "LOT-0000"),
        # is this lot's value only when it won no other lot (a contract's value counts once).
        mine = own_lot in (lot_id, "") or (
            (index.tendered_for(tender_id, lot_id) or own_lot not in index.notice_lots)
            and len(lots_of_tender[tender_id]) == 1
        )
        value, currency = _amount(tender, "cac:LegalMonetaryTotal/cbc:PayableAmount") if mine else (None, "")
        contract = index.contract(tender_id, preferred)
        rows[key] = Award(
            lot_id=lot_id,
            status=AwardStatus.AWARDED,
            value=value,
            currency=currency,
            tenders_received=received,
            date=_date(first(contract, "cbc:IssueDate")) or _date(first(contract, "cbc:AwardDate")) or fallback_date,
            **_supplier(orgs.get(lead_id)),
        )
    return tuple(rows.values()), tuple(dict.fromkeys(clean_text(n) for n in names)), codes


def _legacy_awards(root: Element, lots: list[tuple[Element, str]]) -> tuple[tuple[Award, ...], tuple[str, ...]]:
    # A result at the root of a notice with one lot is that lot's (DÖE legacy award 427d4645-…: LOT-0000).
    holders = [(root, lots[0][1] if len(lots) == 1 else "")] + lots
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
                        # The contract's day, as for eForms results; the award decision's when no contract says.
                        date=_date(first(tender_result, "cac:Contract/cbc:IssueDate"))
                        or _date(first(tender_result, "cbc:AwardDate")),
                    )
                )
    return tuple(awards), tuple(dict.fromkeys(a.supplier_name for a in awards if a.supplier_name))
