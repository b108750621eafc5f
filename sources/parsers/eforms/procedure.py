"""The procedure and its lots: kind, references, CPV, lots, value, place of performance, dates."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time
from decimal import Decimal

from kernel.addresses import country_is_germany, split_town, town_in_text
from kernel.identifiers import canonical_publication_number
from kernel.memo import short_text_memo
from kernel.normalise import (
    END_OF_DAY,
    MEMO_MAX_CHARS,
    MEMO_SIZE,
    combine_date_time,
    parse_decimal,
    parse_iso_datetime,
)
from kernel.records import Deadline, Lot, NoticeKind
from kernel.vocabulary.cpv import unique_cpv
from kernel.vocabulary.deadlines import DeadlineKind
from kernel.vocabulary.regions import normalise_nuts

from .tree import Element, attribute, find, findall, first, localised, text, texts

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


def lot_project(lot: Element) -> Element | None:
    return find(lot, "cac:ProcurementProject")


@dataclass(frozen=True, slots=True)
class Address:
    """The texts of one place-of-performance ``cac:Address`` that town, postcode, country and NUTS come from."""

    city: str
    zone: str
    country: str
    nuts: str  # as written; ``nuts_codes`` normalises


def address(el: Element) -> Address:
    return Address(
        city=first(el, "cbc:CityName"),
        zone=first(el, "cbc:PostalZone"),
        country=first(el, "cac:Country/cbc:IdentificationCode"),
        nuts=first(el, "cbc:CountrySubentityCode"),
    )


@dataclass(frozen=True, slots=True)
class LotView:
    """One ``cac:ProcurementProjectLot`` with what several fields read from it, looked up once.

    Lots, value, deadlines, CPV codes and the place of performance all read the same parts of
    every lot; a notice with many lots paid for each lookup four or five times.
    """

    element: Element
    project: Element | None
    lot_id: str
    is_lot: bool  # a real lot: see ``is_lot``
    addresses: tuple[Address, ...]
    locations: tuple[Element, ...]
    cpv: tuple[str, ...]  # raw, as ``cpv`` returns them
    amount: tuple[Decimal | None, str]
    ends: tuple[datetime | None, datetime | None, datetime | None]  # tender, participation, questions


def lot_views(lot_elements: list[Element]) -> list[LotView]:
    views = []
    for lot in lot_elements:
        project = lot_project(lot)
        id_el = find(lot, "cbc:ID")
        # The first cbc:ID is the lot id whenever it has a text: the lot is not searched again for it.
        lot_id = text(id_el) or first(lot, "cbc:ID")
        views.append(
            LotView(
                element=lot,
                project=project,
                lot_id=lot_id,
                is_lot=is_lot(lot_id, attribute(id_el, "schemeName")),
                addresses=tuple(map(address, findall(project, _ADDRESS))),
                locations=tuple(findall(project, _LOCATION)),
                cpv=tuple(cpv(project)),
                amount=_amount(project),
                ends=tuple(_period_end(lot, path) for _, path in _DEADLINE_KINDS),
            )
        )
    return views


def all_cpv(project: Element | None, lots: list[LotView]) -> tuple[str, ...]:
    return unique_cpv([*cpv(project), *(code for lot in lots for code in lot.cpv)])


def is_lot(lot_id: str, scheme: str) -> bool:
    """A real lot: ``schemeName="Lot"``, or no scheme and not a group/part id (GLO-/PAR-).

    ``lot_id``: the lot's first non-empty ``cbc:ID``; ``scheme``: the first ``cbc:ID``'s ``schemeName``.
    """
    scheme = scheme.lower()
    if not lot_id:
        return False
    return scheme == "lot" if scheme else not lot_id.upper().startswith(("GLO-", "PAR-"))


def lots(views: list[LotView]) -> tuple[Lot, ...]:
    return tuple(_lot(view) for view in views if view.is_lot)


def _lot(view: LotView) -> Lot:
    town, postal_code, _ = place(view.addresses, view.locations)
    tender_end, participation_end, _ = view.ends
    return Lot(
        lot_id=view.lot_id,
        title=localised(view.project, "cbc:Name"),
        cpv_codes=unique_cpv(view.cpv),
        estimated_value=view.amount[0],
        submission_deadline=tender_end or participation_end,
        town=town,
        postal_code=postal_code,
        nuts_codes=nuts_codes(view.addresses),
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


def deadlines(root: Element, lots: list[LotView]) -> tuple[Deadline, ...]:
    """Every deadline with its kind: procedure level (lot "") first, then lot by lot; one per kind and lot."""
    found: list[Deadline] = []
    for kind_, path in _DEADLINE_KINDS:
        if at := _period_end(root, path):
            found.append(Deadline(kind=kind_, at=at, lot_id=""))
    for lot in lots:
        for (kind_, _), at in zip(_DEADLINE_KINDS, lot.ends, strict=True):
            if at:
                found.append(Deadline(kind=kind_, at=at, lot_id=lot.lot_id))
    return tuple(found)


def _amount(project: Element | None) -> tuple[Decimal | None, str]:
    found = find(project, "cac:RequestedTenderTotal/cbc:EstimatedOverallContractAmount")
    if found is None:  # DÖE's legacy notices (sdk 0.1) state the estimate as UBL's plain total (WIGES, ee0ac39a-…)
        found = find(project, "cac:RequestedTenderTotal/cbc:TotalAmount")
    if found is None:
        return None, ""
    return parse_decimal(found.text), attribute(found, "currencyID").upper()


def value(project: Element | None, lots: list[LotView]) -> tuple[Decimal | None, str]:
    """Procedure estimate; else the sum of the lot estimates present (a lower bound) if all share one currency."""
    amount, currency = _amount(project)
    if amount is not None:
        return amount, currency
    amounts = [lot.amount for lot in lots if lot.is_lot and lot.amount[0] is not None]
    currencies = {c for _, c in amounts}
    if not amounts or len(currencies) != 1:
        return None, ""
    return sum((v for v, _ in amounts), Decimal(0)), currencies.pop()


_LOCATION = "cac:RealizedLocation"


def places(project: Element | None, lots: list[LotView]) -> list[Address]:
    """Place-of-performance addresses, procedure level first, then lot by lot."""
    return [*map(address, findall(project, _ADDRESS)), *(a for lot in lots for a in lot.addresses)]


def locations(project: Element | None, lots: list[LotView]) -> list[Element]:
    """``cac:RealizedLocation`` elements (for their free-text descriptions), procedure level first."""
    return [*findall(project, _LOCATION), *(loc for lot in lots for loc in lot.locations)]


def nuts_codes(addresses: Sequence[Address]) -> tuple[str, ...]:
    codes = (normalise_nuts(a.nuts) for a in addresses)
    return tuple(dict.fromkeys(code for code in codes if code))


def place(addresses: Sequence[Address], location_elements: Sequence[Element] = ()) -> tuple[str, str, str]:
    """(town, PLZ, country) of the first address naming a town or postal code; country falls back to any address.

    Without such an address, a "12345 Ort" in a location's free-text description
    (``cac:RealizedLocation/cbc:Description``) gives town and postcode.
    """
    chosen = next((a for a in addresses if a.city or a.zone), None)
    town, postal = split_town(chosen.city, chosen.zone) if chosen is not None else split_town("", "")
    if not town and not postal:
        for location in location_elements:
            town, postal = town_in_text(localised(location, "cbc:Description"))
            if town:
                break
    candidates = ([chosen] if chosen is not None else []) + list(addresses)
    country = next((a.country for a in candidates if a.country), "").upper()
    # A French "87500" is no PLZ: kept, it matched PLZ and radius searches in Germany.
    return town, postal if country_is_germany(country) else "", country


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
