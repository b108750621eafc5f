"""Contract nature (eForms ``contract-nature``, OCDS ``mainProcurementCategory``) with German labels."""

from __future__ import annotations

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
