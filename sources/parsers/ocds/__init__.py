"""OCDS release packages from DÖE (oeffentlichevergabe.de) -> ``NoticeRecord``.

Why a dedicated parser: DÖE's OCDS export is generated from eForms and has quirks
that a generic OCDS reader gets wrong:

* ``buyer.id`` / ``buyer.identifier.id`` are swapped (``buyer.id`` carries the
  organisation identifier, ``buyer.identifier.id`` the internal party id such as
  "ORG-0001" - sometimes even the id of the *supplier* party), and the
  organisation identifier is often a phone number ("t: +49 46 32 84 91 0").
  See :func:`resolve_buyer_id`.
* Suppliers may be listed only in ``parties`` (role "supplier").
* ``tender.tenderPeriod`` is omitted: the submission deadline only exists in the
  eForms XML of the same notice, so ``submission_deadline`` is usually None here.
* ``noticeVersion`` in the package ``uri`` is "01" or "1"; it is zero-padded.
* ``ocid`` = "ocds-mnwr74-" + ``tender.id``, and ``tender.id`` is the eForms
  ContractFolderID (procedure UUID) -> ``procedure_id``.

Limits: one record per release; value = ``tender.value`` or the sum of lot
values in one currency (award values are not estimates and are ignored); town and
postal code come from delivery addresses only (the buyer's address would place
the tender at the buyer's seat), the buyer's NUTS region is used for the
Bundesland only when no delivery NUTS code exists. ``url`` is the DÖE UI detail
page pattern ``/ui/de/search/details?noticeId=`` (not verified against the live
site). Hostile input (wrong JSON types anywhere) yields empty fields, never
KeyError/TypeError.
"""

from __future__ import annotations

import json
import re
from datetime import date
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson

from kernel.addresses import bundesland_for_place
from kernel.links import portal_references_from_urls, urls_in_json
from kernel.normalise import clean_text, parse_iso_datetime
from kernel.records import Deadline, Lot, NoticeKind, NoticeRecord
from kernel.vocabulary.contract_nature import contract_nature_code
from kernel.vocabulary.cpv import unique_cpv
from kernel.vocabulary.deadlines import DeadlineKind
from kernel.vocabulary.legal_basis import above_eu_threshold, legal_basis_code
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.statuses import TenderStatus

from . import places
from .awards import awards, supplier_names
from .buyer import buyer_details, buyer_party, resolve_buyer_id
from .values import amount, as_dict, as_dicts, as_str, as_strs

__all__ = ["OcdsParseError", "parse_ocds_package", "resolve_buyer_id"]

DOE_NOTICE_URL = "https://oeffentlichevergabe.de/ui/de/search/details?noticeId={}"


class OcdsParseError(ValueError):
    """The bytes are no OCDS release package, record package or release."""


def parse_ocds_package(data: bytes, *, source: str = "doe") -> list[NoticeRecord]:
    """Parse a release package, a record package (``compiledRelease``) or one bare release."""
    document = _load_json(data)
    package = as_dict(document)
    releases = _releases(document)
    version = _notice_version(as_str(package.get("uri")))
    fallback_date = as_str(package.get("publishedDate"))
    portal_links = _may_link_portals(data)
    return [
        _release_record(r, source=source, version=version, fallback_date=fallback_date, portal_links=portal_links)
        for r in releases
    ]


