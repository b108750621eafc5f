"""What the audit of unseen German DÖE notices found in the OCDS parser (tests/data/audit2/AUDIT.md, second part).

The releases are read straight out of the audit corpus (``tests/data/audit2/doe/``), one package per file as DÖE
publishes them.
"""

from __future__ import annotations

from pathlib import Path

from sources.parsers.ocds import parse_ocds_package

GERMAN = Path(__file__).resolve().parents[2] / "data" / "audit2" / "doe"


def test_each_lot_has_the_place_its_items_are_delivered_to():
    # LKN.SH, 18 electric vehicles in three lots: lots 1 and 2 go to Husum, lot 3 to Meldorf. The lots had no place;
    # the tender's place is the first item's.
    (record,) = parse_ocds_package((GERMAN / "ocds_005ae5b2-fb8a-4378-8177-2b79c97f8ecb.json").read_bytes())
    assert [(lot.lot_id, lot.postal_code, lot.town, lot.nuts_codes) for lot in record.lots] == [
        ("LOT-0001", "25813", "Husum, Nordsee", ("DEF07",)),
        ("LOT-0002", "25813", "Husum, Nordsee", ("DEF07",)),
        ("LOT-0003", "25704", "Meldorf (Holstein)", ("DEF05",)),
    ]
    assert (record.postal_code, record.town, record.nuts_codes) == ("25813", "Husum, Nordsee", ("DEF07", "DEF05"))


def test_a_lot_without_a_delivery_address_has_no_place():
    # BAFA: the one item states its place only as the text "Frankfurt", which names no address.
    (record,) = parse_ocds_package((GERMAN / "ocds_05cd6718-9c1c-4b66-b15f-01c8c50bbb00.json").read_bytes())
    (lot,) = record.lots
    assert (lot.lot_id, lot.postal_code, lot.town, lot.nuts_codes, lot.cpv_codes) == (
        "LOT-0000",
        "",
        "",
        (),
        ("79950000",),
    )
