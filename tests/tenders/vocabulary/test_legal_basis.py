"""The legal-basis vocabulary: every spelling the portals print maps to one code."""

from __future__ import annotations

import pytest

from tenders.vocabulary.legal_basis import LEGAL_BASIS_CODES, legal_basis_code, legal_basis_label


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("VgV", "vgv"),
        ("VOB", "vob_a"),
        ("VOB/A", "vob_a"),
        ("VOB/A, Beschränkte Ausschreibung", "vob_a"),  # NetServer five-cell tenderType cell
        ("UVgO, Öffentliche Ausschreibung", "uvgo"),
        ("VOL/UVgO", "uvgo"),  # NetServer legal-framework cell: UVgO, not the old VOL/A
        ("VOL", "vol_a"),
        ("VOB/A-EU", "vob_a_eu"),
        ("VOB/A EU", "vob_a_eu"),
        ("VgV Vergebener Auftrag", "vgv"),  # cosinex "Typ" cell
        ("SektVO", "sektvo"),
        ("KonzVgV", "konzvgv"),
        ("VSVgV", "vsvgv"),
        ("32014L0024", "eu_2014_24"),
        ("Sonstige", "other"),
        ("Öffentliche Ausschreibung", ""),  # a procedure, no legal basis
        ("", ""),
        (None, ""),
        ("uvgo", "uvgo"),  # already a code
    ],
)
def test_legal_basis_code(raw, code) -> None:
    assert legal_basis_code(raw) == code


def test_every_code_has_a_german_label() -> None:
    assert legal_basis_label("uvgo") == "UVgO (Unterschwellenvergabeordnung)"
    assert all(legal_basis_label(code) != code for code in LEGAL_BASIS_CODES)
