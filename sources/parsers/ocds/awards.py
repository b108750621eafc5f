"""Award results of an OCDS release: awards, contracts, suppliers, tender counts.

DÖE's OCDS (from eForms) writes one award per lot result: ``awards[].id`` and ``relatedLots`` name
the lot, ``status`` "active"/"pending" means a winner, "unsuccessful" no winner ("clos-nw"),
"cancelled" a withdrawn award; ``suppliers`` carry name, identifier, address. The contract signed
on the award (``contracts[].awardID``) adds ``value`` and ``dateSigned``. Tender counts come from
the bids extension (``bids.statistics`` measure "bids", per ``relatedLot``), for a single lot also from
``tender.numberOfTenderers``. DÖE sometimes lists suppliers only in ``parties`` (role "supplier").

Releases converted from eForms by other tools (the OCP eForms mapping, e.g.
bjornjorgensen/TED-and-Doffin-to-ocds, tests/data/ocds_converted/) differ: one award per eForms lot
result (``RES-0001``, ``relatedLots``), several contracts may name the same ``awardID`` (one per
winner, told apart by ``relatedBids`` -> ``bids.details[].tenderers``), an extra award object per
contract (id "CON-0001", no lots, no status) and dates without a time written as "T23:59:59".
"""

from __future__ import annotations

from datetime import date

from kernel.normalise import clean_text, parse_iso_datetime
from kernel.records import Award, AwardStatus
from kernel.vocabulary.time_zone import BERLIN

from .places import country
from .values import amount, as_dict, as_dicts, as_str, as_strs

_AWARD_STATUS = {
    "active": AwardStatus.AWARDED,
    "pending": AwardStatus.AWARDED,
    "unsuccessful": AwardStatus.NOT_AWARDED,
    "cancelled": AwardStatus.NOT_AWARDED,
}


def supplier_names(release: dict) -> tuple[str, ...]:
    """Supplier names from ``awards[].suppliers``; DÖE sometimes lists them only in ``parties``."""
    names = [as_str(s.get("name")) for a in as_dicts(release.get("awards")) for s in as_dicts(a.get("suppliers"))]
    if not any(names):
        names = [
            as_str(p.get("name")) for p in as_dicts(release.get("parties")) if "supplier" in as_strs(p.get("roles"))
        ]
    return tuple(dict.fromkeys(clean_text(n) for n in names if n))


def _date(raw: str) -> date | None:
    value = parse_iso_datetime(raw or None)
    if value is None:
        return None
    # The OCP eForms mapping completes an eForms date without time as the end of that day
    # ("2022-10-14" -> "2022-10-14T23:59:59Z"): in Berlin that would be the next day, so such a
    # stamp names the day as written. DÖE writes midnight in Berlin ("2026-07-19T22:00Z" is 20 July).
    if (value.hour, value.minute, value.second) == (23, 59, 59):
        return value.date()
    return value.astimezone(BERLIN).date()


