"""The compound splitter on words from real tender titles (pure: no database)."""

from __future__ import annotations

import pytest

from kernel.vocabulary import compounds
from kernel.vocabulary.compounds import compound_parts, compound_split
from kernel.vocabulary.search_words import text_compound_parts, words_compound_parts


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("Gebäudereinigung", {"gebäude", "reinigung"}),
        ("Unterhaltsreinigung", {"unterhalt", "reinigung"}),
        ("Büroreinigung", {"büro", "reinigung"}),
        ("Schlegelmäher", {"schlegel", "mäher"}),
        ("Brückensanierung", {"brücke", "sanierung"}),
        ("Dachabdichtung", {"dach", "abdichtung"}),
        ("Winterdienst", {"winter", "dienst"}),
        ("Schulgebäude", {"schule", "gebäude"}),  # a dropped -e is restored
        ("Bewachungsdienste", {"bewachung", "dienste"}),  # the linking -s- is dropped
        ("Kindertagesstätte", {"kinder", "tagesstätte", "tag", "stätte"}),  # parts of parts too
        ("Straßenbauarbeiten", {"strasse", "bauarbeiten", "bau", "arbeiten"}),  # ß folds as wordfreq and PostgreSQL do
    ],
)
def test_compounds_from_tender_titles_split_into_their_parts(word, parts):
    assert set(compound_parts(word)) == parts


@pytest.mark.parametrize(
    "word", ["Feuerwehr", "Beratung", "Lieferung", "Ausschreibung", "Sanierung", "Reinigung", "Universität", "Umbau"]
)
def test_frequent_or_derived_words_stay_whole(word):
    assert compound_parts(word) == ()


def test_fragments_and_stopwords_are_never_parts():
    every_part = set(
        text_compound_parts(["Unterhaltsreinigung Vergabeunterlagen Ausschreibungsunterlagen Beratungsleistungen"])
    )
    assert not every_part & {"unter", "aus", "ung", "ungs", "untere", "er"}
    assert all(len(part) >= 3 for part in every_part)


def test_query_split_is_the_top_level_only():
    assert compound_split("Straßenbauarbeiten") == ("strasse", "bauarbeiten")
    assert compound_split("Reinigung") == ()


def test_numbers_codes_and_short_words_are_left_alone():
    assert compound_parts("45233120") == ()
    assert compound_parts("B12") == ()
    assert compound_parts("Dach") == ()


def test_text_parts_are_distinct_and_bounded():
    text = "Gebäudereinigung und Glasreinigung, Gebäudereinigung"
    assert text_compound_parts([text]) == ["gebäude", "reinigung", "glas"]
    assert len(text_compound_parts([text], limit=2)) == 2


def test_a_word_longer_than_any_real_compound_stays_whole_and_leaves_no_trace_in_the_memo():
    real = "Straßenbeleuchtungsunterhaltungsarbeiten"  # 40 letters, as a municipality writes it
    assert len(real) <= compounds.MAX_WORD_LENGTH and "beleuchtung" in compound_parts(real)
    pasted = "Gebäudereinigung" * 40  # 640 letters without a break: pasted, not a word
    before = compounds._segment.cache_info().currsize
    assert compound_split(pasted) == () and compound_parts(pasted) == ()
    assert compounds._segment.cache_info().currsize == before
    assert text_compound_parts([f"{pasted} Glasreinigung"]) == ["glas", "reinigung"]


def test_the_word_list_read_from_its_file_is_wordfreqs_own() -> None:
    from wordfreq import get_frequency_dict

    from kernel.vocabulary.compound_frequencies import FREQUENCIES, load_frequencies

    wordfreqs_own = get_frequency_dict("de", "large")
    assert wordfreqs_own == FREQUENCIES
    assert load_frequencies() == FREQUENCIES


def test_parts_split_elsewhere_are_used_as_given_and_bounded(monkeypatch) -> None:
    monkeypatch.setattr(compounds, "_REMEMBERED", {})
    monkeypatch.setattr(compounds, "REMEMBERED_MAX", 3)
    split_here = words_compound_parts(["Gebäudereinigung und Schlegelmäher, Gebäudereinigung"])
    assert split_here == {
        "Gebäudereinigung": ("gebäude", "reinigung"),
        "Schlegelmäher": compound_parts("Schlegelmäher"),
    }
    assert words_compound_parts(["Gebäudereinigung"], skip={"Gebäudereinigung"}) == {}
    compounds.remember_compound_parts({"Kunstwort": ("kunst", "wort")})  # as a worker computed it
    assert compound_parts("Kunstwort") == ("kunst", "wort")
    assert text_compound_parts(["Kunstwort"]) == ["kunst", "wort"]
    compounds.remember_compound_parts({"Ader": (), "Bdera": (), "Cdera": ()})  # more than the bound: emptied first
    assert compounds._REMEMBERED == {"Ader": (), "Bdera": (), "Cdera": ()}
    assert compound_parts("Kunstwort") == compounds._compound_parts("Kunstwort")
