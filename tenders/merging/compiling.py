"""Compiling a tender from its notices, and what changed between two compiled states."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from operator import attrgetter

from kernel.records import Award, NoticeKind, NoticeRecord
from kernel.vocabulary.cpv import cpv_code_labels, cpv_labels_for
from kernel.vocabulary.deadlines import DeadlineKind
from kernel.vocabulary.provenance import is_mail_derived, origin_rank
from kernel.vocabulary.search_words import label_compound_parts, text_compound_parts
from kernel.vocabulary.statuses import TenderStatus
from tenders.merging.documents import sha256_json, str_or_none
from tenders.merging.identity import fingerprint, latest_versions, normalise_name, own_portal_references
from tenders.merging.precedence import CONFLICT_FIELDS, Lineage, conflicts, notice_order, stated, strength


@dataclass(frozen=True)
class TenderState:
    """The values of one Tender row, compiled from its notices."""

    ocid: str | None
    procedure_id: str | None
    title: str
    description: str
    buyer_name: str
    buyer_id: str
    procedure_type: str
    status: str
    cpv_codes: tuple[str, ...]
    cpv_divisions: tuple[str, ...]
    cpv_prefixes: tuple[str, ...]
    cpv_labels: str
    title_parts: str
    search_parts: str
    nuts_codes: tuple[str, ...]
    bundesland: str
    postal_code: str
    town: str
    country: str
    estimated_value: Decimal | None
    currency: str
    published_at: datetime | None
    submission_deadline: datetime | None
    questions_deadline: datetime | None
    lots: tuple[dict, ...]
    documents_url: str
    portal_references: tuple[str, ...]
    suppliers: tuple[str, ...]
    fingerprint: str | None
    awards: tuple[dict, ...]
    supplier_keys: tuple[str, ...]
    buyer_key: str
    buyer_street: str
    buyer_postal_code: str
    buyer_town: str
    buyer_country: str
    buyer_email: str
    buyer_phone: str
    legal_basis: str
    above_eu_threshold: bool | None
    contract_nature: str
    main_cpv: str
    deadlines: tuple[dict, ...]
    ted_publication_number: str
    publication_numbers: tuple[str, ...]
    contract_start: date | None
    contract_end: date | None
    contract_duration: str
    framework_agreement: bool | None
    # {"refs": [notice versions], "fields": {field: index into refs}}: where each value came from.
    field_sources: dict
    # Weaker sources stating something else for a field a bidder acts on (precedence.conflicts).
    conflicts: tuple[dict, ...]

    def content_hash(self) -> str:
        return sha256_json(_state_content(self))


_STATE_FIELD_NAMES = tuple(f.name for f in fields(TenderState))
_state_content = attrgetter(*_STATE_FIELD_NAMES)


def _status(records: Sequence[NoticeRecord], deadline: datetime | None, now: datetime) -> str:
    for record in reversed(records):
        if record.kind == NoticeKind.CANCELLATION or record.status == TenderStatus.CANCELLED:
            return TenderStatus.CANCELLED
        if record.kind == NoticeKind.AWARD or record.status == TenderStatus.AWARDED:
            return TenderStatus.AWARDED
    if deadline is not None and deadline < now:
        return TenderStatus.EXPIRED
    return TenderStatus.ACTIVE


@lru_cache(maxsize=4096)  # the same CPV sets recur across thousands of tenders
def _cpv_prefixes(codes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(code[:n] for code in codes for n in range(2, len(code) + 1)))


@lru_cache(maxsize=4096)
def _cpv_labels(codes: tuple[str, ...]) -> str:
    return cpv_labels_for(codes)


PARTS_LIMIT = 4000  # distinct parts per column: a description pasted from a whole tender document stays bounded


def compound_columns(*, title: str, description: str, lots: Iterable, code_labels: str) -> tuple[str, str]:
    """``Tender.title_parts`` and ``Tender.search_parts`` in one pass over the title.

    ``code_labels``: the labels of the tender's CPV codes themselves (``cpv_code_labels``), not those of
    their groups and classes, whose compound parts find work the tender is not about (issue 30).
    The same parts, in the same order, as splitting lot titles, labels and description as one
    text: a union in order of first appearance does not depend on how it is grouped. Labels are
    split once per label text, since the same CPV code sets recur across thousands of tenders.
    """
    title_parts = text_compound_parts([title], limit=PARTS_LIMIT)
    found = dict.fromkeys(text_compound_parts([lot.title or "" for lot in lots], limit=PARTS_LIMIT))
    found.update(dict.fromkeys(label_compound_parts(code_labels)))
    if len(found) < PARTS_LIMIT:
        found.update(dict.fromkeys(text_compound_parts([description], limit=PARTS_LIMIT)))
    in_title = set(title_parts)
    parts = list(found)[:PARTS_LIMIT]
    return " ".join(title_parts), " ".join(part for part in parts if part not in in_title)


def compile_tender(records: Iterable[NoticeRecord], *, now: datetime) -> TenderState:
    """Fold the newest version of every notice of one tender into its current state.

    Each field takes the value of the strongest record that states it (``precedence.strength``:
    the source's rank - official notice, portal detail page, portal list row, feed item, alert
    mail - then notice order: prior information < contract notice < change < award < cancellation,
    then publication time, then version); lists are unions over the strongest rank that states any.
    Records from alert mails only fill gaps (``mail_fills_gaps_only``). The result does not depend
    on the order in which notices were processed. Where each value came from is kept
    (``field_sources``), and where a weaker source disagrees on a field a bidder acts on, so is that
    (``conflicts``).
    """
    latest = mail_fills_gaps_only(latest_versions(records))
    if not latest:
        raise ValueError("compile_tender needs at least one record")
    ordered = sorted(latest, key=notice_order)  # the status follows the notices, whoever published them
    strongest = sorted(latest, key=strength)
    # Award notices describe results; their titles/values are kept only where nothing else states them.
    describing = [r for r in strongest if r.kind not in (NoticeKind.AWARD, NoticeKind.CANCELLATION)] or strongest
    lineage = Lineage()
    pick = lineage.pick
    deadline = pick(describing, "submission_deadline", None)
    cpv_codes = lineage.union(describing, "cpv_codes") or lineage.union(strongest, "cpv_codes")
    title = pick(strongest, "title")
    buyer_name = pick(strongest, "buyer_name")
    # An estimate stated only in an award notice still is the tender's estimate.
    value = pick(strongest, "estimated_value", None)
    currency = (lineage.chosen["estimated_value"].currency or "EUR") if value is not None else ""
    lots_record = next((r for r in reversed(describing) if r.lots), None)
    lineage.note("lots", lots_record)
    lots = lots_record.lots if lots_record else ()
    description = pick(describing, "description")
    cpv_labels = _cpv_labels(cpv_codes)
    title_parts, search_parts = compound_columns(
        title=title or "", description=description, lots=lots, code_labels=cpv_code_labels(cpv_codes)
    )
    awards = _awards(strongest, lineage)
    state = dict(
        ocid=pick(strongest, "ocid", None),
        procedure_id=pick(strongest, "procedure_id", None),
        title=title or "(ohne Titel)",
        description=description,
        buyer_name=buyer_name,
        buyer_id=pick(describing, "buyer_id"),
        procedure_type=pick(describing, "procedure_type"),
        status=_status(ordered, deadline, now),
        cpv_codes=cpv_codes,
        cpv_divisions=tuple(dict.fromkeys(code[:2] for code in cpv_codes)),
        cpv_prefixes=_cpv_prefixes(cpv_codes),
        cpv_labels=cpv_labels,
        title_parts=title_parts,
        search_parts=search_parts,
        nuts_codes=lineage.union(describing, "nuts_codes"),
        bundesland=pick(describing, "bundesland"),
        postal_code=pick(describing, "postal_code"),
        town=pick(describing, "town"),
        country=pick(describing, "country"),
        estimated_value=value,
        currency=currency,
        published_at=_first_published(strongest),
        submission_deadline=deadline,
        questions_deadline=pick(describing, "questions_deadline", None),
        lots=tuple(
            {
                "lot_id": lot.lot_id,
                "title": lot.title,
                "cpv_codes": list(lot.cpv_codes),
                "estimated_value": str_or_none(lot.estimated_value),
                "submission_deadline": _iso(lot.submission_deadline),
                "town": lot.town,
                "postal_code": lot.postal_code,
                "nuts_codes": list(lot.nuts_codes),
            }
            for lot in lots
        ),
        documents_url=pick(strongest, "documents_url"),
        # Identity, not content: every source's references and publication numbers are kept.
        portal_references=tuple(dict.fromkeys(ref for r in ordered for ref in own_portal_references(r))),
        suppliers=lineage.union(strongest, "suppliers"),
        fingerprint=fingerprint(buyer_name=buyer_name, title=title),
        awards=awards,
        supplier_keys=tuple(dict.fromkeys(k for k in (supplier_key(a["supplier_name"]) for a in awards) if k)),
        buyer_key=supplier_key(buyer_name),
        **{name: pick(strongest, name) for name in _BUYER_FIELDS},
        legal_basis=pick(strongest, "legal_basis"),
        above_eu_threshold=pick(describing, "above_eu_threshold", None),
        contract_nature=pick(strongest, "contract_nature"),
        main_cpv=pick(describing, "main_cpv") or (cpv_codes[0] if cpv_codes else ""),
        deadlines=_deadlines(describing, lineage),
        ted_publication_number=pick(strongest, "publication_number", name="ted_publication_number"),
        publication_numbers=tuple(dict.fromkeys(r.publication_number for r in ordered if r.publication_number)),
        contract_start=pick(describing, "contract_start", None),
        contract_end=pick(describing, "contract_end", None),
        contract_duration=pick(describing, "contract_duration"),
        framework_agreement=pick(describing, "framework_agreement", None),
    )
    found = conflicts(lineage, {n: describing if n in _FROM_DESCRIBING else strongest for n in CONFLICT_FIELDS})
    return TenderState(**state, field_sources=lineage.as_json(), conflicts=found)


def _first_published(strongest: Sequence[NoticeRecord]) -> datetime | None:
    """The first publication the strongest rank that states one knows of (a feed's earlier date does not count)."""
    dated = [r for r in strongest if r.published_at]
    if not dated:
        return None
    top = origin_rank(dated[-1])
    return min(r.published_at for r in dated if origin_rank(r) == top)


# Conflict fields compiled from the notices describing the tender only (as their values are).
_FROM_DESCRIBING = frozenset({"submission_deadline", "postal_code", "town", "bundesland"})
_BUYER_FIELDS = ("buyer_street", "buyer_postal_code", "buyer_town", "buyer_country", "buyer_email", "buyer_phone")


def supplier_key(name: str) -> str:
    """The key a buyer or supplier page looks organisations up by: the folded name (legal form, case, umlauts)."""
    return normalise_name(name or "")[:200]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _award_json(award: Award) -> dict:
    return {
        "lot_id": award.lot_id,
        "status": award.status.value if hasattr(award.status, "value") else award.status,
        "supplier_name": award.supplier_name,
        "supplier_id": award.supplier_id,
        "supplier_town": award.supplier_town,
        "supplier_country": award.supplier_country,
        "value": str_or_none(award.value),
        "currency": award.currency or ("EUR" if award.value is not None else ""),
        "tenders_received": award.tenders_received,
        "date": award.date.isoformat() if award.date else None,
    }


def _awards(strongest: Sequence[NoticeRecord], lineage: Lineage) -> tuple[dict, ...]:
    """Results lot by lot: the strongest notice stating results for a lot decides that lot (a correction or
    a later award notice replaces the earlier result; lots it does not mention keep theirs; a weaker
    source's results only fill lots no stronger one states). One row per (lot, winner)."""
    by_lot: dict[str, tuple[Award, ...]] = {}
    for record in strongest:
        stated: dict[str, list[Award]] = {}
        for award in record.awards:
            stated.setdefault(award.lot_id, []).append(award)
        by_lot.update({lot: tuple(found) for lot, found in stated.items()})
        if record.awards:
            lineage.note("awards", record)
    rows: dict[tuple[str, str], dict] = {}
    for lot, found in by_lot.items():
        for award in found:
            winner = supplier_key(award.supplier_name) or award.supplier_id
            rows.setdefault((lot, winner) if winner else (lot, f"#{len(rows)}"), _award_json(award))
    return tuple(rows.values())


def _deadlines(describing: Sequence[NoticeRecord], lineage: Lineage) -> tuple[dict, ...]:
    """The deadlines of the strongest notice stating any, with their kinds; a source without kinds states its
    submission deadline as the Angebotsfrist and its questions deadline as the Fragenfrist."""
    for record in reversed(describing):
        if record.deadlines or record.submission_deadline or record.questions_deadline:
            lineage.note("deadlines", record)
        if record.deadlines:
            return tuple({"kind": str(d.kind), "at": d.at.isoformat(), "lot_id": d.lot_id} for d in record.deadlines)
        if record.submission_deadline or record.questions_deadline:
            pairs = (
                (DeadlineKind.TENDER, record.submission_deadline),
                (DeadlineKind.QUESTIONS, record.questions_deadline),
            )
            return tuple({"kind": str(kind), "at": at.isoformat(), "lot_id": ""} for kind, at in pairs if at)
    return ()


# Fields a mail-derived record may state only where no platform record does. Identity fields stay
# (they say which notice the record is); url stays (it is the mail notice's own link, not the tender's).
_MAIL_GAP_FIELDS = tuple(
    f
    for f in fields(NoticeRecord)
    if f.name
    not in ("source", "source_notice_id", "version", "kind", "status", "referenced_notice_ids", "url", "origin")
    and f.name != "payload"
)


def mail_fills_gaps_only(records: Sequence[NoticeRecord]) -> list[NoticeRecord]:
    """Mail-derived records with every field a platform record states emptied, and no say on the status.

    An alert mail is a second-hand digest (and anyone may send one), so it never overrides what
    DÖE, TED or a portal crawl published: not a deadline, a title, a CPV code or the status
    (a mail's "Zuschlag erteilt" does not award a tender a platform shows as open). Where no
    platform record exists yet, mail records compile as they are.
    """
    platform = [record for record in records if not is_mail_derived(record)]
    if not platform or len(platform) == len(records):
        return list(records)
    emptied = {
        f.name: f.default for f in _MAIL_GAP_FIELDS if any(stated(getattr(record, f.name)) for record in platform)
    }
    return [
        record
        if not is_mail_derived(record)
        else record.replace(kind=NoticeKind.CONTRACT_NOTICE, status=TenderStatus.ACTIVE, **emptied)
        for record in records
    ]


# What matching, alerts and the team board care about when a tender changes. ``deadlines`` (Teilnahmefrist,
# Bindefrist, …) and ``contract_start`` are the board cards' dated items: a notice moving only one of them must
# still reach every tenant, so its cards move their reminders and say so.
TRACKED_CHANGES = (
    "submission_deadline",
    "status",
    "estimated_value",
    "title",
    "questions_deadline",
    "deadlines",
    "contract_start",
)


# The deadline list repeats the tender's own submission and questions deadlines (Angebotsfrist and Fragenfrist of
# no lot), which are tracked as fields of their own: the list counts as changed only when another entry did.
_OWN_DEADLINE_KINDS = frozenset({str(DeadlineKind.TENDER), str(DeadlineKind.QUESTIONS)})


def _other_deadlines(entries: list) -> list:
    return [
        entry
        for entry in entries
        if not (isinstance(entry, dict) and entry.get("kind") in _OWN_DEADLINE_KINDS and not entry.get("lot_id"))
    ]


def state_changes(old: dict | None, new: TenderState) -> dict[str, list]:
    """Tracked fields that differ, as {field: [old, new]} with JSON-friendly values."""
    if old is None:
        return {}
    changes = {}
    for name in TRACKED_CHANGES:
        before, after = old.get(name), getattr(new, name)
        if isinstance(before, Decimal) and isinstance(after, Decimal):
            differs = before.compare(after) != 0
        elif name == "deadlines":  # stored as a JSON list, compiled as a tuple of the same dicts
            before, after = list(before or ()), list(after or ())
            differs = _other_deadlines(before) != _other_deadlines(after)
        else:
            differs = before != after
        if differs:
            changes[name] = [_jsonable(before), _jsonable(after)]
    return changes


def _jsonable(value):
    if isinstance(value, date):  # datetime too
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value