def _tenders_received(release: dict, lot_ids: set[str]) -> dict[str, int]:
    """Bids per lot from the bids extension; else ``tender.numberOfTenderers`` when the results are for
    one lot only (DÖE writes it so for single-lot awards, e.g. 00725bdd: 1 tenderer, LOT-0000). For several
    lots that procedure-wide count is no lot's number of bids and is left out."""
    counts: dict[str, int] = {}
    for statistic in as_dicts(as_dict(release.get("bids")).get("statistics")):
        if as_str(statistic.get("measure")) in ("bids", "tenders") and _count(statistic.get("value")) is not None:
            counts.setdefault(as_str(statistic.get("relatedLot")), statistic["value"])
    tenderers = _count(as_dict(release.get("tender")).get("numberOfTenderers"))
    # 0 is what DÖE writes before any bid (the contract notice 000ada85 has it too): no statement.
    if not counts and tenderers and len(lot_ids) == 1:
        counts[next(iter(lot_ids))] = tenderers
    return counts


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def awards(release: dict) -> tuple[Award, ...]:
    """One ``Award`` per lot and supplier; an award without a winner keeps its lot's outcome.

    Several awards naming the same lot and supplier (a converter that repeats the winner on every
    result of a framework lot) make one row, the first: one row per lot and winner, as in eForms.
    """
    contract_ids = {as_str(c.get("id")) for c in as_dicts(release.get("contracts"))}
    contracts: dict[str, list[dict]] = {}
    for contract in as_dicts(release.get("contracts")):
        contracts.setdefault(as_str(contract.get("awardID")), []).append(contract)
    # DÖE writes the contract id into awardID ("CON-0001" for award "LOT-0000"): its items name the lot.
    lots_of_contract = [
        (c, frozenset(as_str(item.get("relatedLot")) for item in as_dicts(c.get("items")) if item.get("relatedLot")))
        for c in as_dicts(release.get("contracts"))
    ]
    bidders = {
        as_str(bid.get("id")): {as_str(t.get("id")) for t in as_dicts(bid.get("tenderers"))}
        for bid in as_dicts(as_dict(release.get("bids")).get("details"))
    }
    parties = {as_str(p.get("id")): p for p in as_dicts(release.get("parties"))}
    results = [award for award in as_dicts(release.get("awards")) if not _contract_shadow(award, contract_ids)]
    received = _tenders_received(
        release, {lot for award in results for lot in (_related_lots(award) or [as_str(award.get("id"))])}
    )
    supplier_parties = [p for p in parties.values() if "supplier" in as_strs(p.get("roles"))]
    found: dict[tuple[str, str], Award] = {}
    for award in results:
        status = _AWARD_STATUS.get(as_str(award.get("status")).lower(), AwardStatus.AWARDED)
        lots = _related_lots(award) or [as_str(award.get("id"))]
        signed = contracts.get(as_str(award.get("id")), [])
        suppliers = as_dicts(award.get("suppliers"))
        if status is AwardStatus.AWARDED and not suppliers and len(supplier_parties) == 1:
            suppliers = supplier_parties  # listed only in parties: unambiguous for one supplier
        if status is not AwardStatus.AWARDED or not suppliers:
            contract, _ = _contract_of(award, lots, signed, lots_of_contract)
            award_date = _date(as_str(contract.get("dateSigned"))) or _date(as_str(award.get("date")))
            for lot_id in lots:
                found.setdefault(
                    (lot_id, ""),
                    Award(lot_id=lot_id, status=status, tenders_received=received.get(lot_id), date=award_date),
                )
            continue
        for supplier in suppliers:
            party = parties.get(as_str(supplier.get("id"))) or parties.get(
                as_str(as_dict(supplier.get("identifier")).get("id")), {}
            )
            # Several contracts on one award (one per winner): the supplier's own is the one signed on
            # its bid; which one it is cannot be told otherwise, and none is taken - never the last one.
            own = signed if len(signed) <= 1 else [c for c in signed if _bid_of(c, supplier, party, bidders)]
            contract, covers_only_these_lots = _contract_of(
                award, lots, own[:1] if len(own) == 1 else [], lots_of_contract
            )
            if len(signed) > 1 and len(own) != 1:
                contract, covers_only_these_lots = {}, False
            value, currency = amount(award.get("value"))
            if len(signed) > 1 and covers_only_these_lots and amount(contract.get("value"))[0] is not None:
                value, currency = amount(contract.get("value"))  # the award's value is all winners' together
            elif value is None and covers_only_these_lots:
                # A contract that also covers other lots states their value too: it is no value of these lots.
                value, currency = amount(contract.get("value"))
            award_date = (
                _date(as_str(contract.get("dateSigned"))) or _common_date(signed) or _date(as_str(award.get("date")))
            )
            address = as_dict(supplier.get("address")) or as_dict(party.get("address"))
            identifier = as_dict(supplier.get("identifier")) or as_dict(party.get("identifier"))
            supplier_id = as_str(identifier.get("id"))
            if not supplier_id or supplier_id.upper().startswith("ORG-"):
                # The OCP eForms mapping puts the organisation number (BT-501) in additionalIdentifiers.
                extra = next((as_str(i.get("id")) for i in as_dicts(party.get("additionalIdentifiers"))), "")
                supplier_id = extra or (as_str(supplier.get("id")) if supplier_id else "")
            name = clean_text(as_str(supplier.get("name")) or as_str(party.get("name")))
            for lot_id in lots:
                found.setdefault(
                    (lot_id, as_str(supplier.get("id")) or name),
                    Award(
                        lot_id=lot_id,
                        status=status,
                        supplier_name=name,
                        supplier_id=supplier_id,
                        supplier_town=clean_text(as_str(address.get("locality"))),
                        supplier_country=country([address]),
                        value=value,
                        currency=currency,
                        tenders_received=received.get(lot_id),
                        date=award_date,
                    ),
                )
    return tuple(found.values())


def _related_lots(award: dict) -> list[str]:
    """The award's lot ids. OCDS writes them as strings; ARMEPS (Armenia) writes ``{"lotId": …}`` objects, which
    read as no lot made the award's own id the lot's (a real release: tests/data/audit2/README.md)."""
    items = award.get("relatedLots")
    items = items if isinstance(items, list) else [items]
    return [s for s in (as_str(i.get("lotId")) if isinstance(i, dict) else as_str(i) for i in items) if s]


def _contract_shadow(award: dict, contract_ids: set[str]) -> bool:
    """An award object that only mirrors a contract (the OCP eForms mapping writes one per contract:
    id "CON-0001", buyers and relatedBids, no lots, no status, no suppliers) is no lot's result."""
    return (
        as_str(award.get("id")) in contract_ids
        and not _related_lots(award)
        and not as_str(award.get("status"))
        and not as_dicts(award.get("suppliers"))
    )


def _bid_of(contract: dict, supplier: dict, party: dict, bidders: dict[str, set[str]]) -> bool:
    """Whether ``contract`` was signed on a bid of this supplier (``relatedBids`` -> bid tenderers)."""
    ids = {as_str(supplier.get("id")), as_str(party.get("id"))} - {""}
    return any(ids & bidders.get(bid, set()) for bid in as_strs(contract.get("relatedBids")))


def _common_date(contracts: list[dict]) -> date | None:
    """The signing date all of an award's contracts share; None when they differ or state none."""
    dates = {_date(as_str(c.get("dateSigned"))) for c in contracts}
    return dates.pop() if len(dates) == 1 else None


def _contract_of(award: dict, lots: list[str], signed: list[dict], lots_of_contract: list) -> tuple[dict, bool]:
    """The contract signed on ``award`` and whether it covers only the award's lots.

    By ``awardID`` first (``signed``: the one contract of the award, or of the supplier); else by the
    lots its items name - the contract over exactly these lots, or the only one naming any of them.
    Never "the last contract that lists the lot": with two contracts naming a lot, which one is its
    own cannot be told, and none is taken.
    """
    wanted = frozenset(lots)
    if len(signed) == 1:
        contract = signed[0]
        covered = next((covered for c, covered in lots_of_contract if c is contract), frozenset())
        return contract, not covered or covered <= wanted
    if signed:
        return {}, False
    naming = [(c, covered) for c, covered in lots_of_contract if covered & wanted]
    exact = [(c, covered) for c, covered in naming if covered == wanted]
    chosen = exact if len(exact) == 1 else naming if len(naming) == 1 else []
    if not chosen:
        return {}, False
    contract, covered = chosen[0]
    return contract, covered <= wanted
