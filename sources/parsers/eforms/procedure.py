"""The procedure and its lots: kind, references, CPV, lots, value, place of performance, dates."""

from __future__ import annotations

import re
from datetime import datetime, time
from decimal import Decimal

from sources.addresses import split_town, town_in_text
from sources.identifiers import canonical_publication_number
from sources.memo import short_text_memo
from sources.normalise import (
    END_OF_DAY,
    MEMO_MAX_CHARS,
    MEMO_SIZE,
    combine_date_time,
    parse_decimal,
    parse_iso_datetime,
)
from sources.records import Deadline, Lot, NoticeKind
from tenders.vocabulary.cpv import unique_cpv
from tenders.vocabulary.deadlines import DeadlineKind
from tenders.vocabulary.regions import normalise_nuts

from .tree import Element, attribute, find, findall, first, localised, texts

_ROOT_KINDS = {
    "ContractNotice": NoticeKind.CONTRACT_NOTICE,
    "ContractAwardNotice": NoticeKind.AWARD,
    "PriorInformationNotice": NoticeKind.PRIOR_INFORMATION,
}
# change-corrig-justification codes meaning the changed notice no longer stands.
# "cancel-intent" (intention only) and "susp-review" (suspended) stay a CHANGE.
CANCEL_REASONS = frozenset({"cancel"})

_UUID_WITH_VERSION = re.compile(r"([0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})-\d{2}")
_ADDRESS = "cac:RealizedLocation/cac:Address"


def version(raw: str) -> str:
    """``cbc:VersionID`` as two digits ("1" -> "01"); non-numeric values kept, missing -> "01"."""
    return f"{int(raw):02d}" if raw.isascii() and raw.isdigit() else (raw or "01")


def kind(root_name: str, notice_type: str, *, has_changes: bool, reasons: list[str]) -> NoticeKind:
    """Changes first (CANCELLATION on a cancel reason), then the notice type code, then the root element."""
    if has_changes:
        return NoticeKind.CANCELLATION if CANCEL_REASONS.intersection(reasons) else NoticeKind.CHANGE
    code = notice_type.lower()
    if code == "can-modif":  # a contract modification (subtypes 38-40) changes an awarded contract; no new award
        return NoticeKind.CHANGE
    if code.startswith("pin-"):
        return NoticeKind.PRIOR_INFORMATION
    if code.startswith("can-") or code in {"veat", "compl"}:
        return NoticeKind.AWARD
    if code.startswith("cn-") or code in {"subco", "qu-sy"}:
        return NoticeKind.CONTRACT_NOTICE
    return _ROOT_KINDS.get(root_name, NoticeKind.CONTRACT_NOTICE)


def strip_version(notice_id: str) -> str:
    """``<uuid>-01`` -> ``<uuid>``; anything else (``123456-2023``, ``17750180``) is returned unchanged."""
    match = _UUID_WITH_VERSION.fullmatch(notice_id)
    return match.group(1) if match else notice_id


def referenced_ids(root: Element, ext: Element, own_id: str) -> tuple[str, ...]:
    """Changed notices first, then every ``cac:NoticeDocumentReference`` (e.g. the PIN a CN follows)."""
    raw = texts(ext, "efac:Changes/efbc:ChangedNoticeIdentifier") + texts(root, ".//cac:NoticeDocumentReference/cbc:ID")
    ids = (canonical_publication_number(i) or strip_version(i) for i in raw)
    return tuple(dict.fromkeys(i for i in ids if i != own_id))


def cpv(project: Element | None) -> list[str]:
    """Raw main + additional CPV codes of one ``cac:ProcurementProject`` (listName "cpv" or none)."""
    codes = findall(project, "cac:MainCommodityClassification/cbc:ItemClassificationCode")
    codes += findall(project, "cac:AdditionalCommodityClassification/cbc:ItemClassificationCode")
    return [code.text or "" for code in codes if (attribute(code, "listName") or "cpv").lower() == "cpv"]


