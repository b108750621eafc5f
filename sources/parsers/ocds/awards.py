"""Award results of an OCDS release: awards, contracts, suppliers, tender counts.

DÖE's OCDS (from eForms) writes one award per lot result: ``awards[].id`` and ``relatedLots`` name
the lot, ``status`` "active"/"pending" means a winner, "unsuccessful" no winner ("clos-nw"),
"cancelled" a withdrawn award; ``suppliers`` carry name, identifier, address. The contract signed
on the award (``contracts[].awardID``) adds ``value`` and ``dateSigned``. Tender counts come from
the bids extension (``bids.statistics`` measure "bids", per ``relatedLot``), for a single lot also from
``tender.numberOfTenderers``. DÖE sometimes lists suppliers only in ``parties`` (role "supplier").
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
    return value.astimezone(BERLIN).date() if value else None  # "2026-07-19T22:00Z" is 20 July in Germany


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
    """One ``Award`` per lot and supplier of every award; an award without a winner keeps its lot's outcome."""
    contracts = {as_str(c.get("awardID")): c for c in as_dicts(release.get("contracts"))}
    # DÖE writes the contract id into awardID ("CON-0001" for award "LOT-0000"): its items name the lot.
    lots_of_contract = [
        (c, frozenset(as_str(item.get("relatedLot")) for item in as_dicts(c.get("items")) if item.get("relatedLot")))
        for c in as_dicts(release.get("contracts"))
    ]
    parties = {as_str(p.get("id")): p for p in as_dicts(release.get("parties"))}
    received = _tenders_received(
        release,
        {
            lot
            for award in as_dicts(release.get("awards"))
            for lot in (as_strs(award.get("relatedLots")) or [as_str(award.get("id"))])
        },
    )
    supplier_parties = [p for p in parties.values() if "supplier" in as_strs(p.get("roles"))]
    found: list[Award] = []
    for award in as_dicts(release.get("awards")):
        status = _AWARD_STATUS.get(as_str(award.get("status")).lower(), AwardStatus.AWARDED)
        lots = as_strs(award.get("relatedLots")) or [as_str(award.get("id"))]
        contract, covers_only_these_lots = _contract_of(award, lots, contracts, lots_of_contract)
        value, currency = amount(award.get("value"))
        if value is None and covers_only_these_lots:
            # A contract that also covers other lots states their value too: it is no value of these lots.
            value, currency = amount(contract.get("value"))
        award_date = _date(as_str(contract.get("dateSigned"))) or _date(as_str(award.get("date")))
        suppliers = as_dicts(award.get("suppliers"))
        if status is AwardStatus.AWARDED and not suppliers and len(supplier_parties) == 1:
            suppliers = supplier_parties  # listed only in parties: unambiguous for one supplier
        for lot_id in lots:
            if status is not AwardStatus.AWARDED or not suppliers:
                found.append(
                    Award(lot_id=lot_id, status=status, tenders_received=received.get(lot_id), date=award_date)
                )
                continue
            for supplier in suppliers:
                party = parties.get(as_str(supplier.get("id"))) or parties.get(
                    as_str(as_dict(supplier.get("identifier")).get("id")), {}
                )
                address = as_dict(supplier.get("address")) or as_dict(party.get("address"))
                identifier = as_dict(supplier.get("identifier")) or as_dict(party.get("identifier"))
                supplier_id = as_str(identifier.get("id"))
                found.append(
                    Award(
                        lot_id=lot_id,
                        status=status,
                        supplier_name=clean_text(as_str(supplier.get("name")) or as_str(party.get("name"))),
                        supplier_id=supplier_id
                        if not supplier_id.upper().startswith("ORG-")
                        else as_str(supplier.get("id")),
                        supplier_town=clean_text(as_str(address.get("locality"))),
                        supplier_country=country([address]),
                        value=value,
                        currency=currency,
                        tenders_received=received.get(lot_id),
                        date=award_date,
                    )
                )
    return tuple(found)


def _contract_of(award: dict, lots: list[str], by_award_id: dict, lots_of_contract: list) -> tuple[dict, bool]:
    """The contract signed on ``award`` and whether it covers only the award's lots.

    By ``awardID`` first; else by the lots its items name - the contract over exactly these lots, or the
    only one naming any of them. Never "the last contract that lists the lot": with two contracts naming
    a lot, which one is its own cannot be told, and none is taken.
    """
    wanted = frozenset(lots)
    contract = by_award_id.get(as_str(award.get("id")))
    if contract is not None:
        covered = next((covered for c, covered in lots_of_contract if c is contract), frozenset())
        return contract, not covered or covered <= wanted
    naming = [(c, covered) for c, covered in lots_of_contract if covered & wanted]
    exact = [(c, covered) for c, covered in naming if covered == wanted]
    chosen = exact if len(exact) == 1 else naming if len(naming) == 1 else []
    if not chosen:
        return {}, False
    contract, covered = chosen[0]
    return contract, covered <= wanted
