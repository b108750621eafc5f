"""Procedure types: the canonical codes with German labels, and every spelling the sources use for them.

``procedure_type_code`` folds eForms codes, OCDS methods, English and German names into one code.
eForms-DE extends the EU ``procurement-procedure-type`` list with ``de-``-prefixed codes for the
UVgO/VOB/A procedures; without them these notices fell to "other". Mapping:
Öffentliche Ausschreibung -> ``public_tender``, Beschränkte Ausschreibung (with or without
Teilnahmewettbewerb) -> ``limited_tender``, Verhandlungsvergabe (with or without) -> ``negotiated_award``.
"""

from __future__ import annotations

EFORMS_DE_PROCEDURE_CODES: dict[str, str] = {
    "de-open": "public_tender",
    "de-restricted-w-call": "limited_tender",
    "de-restricted-wo-call": "limited_tender",
    "de-restricted": "limited_tender",
    "de-comp-w-call": "negotiated_award",
    "de-comp-wo-call": "negotiated_award",
    "de-comp": "negotiated_award",
    "de-neg-w-call": "negotiated_award",
    "de-neg-wo-call": "negotiated_award",
}

# Canonical procedure types (eForms procurement-procedure-type, folded) with German labels.
PROCEDURE_TYPES: dict[str, str] = {
    "open": "Offenes Verfahren",
    "restricted": "Nicht offenes Verfahren",
    "negotiated_with_call": "Verhandlungsverfahren mit Teilnahmewettbewerb",
    "negotiated_without_call": "Verhandlungsverfahren ohne Teilnahmewettbewerb",
    "competitive_dialogue": "Wettbewerblicher Dialog",
    "innovation_partnership": "Innovationspartnerschaft",
    "public_tender": "Öffentliche Ausschreibung",
    "limited_tender": "Beschränkte Ausschreibung",
    "negotiated_award": "Verhandlungsvergabe",
    "other": "Sonstiges Verfahren",
}

_PROCEDURE_ALIASES: dict[str, str] = {
    # eForms codelist procurement-procedure-type
    "open": "open",
    "restricted": "restricted",
    "neg-w-call": "negotiated_with_call",
    "neg-wo-call": "negotiated_without_call",
    "comp-dial": "competitive_dialogue",
    "innovation": "innovation_partnership",
    "oth-single": "other",
    "oth-mult": "other",
    "comp-tend": "other",
    # OCDS method codelist (coarser)
    "selective": "restricted",
    "limited": "negotiated_without_call",
    "direct": "negotiated_without_call",
    # English names as DÖE's OCDS procurementMethodDetails carries them
    "open procedure": "open",
    "restricted procedure": "restricted",
    "negotiated procedure with prior publication": "negotiated_with_call",
    "negotiated procedure with prior publication of a call for competition": "negotiated_with_call",
    "competitive procedure with negotiation": "negotiated_with_call",
    "negotiated with prior publication of a call for competition / competitive with negotiation": (
        "negotiated_with_call"
    ),
    "negotiated procedure without prior publication": "negotiated_without_call",
    "negotiated without prior call for competition": "negotiated_without_call",
    "competitive dialogue": "competitive_dialogue",
    "innovation partnership": "innovation_partnership",
    "public announcement": "public_tender",
    "other single stage procedure": "other",
    "other multiple stage procedure": "other",
    # German names (EU and national)
    "offenes verfahren": "open",
    "nicht offenes verfahren": "restricted",
    "verhandlungsverfahren mit teilnahmewettbewerb": "negotiated_with_call",
    "verhandlungsverfahren ohne teilnahmewettbewerb": "negotiated_without_call",
    "verhandlungsverfahren": "negotiated_with_call",
    "wettbewerblicher dialog": "competitive_dialogue",
    "innovationspartnerschaft": "innovation_partnership",
    "öffentliche ausschreibung": "public_tender",
    "beschränkte ausschreibung": "limited_tender",
    "beschränkte ausschreibung mit teilnahmewettbewerb": "limited_tender",
    "beschränkte ausschreibung ohne teilnahmewettbewerb": "limited_tender",
    "verhandlungsvergabe": "negotiated_award",
    "verhandlungsvergabe mit teilnahmewettbewerb": "negotiated_award",
    "verhandlungsvergabe ohne teilnahmewettbewerb": "negotiated_award",
    "freihändige vergabe": "negotiated_award",
    # eForms-DE national codes ("de-open", "de-restricted-wo-call" …)
    **EFORMS_DE_PROCEDURE_CODES,
}


def procedure_type_code(raw: str | None) -> str:
    """Map any known spelling of a procedure type to its canonical code ("" if unknown/empty)."""
    if not raw:
        return ""
    key = " ".join(raw.strip().lower().split())
    if key == "unknown":  # what the TED XML Data Converter writes for a procedure it could not map: none stated
        return ""
    if key in _PROCEDURE_ALIASES:
        return _PROCEDURE_ALIASES[key]
    for alias, code in _PROCEDURE_ALIASES.items():
        if len(alias) > 8 and key.startswith(alias):
            return code
    return "other"


def procedure_type_label(code: str) -> str:
    return PROCEDURE_TYPES.get(code, "")
