"""One ``NoticeRecord`` per DÖE notice version, joined from its eForms XML and its OCDS release.

Why: the Bekanntmachungsservice exports every notice version twice. The eForms XML is the
notice as submitted (legally binding) and the only rendition with the submission deadline
(DÖE's OCDS omits ``tender.tenderPeriod``; eForms has ``TenderSubmissionDeadlinePeriod``),
the questions deadline, the ContractFolderID and the links to the procurement portal. The
OCDS release is generated from it and adds the ``ocid``, a buyer id checked for
plausibility, and national procedure names ("Public announcement") that eForms folds into
"other". Ingesting both as separate records would make two versions of one notice.

Join key: the file name stem ``<notice id>-<version>`` (``24d29507-…-01.xml`` ↔
``24d29507-…-01.json``; ``17750180-1.xml`` is version "01"), which is DÖE's own
``noticeIdentifier``/``noticeVersion``. The stem is trusted only when its id is the id inside
the file; otherwise (hand-named files) the record's own id and version are the key, so a
mislabelled file is never joined with a different notice. When the stem is trusted its
version wins over ``cbc:VersionID``.

Field rules of :func:`join_doe_records` (``e`` = eForms, ``o`` = OCDS; "first" = first non-empty):

* eForms first: submission/questions deadline, procedure_id, referenced_notice_ids, kind and
  status (they belong together), title/description/buyer_name (German texts), lots,
  published_at, documents_url, suppliers, country; place (postal code + town) and value
  (amount + currency) are taken as pairs from the record that has them, never mixed.
* OCDS first: ocid; procedure_type (national code), unless empty or "other" where eForms is
  specific; buyer_id (DÖE writes phone numbers as organisation ids; both candidates pass the
  OCDS parser's plausibility check); url (the DÖE detail page).
* Union, eForms order first: cpv_codes, nuts_codes, portal_references.
* Award results and the notice fields a bid manager needs (``AWARD_AND_TERMS_FIELDS``): eForms first,
  OCDS where eForms is silent (OCDS is generated from the eForms notice but DÖE leaves parts out,
  e.g. the legal basis); the buyer's address (street, postal code, town, country) as one block
  from the record that has one, never mixed.

Limits: lots are not merged lot by lot; an OCDS package with several releases joins each
release by its own id.
"""

from __future__ import annotations

import dataclasses
import re

from kernel.memo import short_text_memo
from kernel.normalise import EMPTY_VALUES, MEMO_MAX_CHARS, MEMO_SIZE, first_nonempty
from kernel.records import NoticeRecord
from kernel.vocabulary.provenance import Origin
from sources.parsers.eforms import EformsParseError, parse_eforms
from sources.parsers.ocds import DOE_NOTICE_URL, OcdsParseError, parse_ocds_package, resolve_buyer_id

from .archive import Member

__all__ = ["Key", "join_doe_records", "member_kind", "parse_member_records", "stem_key"]

SOURCE = "doe"
Key = tuple[str, str]  # (notice id lower-cased, two-digit version)
_STEM = re.compile(r"^(?P<id>.+?)-(?P<version>\d{1,3})$")


def stem_key(file_name: str) -> Key | None:
    """``"<id>-<version>.<ext>"`` -> ``(id lower-cased, two-digit version)``; None if the name has no version."""
    stem = file_name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    match = _STEM.match(stem)
    if not match:
        return None
    return match.group("id").lower(), f"{int(match.group('version')):02d}"


def _plausible_buyer_id(value: str) -> str:
    # The OCDS parser's plausibility rules (no phone numbers, no "ORG-0001") applied to one value;
    # a buyer's id recurs in every notice of that buyer, and this runs in the one writing process.
    return _plausible_buyer_id_of(value) if value else ""


@short_text_memo(max_chars=MEMO_MAX_CHARS, maxsize=MEMO_SIZE)
def _plausible_buyer_id_of(value: str) -> str:
    return resolve_buyer_id({"buyer": {"id": value}})


def _union(*groups: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for group in groups for item in group if item))


# Fields taken eForms first, else OCDS; a field added to NoticeRecord and not joined here is lost for DÖE,
# which the join test guards (every field of a record joined with nothing survives).
AWARD_AND_TERMS_FIELDS = (
    "awards",
    "buyer_email",
    "buyer_phone",
    "legal_basis",
    "above_eu_threshold",
    "contract_nature",
    "main_cpv",
    "deadlines",
    "publication_number",
    "contract_start",
    "contract_end",
    "contract_duration",
    "framework_agreement",
)
BUYER_ADDRESS_FIELDS = ("buyer_street", "buyer_postal_code", "buyer_town", "buyer_country")


