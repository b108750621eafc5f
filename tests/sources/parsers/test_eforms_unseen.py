"""What the audit of unseen real notices found in the eForms parser (tests/data/audit2/AUDIT.md), one notice each.

The notices are read straight out of the audit corpus (``notices.tar.xz``): real TED notices, 14 as TED published
them, 25 as the TED XML Data Converter turned TED's older XML into eForms (its stand-in ids and lot ids included).
"""

from __future__ import annotations

import tarfile
from pathlib import Path

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
