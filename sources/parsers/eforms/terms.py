"""Terms of the procedure: legal basis, EU threshold, contract nature, main CPV, duration, framework agreement."""

from __future__ import annotations

from datetime import date

from kernel.normalise import parse_iso_datetime
from kernel.vocabulary.contract_nature import contract_nature_code
from kernel.vocabulary.cpv import normalise_cpv
from kernel.vocabulary.legal_basis import ABOVE_THRESHOLD, BELOW_THRESHOLD, legal_basis_code

from .tree import Element, attribute, find, findall, first, first_text, texts

_DURATION_UNITS = {"DAY": "D", "WEEK": "W", "MONTH": "M", "YEAR": "Y"}
_NATURE = "cbc:ProcurementTypeCode[@listName='contract-nature']"


def legal_basis(root: Element) -> tuple[str, bool | None]:
    """(legal basis code, above the EU threshold?).

    The national legal basis of eForms-DE (``cac:TenderingTerms/cac:ProcurementLegislationDocumentReference/cbc:ID``:
    ``vgv``, ``uvgo`` …) decides; else the EU directive in ``cbc:RegulatoryDomain`` (above the thresholds).
    """
    national = [
        legal_basis_code(raw)
        for raw in texts(root, "cac:TenderingTerms/cac:ProcurementLegislationDocumentReference/cbc:ID")
    ]
    known = next((code for code in national if code in ABOVE_THRESHOLD or code in BELOW_THRESHOLD), "")
    domain = first(root, "cbc:RegulatoryDomain")
    directive = legal_basis_code(domain)
    code = known or (directive if directive in ABOVE_THRESHOLD else "") or next(iter(national), "") or directive
    if code in ABOVE_THRESHOLD:
        return code, True
    if code in BELOW_THRESHOLD or domain.lower() == "other":  # "other": no EU directive, national law only
        return code, False
    return code, None


def contract_nature(project: Element | None, lot_projects: list[Element | None]) -> str:
    """The procedure's nature; else the lots' when they agree."""
    code = contract_nature_code(first(project, _NATURE))
    if code:
        return code
    natures = {contract_nature_code(first(p, _NATURE)) for p in lot_projects} - {""}
    return natures.pop() if len(natures) == 1 else ""


def main_cpv(project: Element | None, lot_projects: list[Element | None]) -> str:
    for holder in (project, *lot_projects):
        for code in findall(holder, "cac:MainCommodityClassification/cbc:ItemClassificationCode"):
            if (attribute(code, "listName") or "cpv").lower() == "cpv" and (cpv := normalise_cpv(code.text)):
                return cpv
    return ""


def _date(raw: str) -> date | None:
    value = parse_iso_datetime(raw or None)
    return value.date() if value else None


def contract_period(
    project: Element | None, lot_projects: list[Element | None]
) -> tuple[date | None, date | None, str]:
    """(start, end, ISO 8601 duration) of ``cac:PlannedPeriod``: procedure level, else the first lot stating one."""
    for holder in (project, *lot_projects):
        period = find(holder, "cac:PlannedPeriod")
        if period is None:
            continue
        measure = find(period, "cbc:DurationMeasure")
        amount = (measure.text or "").strip() if measure is not None else ""
        unit = _DURATION_UNITS.get(attribute(measure, "unitCode").upper(), "")
        duration = f"P{amount}{unit}" if amount.isdigit() and unit else ""
        start, end = _date(first(period, "cbc:StartDate")), _date(first(period, "cbc:EndDate"))
        if start or end or duration:
            return start, end, duration
    return None, None, ""


def framework_agreement(lot_elements: list[Element]) -> bool | None:
    """True if any lot is a framework agreement (``fa-*``), False if lots say ``none``, None if none says."""
    codes = [
        first_text(found).lower()
        for lot in lot_elements
        for system in findall(lot, "cac:TenderingProcess/cac:ContractingSystem")
        if (found := findall(system, "cbc:ContractingSystemTypeCode"))
        and attribute(found[0], "listName") == "framework-agreement"
    ]
    if not codes:
        return None
    return any(code.startswith("fa-") for code in codes)
