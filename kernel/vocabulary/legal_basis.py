"""Legal basis of a procurement (Vergaberechtsgrundlage): codes, German labels, a normaliser.

Codes follow the eForms-DE code list for ``cac:ProcurementLegislationDocumentReference/cbc:ID``
(BT-01 local legal basis, lower case: ``vgv``, ``sektvo``, ``konzvgv``, ``vsvgv``, ``vob-a-eu``,
``vob-a``, ``uvgo`` …); ``legal_basis_code`` also folds the spellings portals print ("VOB/A EU",
"UVgO", "Vergabeverordnung") and the EU directives of ``cbc:RegulatoryDomain`` (CELEX numbers).
"""

from __future__ import annotations

import re

LEGAL_BASIS_LABELS: dict[str, str] = {
    "vgv": "VgV",
    "sektvo": "SektVO",
    "konzvgv": "KonzVgV",
    "vsvgv": "VSVgV",
    "vob-a-eu": "VOB/A-EU",
    "vob-a-vs": "VOB/A-VS",
    "vob-a": "VOB/A (Abschnitt 1)",
    "uvgo": "UVgO",
    "vol-a": "VOL/A",
    "svhv": "SVHV",
    "haushaltsrecht": "Haushaltsrecht",
    "eu-2014-24": "Richtlinie 2014/24/EU",
    "eu-2014-25": "Richtlinie 2014/25/EU",
    "eu-2014-23": "Richtlinie 2014/23/EU",
    "eu-2009-81": "Richtlinie 2009/81/EG",
    "other": "Sonstige",
}

# Legal bases that only apply above the EU thresholds (GWB part 4 and the directives behind it).
ABOVE_THRESHOLD = frozenset(
    {
        "vgv",
        "sektvo",
        "konzvgv",
        "vsvgv",
        "vob-a-eu",
        "vob-a-vs",
        "eu-2014-24",
        "eu-2014-25",
        "eu-2014-23",
        "eu-2009-81",
    }
)
BELOW_THRESHOLD = frozenset({"vob-a", "uvgo", "vol-a", "svhv", "haushaltsrecht"})

_CELEX = {
    "32014l0024": "eu-2014-24",
    "32014l0025": "eu-2014-25",
    "32014l0023": "eu-2014-23",
    "32009l0081": "eu-2009-81",
}
_ALIASES = {
    "vergabeverordnung": "vgv",
    "sektorenverordnung": "sektvo",
    "konzessionsvergabeverordnung": "konzvgv",
    "vergabeverordnung verteidigung und sicherheit": "vsvgv",
    "unterschwellenvergabeordnung": "uvgo",
    "vob/a eu": "vob-a-eu",
    "vob/a-eu": "vob-a-eu",
    "vob/a abschnitt 2": "vob-a-eu",
    "vob/a vs": "vob-a-vs",
    "vob/a-vs": "vob-a-vs",
    "vob/a abschnitt 3": "vob-a-vs",
    "vob/a": "vob-a",
    "vob/a abschnitt 1": "vob-a",
    "vob": "vob-a",
    "vol/a": "vol-a",
    # NetServer's legal-framework cell: "VOL/UVgO" is the UVgO that replaced the VOL/A below the thresholds.
    "vol/uvgo": "uvgo",
    "vol": "vol-a",
    # Budget law below the thresholds: Vergabeplattform Berlin writes "Öffentliche Ausschreibung (LHO)" for a
    # tender under § 55 of the Landeshaushaltsordnung; the Bund's own is the BHO.
    "lho": "haushaltsrecht",
    "bho": "haushaltsrecht",
    "landeshaushaltsordnung": "haushaltsrecht",
    "bundeshaushaltsordnung": "haushaltsrecht",
}
_FOLD = re.compile(r"[\s_]+")


def legal_basis_code(raw: str | None) -> str:
    """Any known spelling of a legal basis -> its code; "" when empty, "other" when unknown."""
    if not raw:
        return ""
    key = _FOLD.sub(" ", raw.strip().lower())
    if not key:
        return ""
    if key in LEGAL_BASIS_LABELS:
        return key
    if key in _CELEX:
        return _CELEX[key]
    if key in _ALIASES:
        return _ALIASES[key]
    dashed = key.replace("/", "-").replace(" ", "-").replace("--", "-")
    if dashed in LEGAL_BASIS_LABELS:
        return dashed
    return "other"


# Spellings found INSIDE a longer portal text, most specific first: NetServer's five-cell
# "UVgO, Öffentliche Ausschreibung", cosinex's "VgV Vergebener Auftrag", a JSON "contractingRule".
_IN_TEXT: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), code)
    for pattern, code in (
        (r"\bVOB\s*/?\s*A?\s*[-\s]?\s*EU\b|\bVOB/A\s+Abschnitt\s+2\b", "vob-a-eu"),
        (r"\bVOB\s*/?\s*A?\s*[-\s]?\s*VS\b|\bVOB/A\s+Abschnitt\s+3\b", "vob-a-vs"),
        (r"\bUVgO\b|\bUnterschwellenvergabeordnung\b", "uvgo"),
        (r"\bVOB\b", "vob-a"),
        (r"\bKonzVgV\b|\bKonzessionsvergabeverordnung\b", "konzvgv"),
        (r"\bVSVgV\b", "vsvgv"),
        (r"\bSektVO\b|\bSektorenverordnung\b", "sektvo"),
        (r"\bVgV\b|\bVergabeverordnung\b", "vgv"),
        (r"\bVOL\b", "vol-a"),
        (r"\bSVHV\b", "svhv"),
        (r"\b[LB]HO\b|\b(?:Landes|Bundes)haushaltsordnung\b", "haushaltsrecht"),
    )
)


def legal_basis_in_text(raw: str | None) -> str:
    """The legal basis a longer portal text names ("VOB/A, Beschränkte Ausschreibung" -> "vob-a");
    "" when it names none (a procedure alone, "Öffentliche Ausschreibung"), never "other"."""
    text = raw or ""
    return next((code for pattern, code in _IN_TEXT if pattern.search(text)), "")


def legal_basis_label(code: str) -> str:
    return LEGAL_BASIS_LABELS.get(code, "")


# Procedure types that exist only in national law below the EU thresholds (UVgO §§ 8-12, VOB/A Abschnitt 1
# § 3): Öffentliche / Beschränkte Ausschreibung, Verhandlungsvergabe (canonical codes of ``procedures``).
NATIONAL_PROCEDURE_TYPES = frozenset({"public_tender", "limited_tender", "negotiated_award"})


def above_eu_threshold(codes: list[str] | tuple[str, ...], *, procedure_type: str = "") -> bool | None:
    """True when any legal basis is an EU one, False when all known ones are national or the procedure type
    exists only below the thresholds (DÖE's OCDS states no legal basis but "Public announcement"); else None."""
    known = [code for code in codes if code in ABOVE_THRESHOLD or code in BELOW_THRESHOLD]
    if not known:
        return False if procedure_type in NATIONAL_PROCEDURE_TYPES else None
    return any(code in ABOVE_THRESHOLD for code in known)