def all_cpv(project: Element | None, lot_elements: list[Element]) -> tuple[str, ...]:
    return unique_cpv([*cpv(project), *(code for el in lot_elements for code in cpv(lot_project(el)))])


def lot_project(lot: Element) -> Element | None:
    return find(lot, "cac:ProcurementProject")


def is_lot(lot: Element) -> bool:
    """A real lot: ``schemeName="Lot"``, or no scheme and not a group/part id (GLO-/PAR-)."""
    id_el = find(lot, "cbc:ID")
    lot_id, scheme = first(lot, "cbc:ID"), attribute(id_el, "schemeName").lower()
    if not lot_id:
        return False
    return scheme == "lot" if scheme else not lot_id.upper().startswith(("GLO-", "PAR-"))


def lots(lot_elements: list[Element]) -> tuple[Lot, ...]:
    return tuple(_lot(el) for el in lot_elements if is_lot(el))


def _lot(lot: Element) -> Lot:
    project = lot_project(lot)
    addresses = findall(project, _ADDRESS)
    town, postal_code, _ = place(addresses, findall(project, _LOCATION))
    return Lot(
        lot_id=first(lot, "cbc:ID"),
        title=localised(project, "cbc:Name"),
        cpv_codes=unique_cpv(cpv(project)),
        estimated_value=_amount(project)[0],
        submission_deadline=_period_end(lot, _TENDER_PERIOD) or _period_end(lot, _PARTICIPATION_PERIOD),
        town=town,
        postal_code=postal_code,
        nuts_codes=nuts_codes(addresses),
    )


_TENDER_PERIOD = "cac:TenderingProcess/cac:TenderSubmissionDeadlinePeriod"
_PARTICIPATION_PERIOD = "cac:TenderingProcess/cac:ParticipationRequestReceptionPeriod"
_QUESTIONS_PERIOD = "cac:TenderingProcess/cac:AdditionalInformationRequestPeriod"
_DEADLINE_KINDS = (
    (DeadlineKind.TENDER, _TENDER_PERIOD),
    (DeadlineKind.PARTICIPATION, _PARTICIPATION_PERIOD),
    (DeadlineKind.QUESTIONS, _QUESTIONS_PERIOD),
)


def _period_end(el: Element | None, path: str) -> datetime | None:
    found = [d for d in (date_time(p, "cbc:EndDate", "cbc:EndTime", END_OF_DAY) for p in findall(el, path)) if d]
    return min(found) if found else None


def deadlines(root: Element, lot_elements: list[Element]) -> tuple[Deadline, ...]:
    """Every deadline with its kind: procedure level (lot "") first, then lot by lot; one per kind and lot."""
    found: list[Deadline] = []
    for holder, lot_id in [(root, ""), *((el, first(el, "cbc:ID")) for el in lot_elements)]:
        for kind_, path in _DEADLINE_KINDS:
            if at := _period_end(holder, path):
                found.append(Deadline(kind=kind_, at=at, lot_id=lot_id))
    return tuple(found)


def _amount(project: Element | None) -> tuple[Decimal | None, str]:
    found = find(project, "cac:RequestedTenderTotal/cbc:EstimatedOverallContractAmount")
    if found is None:
        return None, ""
    return parse_decimal(found.text), attribute(found, "currencyID").upper()


def value(project: Element | None, lot_elements: list[Element]) -> tuple[Decimal | None, str]:
    """Procedure estimate; else the sum of the lot estimates present (a lower bound) if all share one currency."""
    amount, currency = _amount(project)
    if amount is not None:
        return amount, currency
    amounts = [a for a in (_amount(lot_project(el)) for el in lot_elements if is_lot(el)) if a[0] is not None]
    currencies = {c for _, c in amounts}
    if not amounts or len(currencies) != 1:
        return None, ""
    return sum((v for v, _ in amounts), Decimal(0)), currencies.pop()


_LOCATION = "cac:RealizedLocation"


