"""Legal-basis spellings portal list pages print, inside longer texts (NetServer, cosinex)."""

from __future__ import annotations

import pytest

from kernel.vocabulary.legal_basis import legal_basis_code, legal_basis_in_text


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("VOB/A, Beschränkte Ausschreibung", "vob-a"),  # NetServer five-cell tenderType cell
        ("UVgO, Öffentliche Ausschreibung", "uvgo"),
        ("VgV, Offenes Verfahren", "vgv"),
        ("VOL/UVgO", "uvgo"),  # NetServer legal-framework cell: UVgO, not the old VOL/A
        ("VOL", "vol-a"),
        ("VOB/A-EU", "vob-a-eu"),
        ("VOB/A EU", "vob-a-eu"),
        ("VgV Vergebener Auftrag", "vgv"),  # cosinex "Typ" cell
        ("SektVO TNW", "sektvo"),
        ("Öffentliche Ausschreibung (LHO)", "haushaltsrecht"),  # Vergabeplattform Berlin: § 55 LHO
        ("Freihändige Vergabe nach Bundeshaushaltsordnung", "haushaltsrecht"),
        ("ABHOLUNG", ""),  # the abbreviation as a word of its own only
        ("Öffentliche Ausschreibung", ""),  # a procedure, no legal basis
        ("", ""),
        (None, ""),
    ],
)
def test_legal_basis_in_text(raw, code) -> None:
    assert legal_basis_in_text(raw) == code


def test_portal_cells_spelled_alone_normalise_to_the_same_codes() -> None:
    assert legal_basis_code("VOL/UVgO") == "uvgo"
    assert legal_basis_code("VOL") == "vol-a"
    assert legal_basis_code("VOB") == "vob-a"


@pytest.mark.parametrize("raw", ["LHO", "BHO", "lho", "Landeshaushaltsordnung"])
def test_budget_law_spelled_alone_is_haushaltsrecht(raw) -> None:
    assert legal_basis_code(raw) == "haushaltsrecht"
