"""OCDS award rows on real notices converted from eForms, checked against the eForms rows of the same notice.

The releases (tests/data/ocds_converted/README.md) were made by another converter than DÖE's from real
Doffin notices; the eForms XML each was made from lies beside it. Rows are matched by (lot, supplier
organisation number); where the two readings differ, the README says which is right and why.
"""

from __future__ import annotations

import copy
import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from kernel.records import Award, AwardStatus
from sources.parsers.eforms import parse_eforms
from sources.parsers.ocds import parse_ocds_package
from sources.parsers.ocds.awards import awards

DATA = Path(__file__).resolve().parents[2] / "data" / "ocds_converted"
NOTICES = sorted(path.name.removesuffix("_release_0.json") for path in DATA.glob("*_release_0.json"))
COMPARED = ("status", "supplier_name", "supplier_town", "supplier_country", "value", "currency", "date")
COMPARED += ("tenders_received",)


def ocds_rows(notice: str) -> tuple[Award, ...]:
    (record,) = parse_ocds_package((DATA / f"{notice}_release_0.json").read_bytes(), source="ted")
    return record.awards


def eforms_rows(notice: str) -> tuple[Award, ...]:
    return parse_eforms((DATA / f"{notice}.xml").read_bytes(), source="ted").awards


def by_winner(rows: tuple[Award, ...]) -> dict[tuple[str, str], Award]:
    return {(row.lot_id, row.supplier_id or row.supplier_name): row for row in rows}


def won(lot: str, name: str, org: str, town: str, **fields) -> Award:
    return Award(
        lot_id=lot, status=AwardStatus.AWARDED, supplier_name=name, supplier_id=org, supplier_town=town,
        supplier_country="NOR", **fields,
    )  # fmt: skip


# Per notice: the OCDS rows, every field. Values, dates and counts as the release states them.
EXPECTED = {
    "ContractAwardNotice_can-social_2022-927623": (
        # One award, two contracts on it (one per winner); the release carries no tender values.
        won("MISSING", "Avarn Security AS", "NO943184097MVA", "Oslo", tenders_received=3, date=date(2022, 10, 14)),
        won("MISSING", "Securitas AS", "920 144 950", "Oslo", tenders_received=3, date=date(2022, 10, 14)),
    ),
    "ContractAwardNotice_can-social_2024-103933": (
        # One award, five contracts, five winners: a row each, no value, no date stated.
        won("LOT-0000", "Aberia Omsorg AS", "950990449", "Moss"),
        won("LOT-0000", "Omsorgspartner AS", "984710313", "Asker"),
        won("LOT-0000", "Otrera AS", "997204646", "Lunner"),
        won("LOT-0000", "Stendi AS", "985194653", "Oslo"),
        won("LOT-0000", "Viken Bo og Omsorg AS", "923661069", "Sarpsborg"),
    ),
    "ContractAwardNotice_can-social_2023-653024": (
        # Ten awards on one lot, each naming the same supplier: one row, not ten.
        won(
            "LOT-0000",
            "Ecura Care AS",
            "993 278 467",
            "Oslo",
            value=Decimal("65000000.0"),
            currency="NOK",
            tenders_received=15,
        ),
    ),  # fmt: skip
    "ContractAwardNotice_can-standard_2024-100829": (
        # The award object "CON-0001" only mirrors the contract: no row for a lot "CON-0001".
        won("LOT-0000", "Focus Software AS", "826781742", "Billingstad", date=date(2024, 1, 18)),
    ),
    "ContractAwardNotice_can-social_2024-111341": (
        won(
            "LOT-0000",
            "Iss Facility Services AS - Salg",
            "914791723",
            "Oslo",
            tenders_received=2,
            date=date(2024, 6, 20),
        ),
    ),  # fmt: skip
    "2024-110489": (
        Award(
            lot_id="LOT-0000",
            status=AwardStatus.AWARDED,
            supplier_name="Elbit Systems of America",
            supplier_town="Roanoke",
            supplier_country="USA",
            value=Decimal("95000000.0"),
            currency="NOK",
        ),
    ),  # fmt: skip
    "ContractAwardNotice_veat_2022-955474": (
        won(
            "LOT-0000",
            "OSM Aviation Academy",
            "919 916 788",
            "Arendal",
            value=Decimal("8000000.0"),
            currency="NOK",
            date=date(2022, 9, 16),
        ),
    ),  # fmt: skip
    "ContractAwardNotice_can-standard_2023-335407": (
        Award(
            lot_id="LOT-0000",
            status=AwardStatus.AWARDED,
            supplier_name="Kons AS",
            supplier_town="OSLO",
            supplier_country="NOR",
            value=Decimal("2700000.0"),
            currency="NOK",
            tenders_received=6,
            date=date(2023, 9, 26),
        ),
    ),  # fmt: skip
}