def places(project: Element | None, lot_elements: list[Element]) -> list[Element]:
    """Place-of-performance addresses, procedure level first, then lot by lot."""
    return findall(project, _ADDRESS) + [a for el in lot_elements for a in findall(lot_project(el), _ADDRESS)]


def locations(project: Element | None, lot_elements: list[Element]) -> list[Element]:
    """``cac:RealizedLocation`` elements (for their free-text descriptions), procedure level first."""
    return findall(project, _LOCATION) + [loc for el in lot_elements for loc in findall(lot_project(el), _LOCATION)]


def nuts_codes(addresses: list[Element]) -> tuple[str, ...]:
    codes = (normalise_nuts(first(a, "cbc:CountrySubentityCode")) for a in addresses)
    return tuple(dict.fromkeys(code for code in codes if code))


def place(addresses: list[Element], location_elements: list[Element] = ()) -> tuple[str, str, str]:
    """(town, PLZ, country) of the first address naming a town or postal code; country falls back to any address.

    Without such an address, a "12345 Ort" in a location's free-text description
    (``cac:RealizedLocation/cbc:Description``) gives town and postcode.
    """
    chosen = next((a for a in addresses if first(a, "cbc:CityName") or first(a, "cbc:PostalZone")), None)
    town, postal = split_town(first(chosen, "cbc:CityName"), first(chosen, "cbc:PostalZone"))
    if not town and not postal:
        for location in location_elements:
            town, postal = town_in_text(localised(location, "cbc:Description"))
            if town:
                break
    candidates = ([chosen] if chosen is not None else []) + addresses
    country = next((c for c in (first(a, "cac:Country/cbc:IdentificationCode") for a in candidates) if c), "")
    return town, postal, country.upper()


@short_text_memo(max_chars=MEMO_MAX_CHARS, maxsize=MEMO_SIZE)
def _normalise_time(raw: str) -> str:
    """Times as combine_date_time wants them: "12:00" -> "12:00:00", "12:00:00.000+02:00" -> "12:00:00+02:00"."""
    raw = re.sub(r"^(\d{2}:\d{2}:\d{2})\.\d+", r"\1", raw)
    return re.sub(r"^(\d{2}:\d{2})(?!:)", r"\1:00", raw)


def date_time(el: Element | None, date_path: str, time_path: str, default: time | None = None) -> datetime | None:
    """eForms date (``2026-10-20+02:00``) + time (``12:00:00+02:00``) -> aware datetime in the notice's offset."""
    date_raw, time_raw = first(el, date_path), _normalise_time(first(el, time_path))
    if not date_raw:
        return None
    return combine_date_time(date_raw, time_raw) if time_raw else parse_iso_datetime(date_raw, default_time=default)


def earliest(root: Element, period: str) -> datetime | None:
    """Earliest ``EndDate``/``EndTime`` of ``cac:<period>`` at procedure or lot level (date only = 23:59)."""
    periods = findall(root, f"cac:TenderingProcess/cac:{period}")
    periods += findall(root, f"cac:ProcurementProjectLot/cac:TenderingProcess/cac:{period}")
    found = [d for d in (date_time(p, "cbc:EndDate", "cbc:EndTime", END_OF_DAY) for p in periods) if d]
    return min(found) if found else None


def published_at(root: Element, ext: Element) -> datetime | None:
    """Publication date; else the requested publication date when it is later than the dispatch
    (``cbc:IssueDate``, sent days or weeks before the notice appears), else the dispatch date and time."""
    published = parse_iso_datetime(first(ext, "efac:Publication/efbc:PublicationDate") or None)
    if published:
        return published
    issued = date_time(root, "cbc:IssueDate", "cbc:IssueTime")
    requested = parse_iso_datetime(first(root, "cbc:RequestedPublicationDate") or None)
    if requested and (issued is None or requested.date() > issued.date()):
        return requested
    return issued or requested


def documents_url(root: Element) -> str:
    return first(root, ".//cac:CallForTendersDocumentReference/cac:Attachment/cac:ExternalReference/cbc:URI")
