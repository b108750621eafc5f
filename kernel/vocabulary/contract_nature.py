"""Contract nature (eForms ``contract-nature``, OCDS ``mainProcurementCategory``) with German labels."""

from __future__ import annotations

import re

CONTRACT_NATURE_LABELS: dict[str, str] = {
    "works": "Bauleistung",
    "supplies": "Lieferleistung",
    "services": "Dienstleistung",
}
_ALIASES = {
    "goods": "supplies",  # OCDS procurementCategory
    "supply": "supplies",
    "service": "services",
    "work": "works",
    "combined": "",  # eForms: several natures; the lots say which
    "bauleistung": "works",
    "bauleistungen": "works",
    "lieferleistung": "supplies",
    "lieferleistungen": "supplies",
    "lieferung": "supplies",
    "dienstleistung": "services",
    "dienstleistungen": "services",
}


def contract_nature_code(raw: str | None) -> str:
    """``works`` / ``supplies`` / ``services``, or "" when empty, combined or unknown."""
    key = (raw or "").strip().lower()
    if key in CONTRACT_NATURE_LABELS:
        return key
    return _ALIASES.get(key, "")


def contract_nature_label(code: str) -> str:
    return CONTRACT_NATURE_LABELS.get(code, "")


# Words by which a text states a nature ("Bauleistung", "Lieferung", "Dienstleistungen", "works", …), as
# opposed to a trade or a work written under the same label ("Malerarbeiten", "Architekt_Objektplanung").
_NATURE_WORDING = re.compile(r"leistung|lieferung|\b(?:works?|suppl(?:y|ies)|services?|goods)\b", re.IGNORECASE)


def states_a_nature(raw: str | None) -> bool:
    """Whether ``raw`` is worded as a contract nature; a trade named under "Art der Leistung" is not."""
    return bool(_NATURE_WORDING.search(raw or ""))
