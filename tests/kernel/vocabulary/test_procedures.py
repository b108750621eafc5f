from __future__ import annotations

import pytest

from kernel.vocabulary.procedures import PROCEDURE_TYPES, procedure_type_code, procedure_type_label


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("neg-w-call", "negotiated_with_call"),  # eForms
        ("selective", "restricted"),  # OCDS method
        ("Open procedure", "open"),  # English, any case
        ("  Öffentliche   Ausschreibung ", "public_tender"),  # German, spaces folded
        ("Beschränkte Ausschreibung ohne Teilnahmewettbewerb", "limited_tender"),
        ("Verhandlungsverfahren mit Teilnahmewettbewerb nach § 17 VgV", "negotiated_with_call"),  # known prefix
        ("de-open", "public_tender"),  # eForms-DE
        ("Losverfahren", "other"),
        ("UNKNOWN", ""),  # TED XML Data Converter: no procedure stated (converted TED 625923-2021)
        ("", ""),
        (None, ""),
    ],
)
def test_every_spelling_folds_to_one_code(raw, code):
    assert procedure_type_code(raw) == code


def test_every_code_has_a_german_label():
    assert procedure_type_label("negotiated_award") == "Verhandlungsvergabe"
    assert procedure_type_label("unknown") == ""
    assert {procedure_type_code(label) for label in PROCEDURE_TYPES.values()} == set(PROCEDURE_TYPES)
