"""Both pickers (CPV search, Kreis suggestions) forgive the same spellings of umlauts and ß."""

from __future__ import annotations

import pytest

from kernel.vocabulary.cpv import cpv_search
from kernel.vocabulary.folding import typed_fold
from kernel.vocabulary.places import kreis_suggestions


@pytest.mark.parametrize("typed", ["München", "Muenchen", "munchen", "MÜNCHEN"])
def test_umlaut_spellings_fold_alike(typed):
    assert typed_fold(typed) == "munchen"


def test_sharp_s_and_accents_fold():
    assert typed_fold("Straße") == "strasse"
    assert typed_fold("Café") == "cafe"


def test_both_pickers_find_with_an_ae_spelling():
    assert kreis_suggestions("Muenchen")
    assert [k.name for k in kreis_suggestions("Muenchen")] == [k.name for k in kreis_suggestions("München")]
    assert [c.code for c in cpv_search("Bueroreinigung")] == [c.code for c in cpv_search("Büroreinigung")]
    assert cpv_search("Bueroreinigung")