# Where the OCDS reading differs from the eForms reading of the same notice, and why (README):
# the converter's doing, not a misreading of either document.
KNOWN = {
    # The release keeps no tender value (its tenders have no lot in this TED-converted notice).
    ("ContractAwardNotice_can-social_2022-927623", "value"),
    ("ContractAwardNotice_can-social_2022-927623", "currency"),
    # The converter joins the department to the organisation name ("… - Salg").
    ("ContractAwardNotice_can-social_2024-111341", "supplier_name"),
    # The signed tender TEN-0008 states no value; the converter put another tender's 95 000 000 NOK on the award.
    ("2024-110489", "value"),
    ("2024-110489", "currency"),
}


def test_every_notice_is_pinned():
    assert sorted(EXPECTED) == NOTICES


@pytest.mark.parametrize("notice", NOTICES)
def test_ocds_rows_per_lot_and_winner(notice):
    rows = ocds_rows(notice)
    assert rows == EXPECTED[notice]
    assert len(by_winner(rows)) == len(rows)  # one row per (lot, winner)


@pytest.mark.parametrize("notice", NOTICES)
def test_ocds_rows_equal_eforms_rows_where_both_state_them(notice):
    ocds, eforms = by_winner(ocds_rows(notice)), by_winner(eforms_rows(notice))
    if notice == "ContractAwardNotice_can-social_2023-653024":
        # The converter wrote ORG-0002 as supplier of all ten lot results; eForms names ten winners.
        assert len(eforms) == 10 and set(ocds) < set(eforms)
    else:
        assert set(ocds) == set(eforms)
    for key in ocds:
        differing = {
            field
            for field in COMPARED
            if getattr(ocds[key], field) not in (None, "")
            and getattr(eforms[key], field) not in (None, "")
            and getattr(ocds[key], field) != getattr(eforms[key], field)
        }
        assert differing == {field for n, field in KNOWN if n == notice and field in differing}, key
        # Where the release states nothing, eForms may know more; never the other way round but for KNOWN.
        stated_only_in_ocds = {
            field
            for field in COMPARED
            if getattr(ocds[key], field) not in (None, "") and getattr(eforms[key], field) in (None, "")
        }
        assert stated_only_in_ocds <= {field for n, field in KNOWN if n == notice}, key


def test_two_contracts_on_one_award_each_winner_gets_its_own_contract_value():
    """927623 with the eForms contract values written onto its two contracts: never the last contract's
    value for both winners. Constructed from the real release (values from the eForms tenders)."""
    release = json.loads((DATA / "ContractAwardNotice_can-social_2022-927623_release_0.json").read_bytes())
    first, second = release["contracts"]
    first["value"] = {"amount": 138000000, "currency": "NOK"}
    second["value"] = {"amount": 3000000, "currency": "NOK"}
    assert [(a.supplier_name, a.value) for a in awards(release)] == [
        ("Avarn Security AS", Decimal(138000000)),
        ("Securitas AS", Decimal(3000000)),
    ]
    # Without the bids that tell the contracts apart, neither contract is a winner's own: no value at all.
    unlinked = copy.deepcopy(release)
    del unlinked["bids"]["details"]
    assert [(a.supplier_name, a.value) for a in awards(unlinked)] == [
        ("Avarn Security AS", None),
        ("Securitas AS", None),
    ]


def test_end_of_day_stamp_is_the_day_written_and_doe_midnight_is_berlin():
    release = {
        "awards": [{"id": "RES-0001", "relatedLots": ["LOT-0001"], "status": "active", "suppliers": [{"name": "A"}]}],
        "contracts": [{"id": "CON-0001", "awardID": "RES-0001", "dateSigned": "2022-10-14T23:59:59Z"}],
    }
    assert awards(release)[0].date == date(2022, 10, 14)  # eForms "2022-10-14", not the 15th in Berlin
    release["contracts"][0]["dateSigned"] = "2026-07-19T22:00:00.000Z"
    assert awards(release)[0].date == date(2026, 7, 20)