def _may_link_portals(data: bytes | bytearray | str) -> bool:
    """False when no string of the document can hold a portal id, so its links need not be collected.

    A link names a portal only with "CX", "TenderOID"/"TOID" (any case) or a percent escape in it
    (``kernel.links``); none of them needs a JSON escape, so without a ``\\u`` escape the raw
    UTF-8 text holds them wherever a decoded string does. UTF-16 or UTF-32 (NUL bytes) is read in full.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    return b"CX" in raw or b"%" in raw or b"\\u" in raw or b"\x00" in raw or b"toid" in raw.lower()


_DIGITS_AS_ZERO = bytes(ord("0") if chr(i).isdigit() and i < 128 else ord(" ") for i in range(256))
_LONG_NUMBER = b"0" * 19  # 19 digits may pass the 64-bit range


def _load_json(data: bytes) -> Any:
    if not isinstance(data, (bytes, bytearray, str)):
        raise OcdsParseError(f"expected bytes, got {type(data).__name__}")
    data = (data.encode("utf-8") if isinstance(data, str) else bytes(data)).removeprefix(b"\xef\xbb\xbf")
    # orjson reads a package in half the time, but turns integers beyond 64 bits into floats and
    # refuses what json accepts (UTF-16, NaN, lone surrogates): those go to the standard parser,
    # so every document yields exactly what json.loads makes of it.
    if _LONG_NUMBER not in data.translate(_DIGITS_AS_ZERO):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise OcdsParseError(f"not valid JSON: {exc}") from None


def _releases(document: Any) -> list[dict]:
    if not isinstance(document, dict):
        raise OcdsParseError(f"expected a JSON object, got {type(document).__name__}")
    if "releases" in document:
        raw = document["releases"]
        if not isinstance(raw, list):
            raise OcdsParseError(f"'releases' must be a list, got {type(raw).__name__}")
    elif "records" in document:
        raw = [record.get("compiledRelease") for record in as_dicts(document["records"])]
    elif "ocid" in document and ("tag" in document or "tender" in document):
        raw = [document]
    else:
        raise OcdsParseError("no 'releases', 'records' or release object found")
    releases = [release for release in raw if isinstance(release, dict)]
    if not releases:
        raise OcdsParseError("package contains no release objects")
    for release in releases:
        if not as_str(release.get("id")):
            raise OcdsParseError(f"release without 'id' (ocid {as_str(release.get('ocid')) or '?'})")
    return releases


def _notice_version(uri: str) -> str:
    """``...?format=ocds&noticeVersion=1`` -> "01" (zero-padded so versions sort as strings)."""
    if uri.isascii() and uri.isprintable() and not any(ch in uri for ch in "%+[];"):
        # What urlsplit and parse_qs make of a plain URI (nothing to unquote, no IPv6 host), without their cost.
        query = uri.partition("#")[0].partition("?")[2]
        pairs = (part.split("=", 1) for part in query.split("&") if "=" in part)
        values = [value for key, value in pairs if key == "noticeVersion" and value]
    else:
        try:
            values = parse_qs(urlsplit(uri).query).get("noticeVersion") or []
        except ValueError:
            values = []
    version = values[0].strip() if values else ""
    return version.zfill(2) if version.isdigit() else version or "01"


def _release_record(
    release: dict, *, source: str, version: str, fallback_date: str, portal_links: bool = True
) -> NoticeRecord:
    tender = as_dict(release.get("tender"))
    tags = as_strs(release.get("tag"))
    kind = _kind(tags, release)
    release_id = as_str(release.get("id"))
    addresses, locations = places.delivery_places(tender)
    nuts = places.nuts(addresses, locations)
    party = buyer_party(release)
    buyer = buyer_details(release, places.country, party=party)
    value, currency = _value(tender)
    postal_code, town = places.postal_code_and_town(addresses, locations)
    date = as_str(release.get("date")) or fallback_date
    deadlines = _deadlines(tender)
    place_country = places.country(addresses)
    legal_basis = legal_basis_code(as_str(as_dict(tender.get("legalBasis")).get("id")))
    procedure_type = procedure_type_code(
        as_str(tender.get("procurementMethodDetails")) or as_str(tender.get("procurementMethod"))
    )
    contract_start, contract_end, duration = _contract_period(tender)
    cpv_codes = unique_cpv(_cpv_ids(tender))
    return NoticeRecord(
        source=source,
        origin=Origin.OFFICIAL,
        source_notice_id=release_id,
        version=version,
        kind=kind,
        ocid=as_str(release.get("ocid")) or None,
        procedure_id=as_str(tender.get("id")) or None,
        referenced_notice_ids=_referenced_notice_ids(release),
        portal_references=portal_references_from_urls(urls_in_json(release)) if portal_links else (),
        title=clean_text(as_str(tender.get("title"))),
        description=clean_text(as_str(tender.get("description"))),
        buyer_name=buyer.name,
        buyer_id=resolve_buyer_id(release, party=party),
        procedure_type=procedure_type,
        status=_status(release, tender, kind),
        cpv_codes=cpv_codes,
        nuts_codes=nuts,
        bundesland=bundesland_for_place(
            nuts_codes=nuts,
            postal_code=postal_code,
            country=place_country,
            buyer_nuts=buyer.region,
            buyer_postal_code=buyer.postal_code,
            buyer_country=buyer.country,
        ),
        postal_code=postal_code,
        town=town,
        country=place_country or buyer.country,
        estimated_value=value,
        currency=currency,
        published_at=parse_iso_datetime(date),
        submission_deadline=next((d.at for d in deadlines if d.kind == DeadlineKind.TENDER), None),
        questions_deadline=next((d.at for d in deadlines if d.kind == DeadlineKind.QUESTIONS), None),
        lots=_lots(tender),
        documents_url=_documents_url(tender),
        url=DOE_NOTICE_URL.format(release_id) if source == "doe" else "",
        suppliers=supplier_names(release),
        awards=awards(release),
        buyer_street=buyer.street,
        buyer_postal_code=buyer.postal_code,
        buyer_town=buyer.town,
        buyer_country=buyer.country,
        buyer_email=buyer.email,
        buyer_phone=buyer.phone,
        legal_basis=legal_basis,
        above_eu_threshold=above_eu_threshold([legal_basis], procedure_type=procedure_type),
        contract_nature=contract_nature_code(as_str(tender.get("mainProcurementCategory"))),
        main_cpv=next(iter(cpv_codes), "") if _has_main_classification(tender) else "",
        deadlines=deadlines,
        contract_start=contract_start,
        contract_end=contract_end,
        contract_duration=duration,
        framework_agreement=_framework_agreement(tender),
        payload={"format": "ocds", "tag": tags, "release_id": release_id, "date": date},
    )


def _deadlines(tender: dict) -> tuple[Deadline, ...]:
    found = []
    for kind, key in ((DeadlineKind.TENDER, "tenderPeriod"), (DeadlineKind.QUESTIONS, "enquiryPeriod")):
        if at := parse_iso_datetime(as_str(as_dict(tender.get(key)).get("endDate"))):
            found.append(Deadline(kind=kind, at=at))
    return tuple(found)


def _has_main_classification(tender: dict) -> bool:
    """The tender's (or else the first item's) ``classification`` is the main CPV; additional ones are not."""
    return bool(_cpv_of([as_dict(tender.get("classification"))])) or any(
        _cpv_of([as_dict(item.get("classification"))]) for item in as_dicts(tender.get("items"))[:1]
    )


def _contract_period(tender: dict) -> tuple[date | None, date | None, str]:
    """(start, end, ISO 8601 duration) of ``tender.contractPeriod``, else of the first lot stating one."""
    for period in [as_dict(tender.get("contractPeriod"))] + [
        as_dict(lot.get("contractPeriod")) for lot in as_dicts(tender.get("lots"))
    ]:
        start, end = (
            parse_iso_datetime(as_str(period.get("startDate"))),
            parse_iso_datetime(as_str(period.get("endDate"))),
        )
        days = period.get("durationInDays")
        duration = f"P{days}D" if isinstance(days, int) and not isinstance(days, bool) and days > 0 else ""
        if start or end or duration:
            return (start.date() if start else None), (end.date() if end else None), duration
    return None, None, ""


def _framework_agreement(tender: dict) -> bool | None:
    value = as_dict(tender.get("techniques")).get("hasFrameworkAgreement")
    return value if isinstance(value, bool) else None


def _kind(tags: list[str], release: dict) -> NoticeKind:
    """The most consequential tag wins: cancellation > award/contract > change > tender > planning.

    A release without tags (some publishers leave them out) is an award when it has awards or contracts.
    """
    if not tags and (as_dicts(release.get("awards")) or as_dicts(release.get("contracts"))):
        return NoticeKind.AWARD
    if "tenderCancellation" in tags:
        return NoticeKind.CANCELLATION
    if any(tag.startswith(("award", "contract", "implementation")) for tag in tags):
        return NoticeKind.AWARD
    if "tenderAmendment" in tags or "tenderUpdate" in tags:
        return NoticeKind.CHANGE
    if "tender" not in tags and any(tag.startswith("planning") for tag in tags):
        return NoticeKind.PRIOR_INFORMATION
    return NoticeKind.CONTRACT_NOTICE


_TENDER_STATUS = {
    "active": TenderStatus.ACTIVE,
    "planned": TenderStatus.ACTIVE,
    "planning": TenderStatus.ACTIVE,
    "cancelled": TenderStatus.CANCELLED,
    "unsuccessful": TenderStatus.CANCELLED,
    "withdrawn": TenderStatus.CANCELLED,
    "complete": TenderStatus.AWARDED,
}


def _status(release: dict, tender: dict, kind: NoticeKind) -> TenderStatus:
    """Awards decide over ``tender.status``: all awards "unsuccessful" is an Aufhebung (CANCELLED)."""
    if kind is NoticeKind.CANCELLATION:
        return TenderStatus.CANCELLED
    award_states = [as_str(a.get("status")).lower() for a in as_dicts(release.get("awards"))]
    if any(state in ("active", "pending") for state in award_states):
        return TenderStatus.AWARDED
    if award_states and all(state == "unsuccessful" for state in award_states):
        return TenderStatus.CANCELLED
    default = TenderStatus.AWARDED if kind is NoticeKind.AWARD else TenderStatus.ACTIVE
    return _TENDER_STATUS.get(as_str(tender.get("status")).lower(), default)


def _cpv_of(classifications: list[dict]) -> list[str]:
    return [as_str(c.get("id")) for c in classifications if as_str(c.get("scheme")).upper() == "CPV"]


def _item_cpv(item: dict) -> list[str]:
    return _cpv_of([as_dict(item.get("classification")), *as_dicts(item.get("additionalClassifications"))])


def _cpv_ids(tender: dict) -> list[str]:
    codes = _cpv_of([as_dict(tender.get("classification")), *as_dicts(tender.get("additionalClassifications"))])
    for item in as_dicts(tender.get("items")):
        codes += _item_cpv(item)
    return codes


def _lots(tender: dict) -> tuple[Lot, ...]:
    items_by_lot: dict[str, list[dict]] = {}
    for item in as_dicts(tender.get("items")):
        items_by_lot.setdefault(as_str(item.get("relatedLot")), []).append(item)
    lots = []
    for lot in as_dicts(tender.get("lots")):
        lot_id = as_str(lot.get("id"))
        if lot_id:
            items = items_by_lot.get(lot_id, [])
            # A lot's place is its items' delivery address (DÖE: one item per lot, "relatedLot"), as eForms gives
            # each lot its own place: LKN.SH's lot 3 is delivered to Meldorf, its lots 1 and 2 to Husum.
            addresses, locations = places.delivery_places({"items": items, "lots": [lot]})
            postal_code, town = places.postal_code_and_town(addresses, locations)
            lots.append(
                Lot(
                    lot_id=lot_id,
                    title=clean_text(as_str(lot.get("title"))),
                    cpv_codes=unique_cpv([code for item in items for code in _item_cpv(item)]),
                    estimated_value=amount(lot.get("value"))[0],
                    town=town,
                    postal_code=postal_code,
                    nuts_codes=places.nuts(addresses, locations),
                )
            )
    return tuple(lots)


def _value(tender: dict) -> tuple[Decimal | None, str]:
    """``tender.value``, else the sum of lot values if they share one currency."""
    stated, currency = amount(tender.get("value"))
    if stated is not None:
        return stated, currency
    lot_values = [amount(lot.get("value")) for lot in as_dicts(tender.get("lots"))]
    lot_values = [(a, c) for a, c in lot_values if a is not None]
    currencies = {c for _, c in lot_values}
    if not lot_values or len(currencies) != 1:
        return None, ""
    return sum((a for a, _ in lot_values), Decimal(0)), currencies.pop()


def _documents_url(tender: dict) -> str:
    documents = [d for d in as_dicts(tender.get("documents")) if as_str(d.get("url"))]
    preferred = [d for d in documents if as_str(d.get("documentType")) == "biddingDocuments"]
    return as_str((preferred or documents or [{}])[0].get("url"))


_VERSIONED_UUID = re.compile(r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-\d{2}$", re.IGNORECASE)


def _referenced_notice_ids(release: dict) -> tuple[str, ...]:
    """Notice ids from ``relatedProcesses`` (schemes naming a notice, "eu-oj", "ted") and amendments.

    A "<uuid>-01" notice-version identifier is cut to the notice uuid (DÖE's notice id).
    """
    ids = []
    for process in as_dicts(release.get("relatedProcesses")):
        scheme = as_str(process.get("scheme")).lower()
        if "notice" in scheme or scheme in ("eu-oj", "ted"):
            ids.append(as_str(process.get("identifier")))
    for amendment in as_dicts(as_dict(release.get("tender")).get("amendments")):
        ids += [as_str(amendment.get("amendsReleaseID")), as_str(amendment.get("releaseID"))]
    ids = [_VERSIONED_UUID.sub(r"\1", i) for i in ids if i]
    own = as_str(release.get("id"))
    return tuple(dict.fromkeys(i for i in ids if i != own))
