"""Legal basis of a procedure (Rechtsrahmen): the German procurement rules and the EU directives.

Portals print it in many spellings: NetServer's legal-framework cell ("VOB", "VOL/UVgO", "VgV"),
its five-cell rows ("UVgO, Öffentliche Ausschreibung"), cosinex "Typ" cells ("VOB/A Ausschreibung",
"VgV Vergebener Auftrag"), eForms ``cbc:RegulatoryDomain`` / legal-basis codes ("32014L0024").
``legal_basis_code`` maps each to one code; the label is what the portal shows users.

Limits: "VOL" alone is the old VOL/A (replaced by the UVgO below the thresholds, but still printed);
"VOL/UVgO" means the UVgO. A text naming no known rule gives "" (unknown), never a guess.
"""

from __future__ import annotations

import re

__all__ = ["LEGAL_BASIS_CODES", "LEGAL_BASIS_LABELS", "legal_basis_code", "legal_basis_label"]

LEGAL_BASIS_LABELS: dict[str, str] = {
    "vgv": "VgV (Vergabeverordnung)",
    "uvgo": "UVgO (Unterschwellenvergabeordnung)",
    "vob_a": "VOB/A (Bauleistungen, Abschnitt 1)",
    "vob_a_eu": "VOB/A-EU (Bauleistungen, Abschnitt 2)",
    "vob_a_vs": "VOB/A-VS (Bauleistungen Verteidigung und Sicherheit)",
    "vol_a": "VOL/A (Liefer- und Dienstleistungen, alt)",
    "sektvo": "SektVO (Sektorenverordnung)",
    "konzvgv": "KonzVgV (Konzessionsvergabeverordnung)",
    "vsvgv": "VSVgV (Verteidigung und Sicherheit)",
    "eu_2014_24": "Richtlinie 2014/24/EU (klassische Vergabe)",
    "eu_2014_25": "Richtlinie 2014/25/EU (Sektoren)",
    "eu_2014_23": "Richtlinie 2014/23/EU (Konzessionen)",
    "eu_2009_81": "Richtlinie 2009/81/EG (Verteidigung und Sicherheit)",
    "other": "sonstige Rechtsgrundlage",
}
LEGAL_BASIS_CODES: tuple[str, ...] = tuple(LEGAL_BASIS_LABELS)

# Most specific first: "VOB/A-EU" before "VOB/A", "VOL/UVgO" (= UVgO) before "VOL".
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), code)
    for pattern, code in (
        (r"\bVOB\s*/?\s*A?\s*[-\s]?\s*EU\b|\bEU\s*[-/]?\s*VOB\b", "vob_a_eu"),
        (r"\bVOB\s*/?\s*A?\s*[-\s]?\s*VS\b", "vob_a_vs"),
        (r"\bUVgO\b|\bUnterschwellenvergabeordnung\b", "uvgo"),
        (r"\bVOB\b|\bVergabe- und Vertragsordnung für Bauleistungen\b", "vob_a"),
        (r"\bKonzVgV\b|\bKonzessionsvergabeverordnung\b", "konzvgv"),
        (r"\bVSVgV\b", "vsvgv"),
        (r"\bSektVO\b|\bSektorenverordnung\b", "sektvo"),
        (r"\bVgV\b|\bVergabeverordnung\b", "vgv"),
        (r"\bVOL\b", "vol_a"),
        (r"\b32014L0024\b|\b2014/24/EU\b", "eu_2014_24"),
        (r"\b32014L0025\b|\b2014/25/EU\b", "eu_2014_25"),
        (r"\b32014L0023\b|\b2014/23/EU\b", "eu_2014_23"),
        (r"\b32009L0081\b|\b2009/81/EG\b|\b2009/81/EC\b", "eu_2009_81"),
    )
)
# Texts that state a legal basis outside the list above (eForms "other", "Sonstige", national law).
_OTHER = re.compile(r"^\s*(other|sonstige?s?|andere|nationales? recht|haushaltsrecht)\s*$", re.IGNORECASE)


def legal_basis_code(raw: str | None) -> str:
    """The code of the rule ``raw`` names ("VOB/A, Beschränkte Ausschreibung" -> "vob_a"); "" when none.

    A code passed in again is kept ("uvgo" -> "uvgo"), so normalising twice changes nothing.
    """
    text = (raw or "").strip()
    if not text:
        return ""
    if text in LEGAL_BASIS_LABELS:
        return text
    for pattern, code in _PATTERNS:
        if pattern.search(text):
            return code
    return "other" if _OTHER.match(text) else ""


def legal_basis_label(code: str) -> str:
    """German label of a code; an unknown code is shown as given."""
    return LEGAL_BASIS_LABELS.get(code, code)
