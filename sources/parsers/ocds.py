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
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sources.normalise import (
    bundesland_for_nuts,
    clean_text,
    normalise_postal_code,
    nuts_codes_from,
    parse_decimal,
    parse_iso_datetime,
    procedure_type_code,
    unique_cpv,
)
from sources.parsers.links import portal_references_from_urls, urls_in_json
from sources.records import Lot, NoticeKind, NoticeRecord, TenderStatus

__all__ = ["OcdsParseError", "parse_ocds_package", "resolve_buyer_id"]

DOE_NOTICE_URL = "https://oeffentlichevergabe.de/ui/de/search/details?noticeId={}"


class OcdsParseError(ValueError):
    """The bytes are no OCDS release package, record package or release."""


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _str(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else ""


def _strs(value: Any) -> list[str]:
    """A list of non-empty strings; a lone string counts as a one-element list."""
    items = value if isinstance(value, list) else [value]
    return [s for s in (_str(item) for item in items) if s]


def parse_ocds_package(data: bytes, *, source: str = "doe") -> list[NoticeRecord]:
    """Parse a release package, a record package (``compiledRelease``) or one bare release."""
    document = _load_json(data)
    package = _dict(document)
    releases = _releases(document)
    version = _notice_version(_str(package.get("uri")))
    fallback_date = _str(package.get("publishedDate"))
    return [_release_record(r, source=source, version=version, fallback_date=fallback_date) for r in releases]


def _load_json(data: bytes) -> Any:
    if not isinstance(data, (bytes, bytearray, str)):
        raise OcdsParseError(f"expected bytes, got {type(data).__name__}")
    data = (data.encode("utf-8") if isinstance(data, str) else bytes(data)).removeprefix(b"\xef\xbb\xbf")
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
        raw = [record.get("compiledRelease") for record in _dicts(document["records"])]
    elif "ocid" in document and ("tag" in document or "tender" in document):
        raw = [document]
    else:
        raise OcdsParseError("no 'releases', 'records' or release object found")
    releases = [release for release in raw if isinstance(release, dict)]
    if not releases:
        raise OcdsParseError("package contains no release objects")
    for release in releases:
        if not _str(release.get("id")):
            raise OcdsParseError(f"release without 'id' (ocid {_str(release.get('ocid')) or '?'})")
    return releases


def _notice_version(uri: str) -> str:
    """``...?format=ocds&noticeVersion=1`` -> "01" (zero-padded so versions sort as strings)."""
    try:
        values = parse_qs(urlsplit(uri).query).get("noticeVersion") or []
    except ValueError:
        values = []
    version = values[0].strip() if values else ""
    return version.zfill(2) if version.isdigit() else version or "01"


def _release_record(release: dict, *, source: str, version: str, fallback_date: str) -> NoticeRecord:
    tender = _dict(release.get("tender"))
    tags = _strs(release.get("tag"))
    kind = _kind(tags)
    release_id = _str(release.get("id"))
    addresses, locations = _delivery_places(tender)
    nuts = _nuts(addresses, locations)
    buyer_party = _buyer_party(release)
    buyer_address = _dict(buyer_party.get("address")) or _dict(_dict(release.get("buyer")).get("address"))
    value, currency = _value(tender)
    postal_code, town = _postal_code_and_town(addresses, locations)
    date = _str(release.get("date")) or fallback_date
    return NoticeRecord(
        source=source,
        source_notice_id=release_id,
        version=version,
        kind=kind,
        ocid=_str(release.get("ocid")) or None,
        procedure_id=_str(tender.get("id")) or None,
        referenced_notice_ids=_referenced_notice_ids(release),
        portal_references=portal_references_from_urls(urls_in_json(release)),
        title=clean_text(_str(tender.get("title"))),
        description=clean_text(_str(tender.get("description"))),
        buyer_name=clean_text(
            _str(_dict(release.get("buyer")).get("name"))
            or _str(buyer_party.get("name"))
            or _str(_dict(tender.get("procuringEntity")).get("name"))
        ),
        buyer_id=resolve_buyer_id(release),
        procedure_type=procedure_type_code(
            _str(tender.get("procurementMethodDetails")) or _str(tender.get("procurementMethod"))
        ),
        status=_status(release, tender, kind),
        cpv_codes=unique_cpv(_cpv_ids(tender)),
        nuts_codes=nuts,
        bundesland=bundesland_for_nuts(nuts) or bundesland_for_nuts([_str(buyer_address.get("region"))]),
        postal_code=postal_code,
        town=town,
        country=_country(addresses) or _country([buyer_address]),
        estimated_value=value,
        currency=currency,
        published_at=parse_iso_datetime(date),
        submission_deadline=parse_iso_datetime(_str(_dict(tender.get("tenderPeriod")).get("endDate"))),
        questions_deadline=parse_iso_datetime(_str(_dict(tender.get("enquiryPeriod")).get("endDate"))),
        lots=_lots(tender),
        documents_url=_documents_url(tender),
        url=DOE_NOTICE_URL.format(release_id) if source == "doe" else "",
        suppliers=_suppliers(release),
        payload={"format": "ocds", "tag": tags, "release_id": release_id, "date": date},
    )


def _kind(tags: list[str]) -> NoticeKind:
    """The most consequential tag wins: cancellation > award/contract > change > tender > planning."""
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
    award_states = [_str(a.get("status")).lower() for a in _dicts(release.get("awards"))]
    if any(state in ("active", "pending") for state in award_states):
        return TenderStatus.AWARDED
    if award_states and all(state == "unsuccessful" for state in award_states):
        return TenderStatus.CANCELLED
    default = TenderStatus.AWARDED if kind is NoticeKind.AWARD else TenderStatus.ACTIVE
    return _TENDER_STATUS.get(_str(tender.get("status")).lower(), default)


def _buyer_party(release: dict) -> dict:
    """The party with role "buyer" that ``release.buyer`` points at, else the first buyer party.

    Both ``buyer.id`` and ``buyer.identifier.id`` are tried as references because DÖE swaps
    them; a reference to a non-buyer party (DÖE once points at the supplier) is ignored.
    """
    buyers = [p for p in _dicts(release.get("parties")) if "buyer" in _strs(p.get("roles"))]
    buyer = _dict(release.get("buyer"))
    refs = {_str(buyer.get("id")), _str(_dict(buyer.get("identifier")).get("id"))} - {""}
    for party in buyers:
        if _str(party.get("id")) in refs:
            return party
    return buyers[0] if buyers else {}


_INTERNAL_PARTY_ID = re.compile(r"^(ORG|TPO|TEN|CON|RES)-\d{3,}$", re.IGNORECASE)
_LEITWEG_ID = re.compile(r"^\d{2,12}(?:-[0-9A-Z]{1,30})?-\d{2}$", re.IGNORECASE)
_PHONE_PREFIX = re.compile(r"^\s*(?:t|tel|telefon|phone|fon)\s*[:.]", re.IGNORECASE)
_PHONE_CHARS = re.compile(r"^[\d\s()/+\-.]+$")


def _plausible_org_id(value: str) -> bool:
    """An organisation identifier worth keeping: not a phone number, not an internal party id.

    Leitweg-IDs ("991-12345-67", "11-1300000V00-74") and VAT/registration ids ("DE321903299",
    "DE 129 420 400") pass; "t: +49 46 32 84 91 0", "+49 431 988", "089 62730267", "000" and
    "ORG-0001" do not.
    """
    value = value.strip()
    if not value or _INTERNAL_PARTY_ID.match(value) or _PHONE_PREFIX.match(value):
        return False
    if _LEITWEG_ID.match(value):
        return True
    return not (_PHONE_CHARS.match(value) and (value.startswith(("+", "0")) or " " in value))


def resolve_buyer_id(release: dict) -> str:
    """The buyer's organisation identifier (Leitweg-ID, VAT or registration id), or "".

    DÖE quirk: ``buyer.id`` holds the organisation identifier and ``buyer.identifier.id`` the
    internal party id ("ORG-0001"), and the organisation identifier is frequently a phone number.
    Candidates in order: the buyer party's ``identifier.id``, its ``additionalIdentifiers[].id``,
    then ``buyer.id`` and ``buyer.identifier.id``; the first plausible one wins.
    """
    if not isinstance(release, dict):
        return ""
    party = _buyer_party(release)
    buyer = _dict(release.get("buyer"))
    candidates = [_str(_dict(party.get("identifier")).get("id"))]
    candidates += [_str(i.get("id")) for i in _dicts(party.get("additionalIdentifiers"))]
    candidates += [_str(buyer.get("id")), _str(_dict(buyer.get("identifier")).get("id"))]
    return next((c for c in candidates if _plausible_org_id(c)), "")


def _suppliers(release: dict) -> tuple[str, ...]:
    """Supplier names from ``awards[].suppliers``; DÖE sometimes lists them only in ``parties``."""
    names = [_str(s.get("name")) for a in _dicts(release.get("awards")) for s in _dicts(a.get("suppliers"))]
    if not any(names):
        names = [_str(p.get("name")) for p in _dicts(release.get("parties")) if "supplier" in _strs(p.get("roles"))]
    return tuple(dict.fromkeys(clean_text(n) for n in names if n))


def _cpv_of(classifications: list[dict]) -> list[str]:
    return [_str(c.get("id")) for c in classifications if _str(c.get("scheme")).upper() == "CPV"]


def _item_cpv(item: dict) -> list[str]:
    return _cpv_of([_dict(item.get("classification")), *_dicts(item.get("additionalClassifications"))])


def _cpv_ids(tender: dict) -> list[str]:
    codes = _cpv_of([_dict(tender.get("classification")), *_dicts(tender.get("additionalClassifications"))])
    for item in _dicts(tender.get("items")):
        codes += _item_cpv(item)
    return codes


def _delivery_places(tender: dict) -> tuple[list[dict], list[dict]]:
    """Delivery addresses and locations of tender, items and lots (location extension, both spellings)."""
    holders = [tender, *_dicts(tender.get("items")), *_dicts(tender.get("lots"))]
    addresses: list[dict] = []
    locations: list[dict] = []
    for holder in holders:
        addresses += [_dict(holder.get("deliveryAddress")), *_dicts(holder.get("deliveryAddresses"))]
        locations += [_dict(holder.get("deliveryLocation")), *_dicts(holder.get("deliveryLocations"))]
    return [a for a in addresses if a], [loc for loc in locations if loc]


def _nuts(addresses: list[dict], locations: list[dict]) -> tuple[str, ...]:
    raw = [_str(a.get("region")) for a in addresses]
    for location in locations:
        gazetteer = _dict(location.get("gazetteer"))
        if "NUTS" in _str(gazetteer.get("scheme")).upper():
            raw += _strs(gazetteer.get("identifiers"))
    return nuts_codes_from(raw)


_PLZ_TOWN = re.compile(r"\b(\d{5})[ \t]+([^\n,;]+)")


def _postal_code_and_town(addresses: list[dict], locations: list[dict]) -> tuple[str, str]:
    """First delivery postal code and town; else "PLZ Ort" found in a location's free-text description."""
    postal = next((c for c in (normalise_postal_code(_str(a.get("postalCode"))) for a in addresses) if c), "")
    town = next((t for t in (clean_text(_str(a.get("locality"))) for a in addresses) if t), "")
    for location in locations:  # e.g. "Landkreis Harz\nSternstraße 11\n38820 Halberstadt"
        if (not postal or not town) and (match := _PLZ_TOWN.search(_str(location.get("description")))):
            postal, town = postal or match.group(1), town or clean_text(match.group(2))
    return postal, town


_COUNTRY_ALIASES = {"DE": "DEU", "DEUTSCHLAND": "DEU", "GERMANY": "DEU"}


def _country(addresses: list[dict]) -> str:
    for address in addresses:
        raw = (_str(address.get("countryName")) or _str(address.get("country"))).upper()
        code = _COUNTRY_ALIASES.get(raw, raw)
        if re.fullmatch(r"[A-Z]{3}", code):
            return code
    return ""


def _amount(value: Any) -> tuple[Decimal | None, str]:
    value = _dict(value)
    return parse_decimal(value.get("amount")), _str(value.get("currency")).upper()


def _lots(tender: dict) -> tuple[Lot, ...]:
    cpv_by_lot: dict[str, list[str]] = {}
    for item in _dicts(tender.get("items")):
        cpv_by_lot.setdefault(_str(item.get("relatedLot")), []).extend(_item_cpv(item))
    lots = []
    for lot in _dicts(tender.get("lots")):
        lot_id = _str(lot.get("id"))
        if lot_id:
            lots.append(
                Lot(
                    lot_id=lot_id,
                    title=clean_text(_str(lot.get("title"))),
                    cpv_codes=unique_cpv(cpv_by_lot.get(lot_id, [])),
                    estimated_value=_amount(lot.get("value"))[0],
                )
            )
    return tuple(lots)


def _value(tender: dict) -> tuple[Decimal | None, str]:
    """``tender.value``, else the sum of lot values if they share one currency."""
    amount, currency = _amount(tender.get("value"))
    if amount is not None:
        return amount, currency
    lot_values = [_amount(lot.get("value")) for lot in _dicts(tender.get("lots"))]
    lot_values = [(a, c) for a, c in lot_values if a is not None]
    currencies = {c for _, c in lot_values}
    if not lot_values or len(currencies) != 1:
        return None, ""
    return sum((a for a, _ in lot_values), Decimal(0)), currencies.pop()


def _documents_url(tender: dict) -> str:
    documents = [d for d in _dicts(tender.get("documents")) if _str(d.get("url"))]
    preferred = [d for d in documents if _str(d.get("documentType")) == "biddingDocuments"]
    return _str((preferred or documents or [{}])[0].get("url"))


_VERSIONED_UUID = re.compile(r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-\d{2}$", re.IGNORECASE)


def _referenced_notice_ids(release: dict) -> tuple[str, ...]:
    """Notice ids from ``relatedProcesses`` (schemes naming a notice, "eu-oj", "ted") and amendments.

    A "<uuid>-01" notice-version identifier is cut to the notice uuid (DÖE's notice id).
    """
    ids = []
    for process in _dicts(release.get("relatedProcesses")):
        scheme = _str(process.get("scheme")).lower()
        if "notice" in scheme or scheme in ("eu-oj", "ted"):
            ids.append(_str(process.get("identifier")))
    for amendment in _dicts(_dict(release.get("tender")).get("amendments")):
        ids += [_str(amendment.get("amendsReleaseID")), _str(amendment.get("releaseID"))]
    ids = [_VERSIONED_UUID.sub(r"\1", i) for i in ids if i]
    own = _str(release.get("id"))
    return tuple(dict.fromkeys(i for i in ids if i != own))
