"""The one shape every adapter produces: a parsed, normalised notice.

Adapters turn foreign bytes into ``NoticeRecord`` values and never touch the
ORM; the ingest service in ``tenders`` merges them into the shared tender table.
Everything here is immutable so records can be hashed, compared and passed
between processes without defensive copies.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from kernel.vocabulary.statuses import TenderStatus


class NoticeKind(StrEnum):
    """What a notice announces; decides how it changes the tender."""

    PRIOR_INFORMATION = "prior_information"
    CONTRACT_NOTICE = "contract_notice"
    CHANGE = "change"
    AWARD = "award"
    CANCELLATION = "cancellation"


class AwardStatus(StrEnum):
    """What became of one lot: a winner, no winner (unsuccessful, "clos-nw"), or still open."""

    AWARDED = "awarded"
    NOT_AWARDED = "not_awarded"
    OPEN = "open"


def _pickled_by_fields(cls):
    """Pickle as ``cls(*field values)``: the dataclass default (``__getstate__``/``__setstate__`` walking
    ``dataclasses.fields`` per object) was the largest cost of handing parsed records from the parse
    workers to the writer, which is the one process every record passes through."""
    fields = dataclasses.fields(cls)
    # ``cls(*values)`` rebuilds the object only if every field is a positional ``__init__`` argument.
    if any(not f.init or f.kw_only for f in fields):
        raise TypeError(f"{cls.__name__}: a field outside the positional __init__ cannot be pickled by fields")
    names = [f.name for f in fields]
    # attrgetter of one name returns the value itself, not a 1-tuple.
    values = operator.attrgetter(*names) if len(names) > 1 else lambda obj: tuple(getattr(obj, n) for n in names)

    def __reduce__(self):
        return cls, values(self)

    cls.__reduce__ = __reduce__
    return cls


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Deadline:
    """One deadline with its kind (``kernel.vocabulary.deadlines.DeadlineKind``) and the lot it is for ("" = all)."""

    kind: str
    at: datetime
    lot_id: str = ""


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Lot:
    lot_id: str
    title: str = ""
    cpv_codes: tuple[str, ...] = ()
    estimated_value: Decimal | None = None
    submission_deadline: datetime | None = None  # this lot's Angebotsfrist (else Teilnahmefrist)
    town: str = ""
    postal_code: str = ""
    nuts_codes: tuple[str, ...] = ()


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class Award:
    """The result of one lot for one winner (or, without a winner, the lot's outcome alone).

    ``value`` is what the contract is worth (the winning tender or the contract), never an estimate.
    ``tenders_received`` counts the tenders for the lot; ``date`` is the contract or award decision date.
    """

    lot_id: str = ""
    status: AwardStatus = AwardStatus.AWARDED
    supplier_name: str = ""
    supplier_id: str = ""
    supplier_town: str = ""
    supplier_country: str = ""
    value: Decimal | None = None
    currency: str = ""
    tenders_received: int | None = None
    date: date | None = None


@_pickled_by_fields
@dataclass(frozen=True, slots=True)
class NoticeRecord:
    """One version of one notice from one source.

    ``source`` is the portal key (``doe``, ``ted``, ``tender24`` …) and
    ``source_notice_id`` the notice's id on that portal *without* its version;
    ``version`` orders corrections of the same notice ("01" < "02").
    Identifiers the merge rules use: ``ocid``, ``procedure_id`` (eForms
    ``cbc:ContractFolderID``, shared by DÖE and TED for one procedure),
    ``referenced_notice_ids`` (earlier notices this one changes or awards) and
    ``portal_references`` (exact ids on other portals found in links, as
    ``"<portal>:<id>"``, e.g. ``"netserver:54321-Tender-…"``, ``"cosinex:CXP4Y9PRGS5"``).
    """

    source: str
    source_notice_id: str
    version: str = "01"
    kind: NoticeKind = NoticeKind.CONTRACT_NOTICE
    ocid: str | None = None
    procedure_id: str | None = None
    referenced_notice_ids: tuple[str, ...] = ()
    portal_references: tuple[str, ...] = ()
    title: str = ""
    description: str = ""
    buyer_name: str = ""
    buyer_id: str = ""
    procedure_type: str = ""  # canonical code from kernel.vocabulary.procedures.PROCEDURE_TYPES
    status: TenderStatus = TenderStatus.ACTIVE
    cpv_codes: tuple[str, ...] = ()  # 8 digits, no check digit, most specific first-seen order
    nuts_codes: tuple[str, ...] = ()
    bundesland: str = ""
    postal_code: str = ""
    town: str = ""
    country: str = ""  # ISO 3166-1 alpha-3 as eForms uses it ("DEU")
    estimated_value: Decimal | None = None
    currency: str = ""
    published_at: datetime | None = None
    submission_deadline: datetime | None = None  # aware, with time of day
    questions_deadline: datetime | None = None
    lots: tuple[Lot, ...] = ()
    documents_url: str = ""
    url: str = ""
    suppliers: tuple[str, ...] = ()
    awards: tuple[Award, ...] = ()
    # Buyer details (the buyer's seat, not the place of performance).
    buyer_street: str = ""
    buyer_postal_code: str = ""
    buyer_town: str = ""
    buyer_country: str = ""
    buyer_email: str = ""
    buyer_phone: str = ""
    legal_basis: str = ""  # code of kernel.vocabulary.legal_basis
    above_eu_threshold: bool | None = None
    contract_nature: str = ""  # works / supplies / services
    main_cpv: str = ""
    deadlines: tuple[Deadline, ...] = ()
    publication_number: str = ""  # OJ S / TED number without leading zeros, "615938-2024"
    contract_start: date | None = None
    contract_end: date | None = None
    contract_duration: str = ""  # ISO 8601 duration as stated ("P24M", "P4Y"), when no end date is given
    framework_agreement: bool | None = None
    # How much the record's word counts when sources disagree (kernel.vocabulary.provenance.Origin):
    # stated by the parser or adapter that made it; empty on records stored before it existed.
    origin: str = ""
    payload: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def cpv_divisions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(code[:2] for code in self.cpv_codes))

    def replace(self, **changes: Any) -> NoticeRecord:
        return dataclasses.replace(self, **changes)


# Far above any real notice, far below what breaks: PostgreSQL refuses a search vector over 1 MB.
TEXT_LIMITS = {"title": 2_000, "description": 50_000}


def texts_cut(record: NoticeRecord) -> NoticeRecord:
    """The record with title and description cut to ``TEXT_LIMITS`` ("…" marks a cut).

    The ingest cuts them anyway (``tenders.merging.record_storable``); bulk parsing cuts them
    where they are parsed, so a hostile archive's megabyte texts never travel to the writer.
    """
    changes = {
        name: value[: limit - 1].rstrip() + "…"
        for name, limit in TEXT_LIMITS.items()
        if len(value := getattr(record, name)) > limit
    }
    return record.replace(**changes) if changes else record
