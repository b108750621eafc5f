"""The tender page's presentation rules, without a request: lot ids, country, notice names."""

from __future__ import annotations

from types import SimpleNamespace

from notifications.portal.tender_page import country_shown, publication_numbers, single_lot


def test_one_lot_named_alike_everywhere_is_a_single_lot():
    lot = {"lot_id": "LOT-0000"}
    assert single_lot(lots=[lot], awards=[lot], deadlines=[{"kind": "angebotsfrist", "lot_id": "LOT-0000"}])
    assert single_lot(lots=[], awards=[], deadlines=[])


def test_two_lots_or_a_second_lot_id_elsewhere_show_lot_ids():
    assert not single_lot(lots=[{"lot_id": "LOT-1"}, {"lot_id": "LOT-2"}], awards=[], deadlines=[])
    # One lot listed, but an award names another: the reader needs the ids to tell them apart.
    assert not single_lot(lots=[{"lot_id": "LOT-1"}], awards=[{"lot_id": "LOT-2"}], deadlines=[])


def test_germany_goes_unnamed_another_country_by_name_an_unknown_code_as_it_is():
    assert country_shown("DEU", "de") == "" and country_shown("de", "en") == ""
    assert country_shown("FRA", "de") == "Frankreich"
    assert country_shown("FRA", "en") == "France"
    assert country_shown("XXX", "de") == "XXX"
    assert country_shown("", "de") == ""


def test_each_source_is_named_by_its_newest_publication_number():
    versions = [
        SimpleNamespace(pk=1, tender_source_id=10, publication_number="100-2026"),
        SimpleNamespace(pk=2, tender_source_id=11, publication_number=None),
        SimpleNamespace(pk=3, tender_source_id=10, publication_number="200-2026"),
        SimpleNamespace(pk=4, tender_source_id=10, publication_number=""),
    ]
    by_version, by_source = publication_numbers(versions)
    assert by_version == {1: "100-2026", 2: "", 3: "200-2026", 4: ""}
    assert by_source == {10: "200-2026"}  # a later notice without a number keeps the last one it had
