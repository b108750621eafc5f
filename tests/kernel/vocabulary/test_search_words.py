"""kernel.vocabulary.search_words: a phrase's words and distances, a compound's head, the stopwords PostgreSQL drops."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.vocabulary.compounds import STOPWORDS
from kernel.vocabulary.search_words import phrase_steps, word_head


@pytest.mark.parametrize(
    ("token", "steps"),
    [
        ('"Bewachung Henning"', [("Bewachung", 0), ("Henning", 1)]),
        # Hyphens part words as spaces do; a stopword keeps its place, so the next word is two away.
        ('"Henning-von-Tresckow-Kaserne"', [("Henning", 0), ("Tresckow", 2), ("Kaserne", 1)]),
        ('-"Los 1 Winterdienst"', [("Los", 0), ("1", 1), ("Winterdienst", 1)]),
        ('"Reinigung – Rathaus"', [("Reinigung", 0), ("Rathaus", 1)]),  # a dash is no word
        ('"der die das"', []),
        ('""', []),
        ('"unclosed', [("unclosed", 0)]),
    ],
)
def test_phrase_steps(token, steps):
    assert phrase_steps(token) == steps


@pytest.mark.parametrize(
    ("word", "head"),
    [
        ("Gebäudereinigung", "reinigung"),
        ("Bueroreinigung", "reinigung"),  # an umlaut written out splits the same
        ("Gebäude-Reinigung", "reinigung"),
        ("Dachsanierung", "sanierung"),
        ("Reinigung", ""),  # not a compound
        ("Malerarbeiten", ""),  # a generic head would find any work
        ("Winterdienst", ""),
        ("Schulbus", ""),  # a short head is as often a splitting accident
        ("IT-Dienstleistungen", ""),
    ],
)
def test_word_head(word, head):
    assert word_head(word) == head


def test_stopwords_are_postgresqls():
    # The phrase distances count the words PostgreSQL's German configuration drops: the same list.
    shipped = Path("/usr/share/postgresql")
    lists = sorted(shipped.glob("*/tsearch_data/german.stop"))
    if not lists:
        pytest.skip("PostgreSQL's stopword file is not on this machine (the database test checks the same)")
    words = {line.strip() for line in lists[-1].read_text(encoding="utf-8").splitlines() if line.strip()}
    assert words == STOPWORDS
