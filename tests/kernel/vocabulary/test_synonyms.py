"""The thesaurus file format: same words, narrower words, basis; broken lines are named."""

import pytest

from kernel.vocabulary.synonyms import SynonymEntry, entry_problems, parse_thesaurus


def test_parse_reads_groups_narrower_words_and_basis():
    text = "# comment\n\nSanierung, Erneuerung > Dachsanierung | CPV 45453000\nMüll, Abfall\n"
    assert parse_thesaurus(text) == (
        SynonymEntry(words=("Sanierung", "Erneuerung"), narrower=("Dachsanierung",), basis="CPV 45453000"),
        SynonymEntry(words=("Müll", "Abfall")),
    )


@pytest.mark.parametrize(
    "line",
    ["Müll abfuhr, Abfall", "> Abfall", "Müll, -Abfall", 'Müll, "Abfall"', "Müll, müll", "Müll, Abfall > abfall"],
)
def test_a_broken_line_is_named(line):
    with pytest.raises(ValueError, match="line 2"):
        parse_thesaurus(f"Sanierung, Erneuerung\n{line}\n")


def test_hyphenated_words_are_words():
    assert entry_problems(SynonymEntry(words=("IT-Dienstleistungen", "EDV-Dienstleistungen"))) == []