def join_doe_records(ocds: NoticeRecord | None, eforms: NoticeRecord | None) -> NoticeRecord:
    """Join the OCDS and eForms records of one notice version (either may be None; not both).

    Raises ValueError when both are given but name different notice ids or versions.
    """
    if ocds is None and eforms is None:
        raise ValueError("join_doe_records needs at least one record")
    if (
        ocds is not None
        and eforms is not None
        and (ocds.source_notice_id.lower() != eforms.source_notice_id.lower() or ocds.version != eforms.version)
    ):
        raise ValueError(
            f"cannot join OCDS {ocds.source_notice_id}-{ocds.version} "
            f"with eForms {eforms.source_notice_id}-{eforms.version}: different notices"
        )
    e, o = eforms, ocds
    main = e or o
    assert main is not None  # for type checkers; guarded above
    notice_id = main.source_notice_id

    def first(field: str, *records: NoticeRecord | None):
        # first_nonempty's rule, without a generator per field: this runs ~40 times per notice in the writer.
        for record in records:
            if record is not None and (value := getattr(record, field)) not in EMPTY_VALUES:
                return value
        return None

    procedure_type = o.procedure_type if o else ""
    if e and e.procedure_type and procedure_type in ("", "other"):
        procedure_type = e.procedure_type
    place = next((r for r in (e, o) if r and (r.postal_code or r.town)), None)
    priced = next((r for r in (e, o) if r and r.estimated_value is not None), None)
    addressed = next((r for r in (e, o) if r and any(getattr(r, f) for f in BUYER_ADDRESS_FIELDS)), None)
    payload = {"format": "doe", **({"eforms": e.payload} if e else {}), **({"ocds": o.payload} if o else {})}
    return NoticeRecord(
        source=SOURCE,
        origin=Origin.OFFICIAL,
        source_notice_id=notice_id,
        version=main.version,
        kind=main.kind,
        ocid=first("ocid", o, e),
        procedure_id=first("procedure_id", e, o),
        referenced_notice_ids=first("referenced_notice_ids", e, o) or (),
        portal_references=_union(*(r.portal_references for r in (e, o) if r)),
        title=first("title", e, o) or "",
        description=first("description", e, o) or "",
        buyer_name=first("buyer_name", e, o) or "",
        buyer_id=first_nonempty(*(_plausible_buyer_id(r.buyer_id) for r in (o, e) if r)) or "",
        procedure_type=procedure_type,
        status=main.status,
        cpv_codes=_union(*(r.cpv_codes for r in (e, o) if r)),
        nuts_codes=_union(*(r.nuts_codes for r in (e, o) if r)),
        bundesland=first("bundesland", e, o) or "",
        postal_code=place.postal_code if place else "",
        town=place.town if place else "",
        country=first("country", e, o) or "",
        estimated_value=priced.estimated_value if priced else None,
        currency=priced.currency if priced else "",
        published_at=first("published_at", e, o),
        submission_deadline=first("submission_deadline", e, o),
        questions_deadline=first("questions_deadline", e, o),
        lots=first("lots", e, o) or (),
        documents_url=first("documents_url", e, o) or "",
        url=first("url", o, e) or DOE_NOTICE_URL.format(notice_id),
        suppliers=first("suppliers", e, o) or (),
        payload=payload,
        **{name: _stated(first(name, e, o), name) for name in AWARD_AND_TERMS_FIELDS},
        **{name: getattr(addressed, name) if addressed else "" for name in BUYER_ADDRESS_FIELDS},
    )


def _stated(value, name: str):
    """``value``, or the NoticeRecord default when neither record states it (False is a statement)."""
    return _EMPTY[name] if value is None else value


# What a joined field is when neither record states it: the NoticeRecord default.
_EMPTY = {
    f.name: f.default
    for f in dataclasses.fields(NoticeRecord)
    if f.name in AWARD_AND_TERMS_FIELDS and f.default is not dataclasses.MISSING
}


def member_kind(file_name: str) -> str:
    """ "eforms" for an XML member, "ocds" for a JSON one, "" for any other file."""
    return {"xml": "eforms", "json": "ocds"}.get(file_name.lower().rsplit(".", 1)[-1], "")


def parse_member_records(member: Member) -> tuple[str, tuple[NoticeRecord, ...], str]:
    """(kind, records, problem) of one export member: "eforms" for XML, "ocds" for JSON.

    One broken file never costs the others: any exception from a parser is a problem naming
    the file (a notice that crashes the parser would otherwise block its day, and thus the
    cursor, for ever).
    """
    kind = member_kind(member.name)
    if kind == "eforms":
        try:
            return "eforms", (parse_eforms(member.data, source=SOURCE),), ""
        except EformsParseError as exc:
            return "eforms", (), f"{member.label}: not a usable eForms notice: {exc}"
        except Exception as exc:  # see docstring
            return "eforms", (), f"{member.label}: eForms parser failed: {type(exc).__name__}: {exc}"
    if kind == "ocds":
        try:
            return "ocds", tuple(parse_ocds_package(member.data, source=SOURCE)), ""
        except OcdsParseError as exc:
            return "ocds", (), f"{member.label}: not a usable OCDS release package: {exc}"
        except Exception as exc:  # see docstring
            return "ocds", (), f"{member.label}: OCDS parser failed: {type(exc).__name__}: {exc}"
    return "", (), f"{member.label}: unsupported file type (expected .xml or .json)"
