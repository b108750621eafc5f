"""OCDS award results on the real DÖE releases, and untagged releases."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

from kernel.records import Award, AwardStatus, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from sources.parsers.ocds import parse_ocds_package
from sources.parsers.ocds.awards import awards

DOE = Path(__file__).resolve().parents[2] / "data" / "doe"
AWARD = DOE / "ocds_release-package_award_single-supplier_contract_00725bdd-1ad2-4de5-b6c2-ab6113dabd5f.json"
AUFHEBUNG = DOE / "ocds_release-package_award_unsuccessful_aufhebung_008b7d74-6c76-412e-bf72-67ca753055aa.json"


def test_award_with_contract_and_supplier_address():
    (record,) = parse_ocds_package(AWARD.read_bytes())
    assert record.awards == (
        Award(
            lot_id="LOT-0000",
            status=AwardStatus.AWARDED,
            supplier_name="msg systems ag",
            supplier_id="DE 129 420 400",
            supplier_town="Ismaning/München",
            supplier_country="DEU",
            tenders_received=1,  # tender.numberOfTenderers of this single-lot award
            date=date(2026, 7, 20),  # the contract's dateSigned 2026-07-19T22:00Z, in Berlin
        ),
    )
    assert record.contract_nature == "services"
    assert record.contract_duration == "P540D"  # lots[].contractPeriod.durationInDays
    assert (record.buyer_street, record.buyer_postal_code, record.buyer_town) == ("Jüdenstr. 1", "10178", "Berlin")
    assert record.buyer_email == "zvs@senatskanzlei.berlin.de"


def test_procedure_wide_tenderer_count_is_no_lot_count_when_results_cover_several_lots():
    package = json.loads(AWARD.read_bytes())
    release = package["releases"][0]
    release["awards"].append(dict(release["awards"][0], id="LOT-0001", relatedLots=["LOT-0001"]))
    (record,) = parse_ocds_package(json.dumps(package).encode())
    assert [(a.lot_id, a.tenders_received) for a in record.awards] == [("LOT-0000", None), ("LOT-0001", None)]


def test_unsuccessful_lot_is_recorded_without_winner():
    (record,) = parse_ocds_package(AUFHEBUNG.read_bytes())
    # numberOfTenderers 0 is DÖE's value before any bid (also in contract notices): not "0 bids"
    assert record.awards == (Award(lot_id="LOT-0001", status=AwardStatus.NOT_AWARDED),)
    assert record.status is TenderStatus.CANCELLED
    assert record.contract_nature == "supplies"  # "goods"
    assert (record.contract_start, record.contract_end) == (date(2026, 2, 1), date(2028, 1, 31))


def test_untagged_release_with_awards_is_an_award_notice():
    package = json.loads(AWARD.read_bytes())
    del package["releases"][0]["tag"]
    (record,) = parse_ocds_package(json.dumps(package).encode())
    assert record.kind is NoticeKind.AWARD
    assert record.status is TenderStatus.AWARDED
    assert record.awards[0].supplier_name == "msg systems ag"


def test_award_value_and_bid_count():
    package = json.loads(AWARD.read_bytes())
    release = package["releases"][0]
    release["contracts"][0]["value"] = {"amount": 250000, "currency": "EUR"}
    release["bids"] = {"statistics": [{"id": "1", "measure": "bids", "value": 5, "relatedLot": "LOT-0000"}]}
    (record,) = parse_ocds_package(json.dumps(package).encode())
    assert (record.awards[0].value, record.awards[0].currency, record.awards[0].tenders_received) == (250000, "EUR", 5)


def _two_lot_release(contracts: list[dict]) -> dict:
    """Two awards of a DÖE-style release without values of their own; the values are on the contracts,
    whose awardID names the contract (DÖE's quirk), so the items' relatedLot links them. Constructed."""
    return {
        "awards": [
            {"id": lot, "status": "active", "relatedLots": [lot], "suppliers": [{"name": f"Firma {lot}"}]}
            for lot in ("LOT-0001", "LOT-0002")
        ],
        "contracts": contracts,
    }


def _values(release: dict) -> dict[str, Decimal | None]:
    return {award.lot_id: award.value for award in awards(release)}


def test_two_contracts_on_two_lots_each_give_their_own_lot_its_value():
    release = _two_lot_release(
        [
            {
                "id": "CON-1",
                "awardID": "CON-1",
                "value": {"amount": 100, "currency": "EUR"},
                "items": [{"relatedLot": "LOT-0001"}],
            },
            {
                "id": "CON-2",
                "awardID": "CON-2",
                "value": {"amount": 200, "currency": "EUR"},
                "items": [{"relatedLot": "LOT-0002"}],
            },
        ]
    )
    assert _values(release) == {"LOT-0001": Decimal(100), "LOT-0002": Decimal(200)}


def test_the_last_contract_naming_a_lot_does_not_win_it():
    # The second contract's items name both lots: LOT-0001 keeps its own contract's value, and LOT-0002's
    # only contract also covers LOT-0001, so its value is no value of LOT-0002 alone.
    release = _two_lot_release(
        [
            {
                "id": "CON-1",
                "awardID": "CON-1",
                "value": {"amount": 100, "currency": "EUR"},
                "items": [{"relatedLot": "LOT-0001"}],
            },
            {
                "id": "CON-2",
                "awardID": "CON-2",
                "value": {"amount": 300, "currency": "EUR"},
                "items": [{"relatedLot": "LOT-0001"}, {"relatedLot": "LOT-0002"}],
            },
        ]
    )
    assert _values(release) == {"LOT-0001": Decimal(100), "LOT-0002": None}


def test_two_contracts_naming_the_same_lot_alone_leave_its_value_open():
    release = _two_lot_release(
        [
            {
                "id": "CON-1",
                "awardID": "CON-1",
                "value": {"amount": 100, "currency": "EUR"},
                "items": [{"relatedLot": "LOT-0001"}],
            },
            {
                "id": "CON-3",
                "awardID": "CON-3",
                "value": {"amount": 999, "currency": "EUR"},
                "items": [{"relatedLot": "LOT-0001"}],
            },
        ]
    )
    assert _values(release)["LOT-0001"] is None


ARMENIA = (
    Path(__file__).resolve().parents[2] / "data" / "audit2" / "ocds_armenia_AM-PPS-b0cb8a7f_two-lots-two-contracts.json"
)


def test_each_lot_of_a_real_release_gets_its_own_contracts_winner_and_value():
    # ARMEPS (Armenia), two lots, two awards, two contracts linked by awardID; relatedLots are {"lotId": …}
    # objects there. Read as no lot, each row was filed under its award's id instead of its lot. (Contract and
    # award state the same amounts in this release, so it shows the lot link, not which of the two values wins.)
    (record,) = parse_ocds_package(ARMENIA.read_bytes(), source="ted")
    rows = {award.lot_id: (award.supplier_name, award.value, award.currency, award.date) for award in record.awards}
    assert rows == {
        "3aae0593-89cc-4f7e-9b6b-e1e46d99a3fe": ("Tvopaz-95 SPY", Decimal("3100000.0"), "AMD", date(2016, 8, 5)),
        "957a0836-0d09-4894-9af2-6f07955b848d": ("Henmarqvom SPY", Decimal("950000.0"), "AMD", date(2016, 8, 5)),
    }
    assert set(rows) == {lot.lot_id for lot in record.lots}
