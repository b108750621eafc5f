"""What the audit of unseen real notices found in the eForms parser (tests/data/audit2/AUDIT.md), one notice each.

The notices are read straight out of the audit corpus (``notices.tar.xz``): real TED notices, 14 as TED published
them, 25 as the TED XML Data Converter turned TED's older XML into eForms (its stand-in ids and lot ids included).
"""

from __future__ import annotations

import tarfile
from datetime import date
from decimal import Decimal
from pathlib import Path

from kernel.records import AwardStatus, NoticeKind
from sources.parsers.eforms import parse_eforms

CORPUS = Path(__file__).resolve().parents[2] / "data" / "audit2" / "notices.tar.xz"


def audited(name: str):
    with tarfile.open(CORPUS) as archive:
        return parse_eforms(archive.extractfile(name).read(), source="ted")


def test_a_converted_notice_is_known_by_its_publication_number_not_by_the_converters_stand_in_ids():
    # Both carry the converter's notice id f252f386-… and procedure id aff2863e-…: as ids they made the 25
    # converted notices one notice of one tender, 24 of them lost.
    mitterteich, giessen = audited("converter_21-362774-001-EXP.xml"), audited("converter_21-363066-001-EXP.xml")
    assert (mitterteich.source_notice_id, mitterteich.publication_number) == ("352458-2021", "352458-2021")
    assert (giessen.source_notice_id, giessen.publication_number) == ("353820-2021", "353820-2021")
    assert (mitterteich.procedure_id, giessen.procedure_id) == (None, None)
    assert mitterteich.buyer_name == "Stadt Mitterteich"


def test_a_place_abroad_keeps_its_town_but_gives_no_plz():
    # Saint-Yrieix-la-Perche, 87500 (FRA): as PLZ it was found by a search for "87" (Allgäu) and by radius.
    record = audited("ted_2024-OJS015-00041387.xml")
    assert (record.town, record.postal_code, record.country, record.bundesland) == (
        "Saint-Yrieix-la-Perche",
        "",
        "FRA",
        "",
    )
    assert [(lot.town, lot.postal_code) for lot in record.lots] == [("Saint-Yrieix-la-Perche", "")]


def test_a_winning_tender_filed_under_a_lot_the_notice_does_not_have_keeps_its_value():
    # TED 315003-2019 (converted): the lot result is LOT-0000, its one tender is filed under lot "1", which the
    # notice does not have; the contract signs that tender. The winner's value is the tender's.
    (award,) = audited("converter_19-318420-001-EXP.xml").awards
    assert (award.lot_id, award.status, award.supplier_name, award.supplier_town) == (
        "LOT-0000",
        AwardStatus.AWARDED,
        "SO Space",
        "Niort",
    )
    assert (award.value, award.currency, award.tenders_received, str(award.date)) == (
        Decimal("6883000"),
        "EUR",
        1,
        "2019-05-30",
    )


def test_a_procedure_the_notice_calls_unknown_has_no_type():
    # TED 625923-2021 (ECB, converted): ProcedureCode "UNKNOWN" is no "Sonstiges Verfahren".
    assert audited("converter_21-635824-001-EXP.xml").procedure_type == ""


def german(name: str):
    """A DÖE notice of the audit's German part (``doe/``), as DÖE publishes it."""
    return parse_eforms((CORPUS.parent / "doe" / name).read_bytes(), source="doe")


def test_a_legacy_result_at_the_root_of_a_one_lot_notice_is_that_lots():
    # DÖE legacy award 427d4645-… (Planungsamt der Bundeswehr): the TenderResult stands at the root, the notice has
    # one lot, LOT-0000; the winner was filed under no lot. Its award day 2000-01-01 is a stand-in and the Bonn
    # address nested in the winner is the eSender's: neither is the winner's.
    (award,) = german("sdk-0.1-uuid-can-427d4645-163c-419d-93a9-5f5ce05ff9b7-1.xml").awards
    assert (award.lot_id, award.supplier_name, award.supplier_town, award.status) == (
        "LOT-0000",
        "1. Firma: IABG mbH",
        "",
        AwardStatus.AWARDED,
    )


def test_a_legacy_town_field_with_a_street_without_house_number_gives_the_town():
    # DÖE legacy award 19191760 (Kreis Pinneberg): the town field says "25421 Am Rathaus, Pinneberg".
    record = german("sdk-0.1-can-awarddate-only-19191760-1.xml")
    assert (record.town, record.postal_code, record.bundesland) == ("Pinneberg", "25421", "Schleswig-Holstein")


def test_a_legacy_award_keeps_its_estimate_and_dates_its_winner_by_the_contract():
    # DÖE legacy award ee0ac39a-… (WIGES, Donauausbau Niederalteich): the estimate stands in RequestedTenderTotal as
    # UBL's plain TotalAmount (87 million EUR, lost before); the result's contract was signed 27.01.2023, the award
    # decided 26.01.; its awarded project names "LOT-0001", which the notice does not have (its one lot: LOT-0000).
    record = german("doe-sdk01-subcontract.xml")
    assert (record.estimated_value, record.currency) == (Decimal("87000000.00"), "EUR")
    (award,) = record.awards
    assert (award.lot_id, award.supplier_name, award.supplier_town, award.value, award.date) == (
        "LOT-0000",
        "Mayerhofer Hoch-, Tief- und Ingenieurbau GmbH",
        "Simbach",
        Decimal("9305935.21"),
        date(2023, 1, 27),
    )


def test_a_legacy_change_of_a_prior_information_notice_is_a_change():
    # DÖE legacy 3e5ce20f-…, version 2 (VG Mansfelder Grund - Helbra): two ``efac:Change`` blocks (a corrected
    # identifier and publication day, reason "update-add") without ``efac:Changes`` around them, notice type
    # "pin-only" in the list "change". It was read as a new prior information notice.
    record = german("doe-sdk01-ple-mounts.xml")
    assert (record.kind, record.version, record.source_notice_id) == (
        NoticeKind.CHANGE,
        "02",
        "3e5ce20f-3f3e-4c9d-adad-abcc431581db",
    )
    assert record.referenced_notice_ids == ()  # its ChangedNoticeIdentifier "1" names no notice
