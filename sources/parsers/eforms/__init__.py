"""eForms notice XML (EU eForms SDK, eForms-DE, legacy DÖE exports) -> ``NoticeRecord``.

Why: DÖE (oeffentlichevergabe.de) and TED both publish the legally binding notice
as eForms UBL XML. It is the only form that carries the submission deadline with
time of day, the place of performance and the links to the procurement portal, so
every adapter that gets hold of the XML hands the bytes to :func:`parse_eforms`.

How: elements are addressed by namespace URI and local name through the fixed
prefix map ``NS``; the document's own prefixes are irrelevant (legacy DÖE
exports say ``ns8:ContractNotice``/``ns3:ID``, modern ones ``cbc:``/``cac:``).
The parser is hardened: no entity substitution, no network, no huge trees, and a
DOCTYPE is refused outright (eForms never has one), so entity expansion
("billion laughs") and external entities never happen. Modules: ``tree``
(parsing, lookups), ``procedure`` (procedure/lot fields), ``parties`` (buyer),
``results`` (award results), ``terms`` (legal basis, nature, duration, framework),
``links`` (portal ids in URLs).

Rules the merge logic relies on:

* ``kind``: a notice with ``efac:Changes`` (DÖE legacy: ``efac:Change``) is a CHANGE, or a CANCELLATION when a
  change reason (``efac:ChangeReason/cbc:ReasonCode``) is ``cancel`` ("notice
  cancelled": the SDK's change-cn_24_void voids its contract notice this way);
  ``cancel-intent``/``susp-review`` stay CHANGE (intent/suspension, not final).
  Otherwise ``cbc:NoticeTypeCode`` decides (``pin-*`` prior information,
  ``can-*``/``veat``/``compl`` award, ``cn-*``/``subco``/``qu-sy`` contract
  notice), then the root element (national E3/E4 subtypes follow their root).
* ``status``: CANCELLATION -> CANCELLED; with results: AWARDED if any lot has a winner,
  CANCELLED if all lot results are ``clos-nw``, else ACTIVE. ``can-modif`` (contract
  modification) is a CHANGE, not an award. Results and winners: see ``results``.
* ids: the TED XML Data Converter's stand-in notice and procedure ids (``kernel.placeholders``, taken from the
  eForms SDK's examples) are no ids; such a notice is known by its publication number and has no procedure id.
* ``referenced_notice_ids``: ``efbc:ChangedNoticeIdentifier`` then every
  ``cac:NoticeDocumentReference/cbc:ID``. A ``-NN`` suffix is stripped only after
  a UUID (``<uuid>-01`` is unambiguously notice id + version); other ids (TED
  ``123456-2023``, numeric DÖE ids) are kept verbatim.
* place of performance comes only from ``cac:RealizedLocation`` (procedure, then
  lots; a "12345 Ort" in its description when no address names a town); the buyer's
  address never fills town/postal code/NUTS. ``bundesland``: the place's postcode, else
  its NUTS, else (place unstated) the buyer's seat; a place abroad has none.
* ``submission_deadline``: earliest ``TenderSubmissionDeadlinePeriod``; if there
  is none (restricted/negotiated procedures), the earliest
  ``ParticipationRequestReceptionPeriod``. A date without a time means 23:59.
* ``published_at``: ``efac:Publication/efbc:PublicationDate``, else
  ``cbc:RequestedPublicationDate`` when later than the dispatch date, else
  ``cbc:IssueDate`` + ``cbc:IssueTime`` (the dispatch can precede publication by weeks).
* ``deadlines``: every Angebots-, Teilnahme- and Fragenfrist with its kind and lot.
* ``estimated_value``: the procedure estimate, else the sum of the lot estimates
  present (a lower bound when some lots have none) if they share one currency.

Limits: reads only what ``NoticeRecord`` needs; no schema/schematron validation.
Text prefers German (``languageID="DEU"``), else the first language present.
Postal codes are kept only as German 5-digit PLZ of a place in Germany (or of no
stated country). Only the first buyer of a joint procurement is kept. ``lots`` lists
``schemeName="Lot"`` only (no lot groups, no PIN parts), but the CPV codes of parts do
count in ``cpv_codes``. The title falls back to the first lot's only when the procedure
has none.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from kernel.addresses import bundesland_for_place
from kernel.identifiers import canonical_publication_number
from kernel.placeholders import placeholder_identifier
from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.deadlines import DeadlineKind
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.statuses import TenderStatus

from . import parties, procedure, results, terms
from .links import document_urls, portal_references_from_urls
from .tree import NS, EformsParseError, Element, extension, find, findall, first, localised, parse_root

__all__ = ["NS", "EformsParseError", "parse_eforms", "portal_references_from_urls"]


def parse_eforms(data: bytes, *, source: str, url: str = "") -> NoticeRecord:
    """Parse one eForms notice. Missing optional data stays empty.

    Raises :class:`EformsParseError` only when the notice is unusable: not XML (or
    with a DOCTYPE), not an eForms root element, or no notice id (``cbc:ID``).
    Raises ``TypeError`` for ``str`` input: pass the bytes as received.
    """
    root = parse_root(data)
    ext = extension(root)
    publication_number = canonical_publication_number(first(ext, "efac:Publication/efbc:NoticePublicationID"))
    notice_id = _notice_id(first(root, "cbc:ID"), publication_number)
    orgs = parties.organisations(ext)
    root_name = etree.QName(root).localname
    notice_type = first(root, "cbc:NoticeTypeCode")
    # DÖE's legacy notices (sdk 0.1) write each change as an ``efac:Change`` of its own, reason in ``efbc``.
    changes = findall(ext, "efac:Changes") + findall(ext, "efac:Change")
    reasons = [
        (first(r, "cbc:ReasonCode") or first(r, "efbc:ReasonCode")).lower()
        for change in changes
        for r in findall(change, "efac:ChangeReason")
    ]
    has_changes = bool(changes)
    kind = procedure.kind(root_name, notice_type, has_changes=has_changes, reasons=reasons)
    project = find(root, "cac:ProcurementProject")
    lot_elements = findall(root, "cac:ProcurementProjectLot")
    lots = procedure.lot_views(lot_elements)
    result_status, awards, suppliers = results.results(ext, root, orgs, [(lot.element, lot.lot_id) for lot in lots])
    lot_projects = [lot.project for lot in lots]
    first_lot = lot_projects[0] if lot_projects else None
    addresses = procedure.places(project, lots)
    nuts = procedure.nuts_codes(addresses)
    town, postal_code, country = procedure.place(addresses, procedure.locations(project, lots))
    buyer = parties.buyer(root, orgs)
    value, currency = procedure.value(project, lots)
    deadlines = procedure.deadlines(root, lots)
    legal_basis, above_threshold = terms.legal_basis(root)
    contract_start, contract_end, duration = terms.contract_period(project, lot_projects)
    return NoticeRecord(
        source=source,
        origin=Origin.OFFICIAL,
        source_notice_id=notice_id,
        version=procedure.version(first(root, "cbc:VersionID")),
        kind=kind,
        procedure_id=_procedure_id(first(root, "cbc:ContractFolderID")),
        referenced_notice_ids=procedure.referenced_ids(root, ext, notice_id),
        portal_references=portal_references_from_urls([*document_urls(root), url]),
        title=localised(project, "cbc:Name") or localised(first_lot, "cbc:Name"),
        description=localised(project, "cbc:Description") or localised(first_lot, "cbc:Description"),
        buyer_name=buyer.name,
        buyer_id=_buyer_id(buyer.legal_id, project),
        procedure_type=procedure_type_code(first(root, "cac:TenderingProcess/cbc:ProcedureCode")),
        status=TenderStatus.CANCELLED if kind is NoticeKind.CANCELLATION else result_status or TenderStatus.ACTIVE,
        cpv_codes=procedure.all_cpv(project, lots),
        nuts_codes=nuts,
        bundesland=bundesland_for_place(
            nuts_codes=nuts,
            postal_code=postal_code,
            country=country,
            buyer_nuts=buyer.nuts,
            buyer_postal_code=buyer.postal_code,
            buyer_country=buyer.country,
        ),
        postal_code=postal_code,
        town=town,
        country=country,
        estimated_value=value,
        currency=currency,
        published_at=procedure.published_at(root, ext),
        submission_deadline=_earliest(deadlines, DeadlineKind.TENDER)
        or _earliest(deadlines, DeadlineKind.PARTICIPATION),
        questions_deadline=_earliest(deadlines, DeadlineKind.QUESTIONS),
        lots=procedure.lots(lots),
        documents_url=procedure.documents_url(root),
        url=url,
        suppliers=suppliers,
        awards=awards,
        buyer_street=buyer.street,
        buyer_postal_code=buyer.postal_code,
        buyer_town=buyer.town,
        buyer_country=buyer.country,
        buyer_email=buyer.email,
        buyer_phone=buyer.phone,
        legal_basis=legal_basis,
        above_eu_threshold=above_threshold,
        contract_nature=terms.contract_nature(project, lot_projects),
        main_cpv=terms.main_cpv(project, lot_projects),
        deadlines=deadlines,
        publication_number=publication_number,
        contract_start=contract_start,
        contract_end=contract_end,
        contract_duration=duration,
        framework_agreement=terms.framework_agreement(lot_elements),
        payload=_payload(root, ext, root_name, notice_type, reasons),
    )


def _notice_id(raw: str, publication_number: str) -> str:
    """The notice id; a converted notice with the converter's stand-in id is known by its publication number
    (without one, e.g. the SDK's own pin-only example, the stand-in stays: there is nothing better)."""
    if not raw:
        raise EformsParseError("eForms notice has no cbc:ID (notice identifier)")
    return publication_number if placeholder_identifier(raw) and publication_number else raw


def _procedure_id(raw: str) -> str | None:
    return None if not raw or placeholder_identifier(raw) else raw


def _earliest(deadlines, kind: DeadlineKind):
    return min((d.at for d in deadlines if d.kind == kind), default=None)


def _payload(root: Element, ext: Element, root_name: str, notice_type: str, reasons: list[str]) -> dict[str, Any]:
    """A few identifying facts for debugging and re-processing; never the XML itself."""
    payload: dict[str, Any] = {
        "format": "eforms",
        "root": root_name,
        "customization": first(root, "cbc:CustomizationID"),
        "profile": first(root, "cbc:ProfileID"),
        "notice_type": notice_type,
        "subtype": first(ext, "efac:NoticeSubType/cbc:SubTypeCode"),
        "language": first(root, "cbc:NoticeLanguageCode"),
    }
    if any(reasons):
        payload["change_reasons"] = [reason for reason in reasons if reason]
    return payload


def _buyer_id(legal_id: str, project: Element | None) -> str:
    """The buyer's CompanyID, unless it is the procedure's internal reference (BT-22): some DÖE notices copy
    "MPE 09/2026" into every organisation's CompanyID, review body included; that names no buyer."""
    reference = first(project, "cbc:ID")
    return "" if reference and legal_id.strip().casefold() == reference.strip().casefold() else legal_id
