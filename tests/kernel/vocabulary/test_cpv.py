"""The shipped CPV 2008 vocabulary: every code, exact labels, the hierarchy and the picker's search."""

from __future__ import annotations

from kernel.vocabulary.cpv import (
    cpv_children,
    cpv_divisions,
    cpv_hierarchy,
    cpv_label,
    cpv_labels_for,
    cpv_search,
    normalise_cpv,
    unique_cpv,
    vocabulary,
)


def test_all_codes_with_their_exact_german_labels():
    assert len(vocabulary()) == 9454
    assert cpv_label("45000000") == "Bauarbeiten"
    assert cpv_label("90919200") == "Büroreinigung"
    assert cpv_label("79713000") == "Bewachungsdienste"
    assert cpv_label("77314100") == "Anlegen von Rasen"
    assert cpv_label("12345678") == ""


def test_every_code_has_its_official_english_label():
    assert all(entry.label_en for entry in vocabulary().values())
    assert cpv_label("45000000", "en") == "Construction work"
    assert cpv_label("90919200", "en") == "Office cleaning services"
    assert cpv_label("79713000", "en") == "Guard services"
    assert cpv_label("77314100", "en") == "Grassing services"
    assert cpv_label("03131300", "en") == "Maté"
    assert cpv_label("79713000", "de") == cpv_label("79713000") == "Bewachungsdienste"


def test_the_picker_finds_a_code_by_its_english_label_too():
    assert "79713000" in [entry.code for entry in cpv_search("guard services")]


def test_the_45_divisions_of_cpv_2008():
    assert len(cpv_divisions()) == 45
    assert cpv_divisions()["45"] == "Bauarbeiten"


def test_codes_lose_their_check_digit_and_duplicates():
    assert normalise_cpv("45233140-2") == normalise_cpv(" 45233140 -2") == normalise_cpv("45233140") == "45233140"
    assert normalise_cpv("4523314") == normalise_cpv("") == normalise_cpv(None) == ""
    assert unique_cpv(["45233140-2", "45233140", "x", "90919200"]) == ("45233140", "90919200")


def test_labels_for_the_vector_are_the_codes_and_their_parents_once_each_without_divisions():
    labels = cpv_labels_for(["79713000", "79710000", ""])
    assert labels == (
        "Dienstleistungen von Detekteien und Sicherheitsdiensten Dienstleistungen von Sicherheitsdiensten "
        "Bewachungsdienste"
    )
    assert "Unternehmen" not in labels  # the division 79's label names every business service
    assert cpv_labels_for(["45000000"]) == "Bauarbeiten"  # a division code keeps its own label


def test_hierarchy_runs_division_group_class_category():
    chain = cpv_hierarchy("79713000")
    assert [(entry.code, entry.level) for entry in chain] == [
        ("79000000", "division"),
        ("79700000", "group"),
        ("79710000", "class"),
        ("79713000", "category"),
    ]
    assert cpv_hierarchy("00000000") == []


def test_children_are_one_level_below():
    assert len(cpv_children("")) == 45
    assert [entry.code for entry in cpv_children("45000000")] == [
        "45100000",
        "45200000",
        "45300000",
        "45400000",
        "45500000",
    ]


def test_search_by_label_words_umlaut_spellings_and_number():
    assert [entry.code for entry in cpv_search("Bewachung")] == ["79713000"]
    assert "90919200" in [entry.code for entry in cpv_search("Bueroreinigung")]
    # Every word must occur; codes the words are central to first, "Möbel … Reinigungsmittel" last.
    assert [entry.code for entry in cpv_search("reinigung büro")] == ["90919200", "90919000", "90919100", "39000000"]
    hits = cpv_search("4521", limit=3)
    assert [entry.code for entry in hits] == ["45210000", "45211000", "45212000"]
    assert cpv_search("   ") == []


def test_a_word_finds_the_codes_it_names_before_those_it_merely_mentions():
    # "Möbel (…) und Reinigungsmittel" holds the word too, as an afterthought; the cleaning services lead.
    hits = [entry.code for entry in cpv_search("Reinigung", limit=200)]
    assert hits[:2] == ["90900000", "90910000"]
    assert hits.index("39000000") > hits.index("90911200")  # Gebäudereinigung
    assert hits.index("98131000") > hits.index("39000000")  # "Vereinigungen": the word inside another one
    assert [entry.code for entry in cpv_search("9091", limit=2)] == ["90910000", "90911000"]


def test_every_code_can_be_reached_by_browsing_down_from_the_divisions():
    reached, pending = set(), [""]
    while pending:
        for child in cpv_children(pending.pop()):
            reached.add(child.code)
            pending.append(child.code)
    assert reached == set(vocabulary())
