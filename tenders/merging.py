"""Pure merge logic: identity keys, fingerprints and compiling a tender from its notices.

No ORM here. ``tenders.services`` loads rows, calls these functions and writes
the results back in bulk; everything below is deterministic in its inputs, so
processing the same notices in any order yields the same tender.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from operator import attrgetter

import orjson

from sources.normalise import BERLIN, procedure_type_label
from sources.parsers.eforms.links import portal_references_from_urls
from sources.records import Lot, NoticeKind, NoticeRecord, TenderStatus
from tenders.cpv import cpv_labels_for

# --- record (de)serialisation: versions store the parsed record, so a tender can always be recompiled ---


_RECORD_FIELDS = tuple(f.name for f in fields(NoticeRecord) if f.name != "payload")


def _plain(value):
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def record_to_json(record: NoticeRecord) -> dict:
    """JSON-ready dict of a record (hand-written: dataclasses.asdict deep-copies and is 10x slower)."""
    data = {name: _plain(getattr(record, name)) for name in _RECORD_FIELDS}
    data["lots"] = [
        {
            "lot_id": lot.lot_id,
            "title": lot.title,
            "cpv_codes": list(lot.cpv_codes),
            "estimated_value": _str_or_none(lot.estimated_value),
        }
        for lot in record.lots
    ]
    data["payload"] = record.payload
    return data


def record_from_json(data: dict) -> NoticeRecord:
    names = {f.name for f in fields(NoticeRecord)}
    values = {key: value for key, value in data.items() if key in names}
    for key in ("published_at", "submission_deadline", "questions_deadline"):
        if values.get(key):
            values[key] = datetime.fromisoformat(values[key])
    if values.get("estimated_value") is not None:
        values["estimated_value"] = Decimal(values["estimated_value"])
    for key in ("referenced_notice_ids", "portal_references", "cpv_codes", "nuts_codes", "suppliers"):
        values[key] = tuple(values.get(key) or ())
    values["lots"] = tuple(
        Lot(
            lot_id=lot.get("lot_id", ""),
            title=lot.get("title", ""),
            cpv_codes=tuple(lot.get("cpv_codes") or ()),
            estimated_value=Decimal(lot["estimated_value"]) if lot.get("estimated_value") is not None else None,
        )
        for lot in values.get("lots") or ()
    )
    values["kind"] = NoticeKind(values.get("kind", NoticeKind.CONTRACT_NOTICE))
    values["status"] = TenderStatus(values.get("status", TenderStatus.ACTIVE))
    return NoticeRecord(**values)


def _str_or_none(value) -> str | None:
    return None if value is None else str(value)


def _json_default(value):
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_record_content = attrgetter(*_RECORD_FIELDS)


def record_json(record: NoticeRecord) -> str:
    """The stored form of a record (same document as ``record_to_json``), serialised in one pass.

    orjson writes the dataclass directly, several times faster than building a dict and
    ``json.dumps``-ing it. It refuses what it cannot encode exactly (integers beyond 64 bits,
    lone surrogates from hostile input); such a record takes the standard-library path, with
    lone surrogates replaced so PostgreSQL's jsonb accepts the document.
    """
    try:
        return orjson.dumps(record, default=_json_default).decode()
    except orjson.JSONEncodeError:
        text = json.dumps(record_to_json(record), ensure_ascii=False, default=str)
        return text.encode("utf-8", "replace").decode("utf-8")


def content_hash(record: NoticeRecord) -> str:
    """Hash of everything a notice says (not the raw payload): equal hash = nothing new."""
    return _sha256_json(_record_content(record))


def _sha256_json(values: tuple) -> str:
    try:
        data = orjson.dumps(values, default=_json_default)
    except orjson.JSONEncodeError:  # lone surrogates: hash the escaped form, still deterministic
        data = json.dumps(values, ensure_ascii=True, cls=_FallbackEncoder).encode()
    return hashlib.sha256(data).hexdigest()


class _FallbackEncoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, Lot):
            return [o.lot_id, o.title, list(o.cpv_codes), _str_or_none(o.estimated_value)]
        if isinstance(o, datetime):
            return o.isoformat()
        if isinstance(o, Decimal):
            return str(o)
        return super().default(o)


# --- versions ---------------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def version_key(version: str) -> tuple[int, str]:
    """ "02" > "01", "10" > "9"; non-numeric versions sort after numeric ones, then by text."""
    digits = re.sub(r"\D", "", version or "")
    return (int(digits) if digits else -1, version or "")


def latest_versions(records: Iterable[NoticeRecord]) -> list[NoticeRecord]:
    """Keep only the newest version of each (source, notice id): a correction supersedes its original.

    Of two records with the same version the later one wins: portals without versions (NetServer,
    cosinex) re-publish changed content as the same version, and callers pass stored history first.
    """
    newest: dict[tuple[str, str], NoticeRecord] = {}
    for record in records:
        key = (record.source, record.source_notice_id)
        current = newest.get(key)
        if current is None or version_key(record.version) >= version_key(current.version):
            newest[key] = record
    return list(newest.values())


# --- fingerprint ------------------------------------------------------------------------------------

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_LEGAL_FORMS = re.compile(r"\b(gmbh|ag|kg|ohg|e\s?v|eg|mbh|aör|aoer|kdör|kdoer|gbr|se|co)\b")
_TITLE_NOISE = re.compile(
    r"^(ausschreibung|bekanntmachung|auftragsbekanntmachung|vergabe|öffentliche ausschreibung|"
    r"offenes verfahren|nicht offenes verfahren)\s*[:\-–]\s*"
)


_NON_WORD = re.compile(r"[^\w]+")


@lru_cache(maxsize=65536)
def normalise_name(text: str) -> str:
    """Case, accents, umlaut spellings, punctuation and legal forms folded away."""
    text = (text or "").casefold().translate(_UMLAUTS)
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = _TITLE_NOISE.sub("", text)
    text = _NON_WORD.sub(" ", text)
    text = _LEGAL_FORMS.sub(" ", text)
    return " ".join(text.split())


def fingerprint(*, buyer_name: str, title: str) -> str | None:
    """Identity of "the same buyer announcing the same thing"; None when either part is missing.

    Only buyer and title go into the hash. CPV division, deadline day and value
    bucket are compared separately by ``fingerprint_compatible`` so that a source
    that lacks one of them (DÖE's OCDS has no deadline) can still match.
    """
    return _fingerprint(buyer_name, title)


@lru_cache(maxsize=65536)  # merge keys and the compiled tender ask for the same pair in one batch
def _fingerprint(buyer_name: str, title: str) -> str | None:
    buyer, name = normalise_name(buyer_name), normalise_name(title)
    if len(buyer) < 3 or len(name) < 8:
        return None
    return hashlib.sha256(f"{buyer}|{name}".encode()).hexdigest()


@dataclass(frozen=True)
class FingerprintTraits:
    cpv_divisions: frozenset[str]
    deadline_day: date | None
    value_bucket: int | None


def value_bucket(value: Decimal | None) -> int | None:
    """Quarter-decades: 100,000 and 150,000 share a bucket, 100,000 and 1,000,000 do not."""
    if value is None or value <= 0:
        return None
    return math.floor(math.log10(float(value)) * 4)


def traits_of(*, cpv_codes: Sequence[str], deadline: datetime | None, value: Decimal | None) -> FingerprintTraits:
    return FingerprintTraits(
        cpv_divisions=frozenset(code[:2] for code in cpv_codes if code),
        deadline_day=deadline.astimezone(BERLIN).date() if deadline else None,
        value_bucket=value_bucket(value),
    )


def fingerprint_compatible(a: FingerprintTraits, b: FingerprintTraits) -> bool:
    """Equal where both sides know the value; a missing value (NULL) never blocks nor proves a match."""
    if a.cpv_divisions and b.cpv_divisions and not (a.cpv_divisions & b.cpv_divisions):
        return False
    if a.deadline_day and b.deadline_day and a.deadline_day != b.deadline_day:
        return False
    both_valued = a.value_bucket is not None and b.value_bucket is not None
    return not (both_valued and abs(a.value_bucket - b.value_bucket) > 1)


# --- identity keys used by the merge rules ---------------------------------------------------------


@lru_cache(maxsize=65536)
def _references_in(url: str, documents_url: str) -> tuple[str, ...]:
    return portal_references_from_urls([url, documents_url])


def own_portal_references(record: NoticeRecord) -> tuple[str, ...]:
    """Exact portal ids a record names, including its own identity on a NetServer/cosinex portal."""
    found = _references_in(record.url, record.documents_url)
    return tuple(dict.fromkeys((*record.portal_references, *found))) if record.portal_references else found


# --- compiling a tender from its notices -------------------------------------------------------------

_KIND_RANK = {
    NoticeKind.PRIOR_INFORMATION: 0,
    NoticeKind.CONTRACT_NOTICE: 1,
    NoticeKind.CHANGE: 2,
    NoticeKind.AWARD: 3,
    NoticeKind.CANCELLATION: 4,
}
_EPOCH = datetime(1970, 1, 1, tzinfo=BERLIN)


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

    def content_hash(self) -> str:
        return _sha256_json(_state_content(self))

    @property
    def procedure_type_label(self) -> str:
        return procedure_type_label(self.procedure_type)


_STATE_FIELD_NAMES = tuple(f.name for f in fields(TenderState))
_state_content = attrgetter(*_STATE_FIELD_NAMES)


def _order(record: NoticeRecord) -> tuple:
    # Change notices override the notice they change even when another portal republished
    # the original later (TED lags DÖE by days); awards and cancellations come last.
    return (_KIND_RANK[record.kind], record.published_at or _EPOCH, version_key(record.version), record.source)


def _latest(records: Sequence[NoticeRecord], attr: str, default=""):
    for record in reversed(records):
        value = getattr(record, attr)
        # Truthy first: most values are; Decimal("0") and False still count as stated.
        if value or (value is not None and value != "" and value != ()):
            return value
    return default


def _union(records: Sequence[NoticeRecord], attr: str) -> tuple:
    return tuple(dict.fromkeys(item for record in records for item in getattr(record, attr)))


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


def compile_tender(records: Iterable[NoticeRecord], *, now: datetime) -> TenderState:
    """Fold the newest version of every notice of one tender into its current state.

    A field takes the value of the latest notice that states it (in notice order:
    prior information < contract notice < change < award < cancellation, then
    publication time, then version); lists are unions. The result does not
    depend on the order in which notices were processed.
    """
    ordered = sorted(latest_versions(records), key=_order)
    if not ordered:
        raise ValueError("compile_tender needs at least one record")
    # Award notices describe results; their titles/values are kept only where nothing else states them.
    describing = [r for r in ordered if r.kind not in (NoticeKind.AWARD, NoticeKind.CANCELLATION)] or ordered
    deadline = _latest(describing, "submission_deadline", None)
    cpv_codes = _union(describing, "cpv_codes") or _union(ordered, "cpv_codes")
    title = _latest(describing, "title") or _latest(ordered, "title")
    buyer_name = _latest(describing, "buyer_name") or _latest(ordered, "buyer_name")
    value = _latest(describing, "estimated_value", None)
    currency = _latest(describing, "currency") if value is not None else ""
    lots_record = next((r for r in reversed(describing) if r.lots), None)
    return TenderState(
        ocid=_latest(ordered, "ocid", None),
        procedure_id=_latest(ordered, "procedure_id", None),
        title=title or "(ohne Titel)",
        description=_latest(describing, "description"),
        buyer_name=buyer_name,
        buyer_id=_latest(describing, "buyer_id"),
        procedure_type=_latest(describing, "procedure_type"),
        status=_status(ordered, deadline, now),
        cpv_codes=cpv_codes,
        cpv_divisions=tuple(dict.fromkeys(code[:2] for code in cpv_codes)),
        cpv_prefixes=_cpv_prefixes(cpv_codes),
        cpv_labels=_cpv_labels(cpv_codes),
        nuts_codes=_union(describing, "nuts_codes"),
        bundesland=_latest(describing, "bundesland"),
        postal_code=_latest(describing, "postal_code"),
        town=_latest(describing, "town"),
        country=_latest(describing, "country"),
        estimated_value=value,
        currency=currency or ("EUR" if value is not None else ""),
        published_at=min((r.published_at for r in ordered if r.published_at), default=None),
        submission_deadline=deadline,
        questions_deadline=_latest(describing, "questions_deadline", None),
        lots=tuple(
            {
                "lot_id": lot.lot_id,
                "title": lot.title,
                "cpv_codes": list(lot.cpv_codes),
                "estimated_value": _str_or_none(lot.estimated_value),
            }
            for lot in (lots_record.lots if lots_record else ())
        ),
        documents_url=_latest(describing, "documents_url") or _latest(ordered, "documents_url"),
        portal_references=tuple(dict.fromkeys(ref for r in ordered for ref in own_portal_references(r))),
        suppliers=_union(ordered, "suppliers"),
        fingerprint=fingerprint(buyer_name=buyer_name, title=title),
    )


# What matching and alerts care about when a tender changes.
TRACKED_CHANGES = ("submission_deadline", "status", "estimated_value", "title", "questions_deadline")


def state_changes(old: dict | None, new: TenderState) -> dict[str, list]:
    """Tracked fields that differ, as {field: [old, new]} with JSON-friendly values."""
    if old is None:
        return {}
    changes = {}
    for name in TRACKED_CHANGES:
        before, after = old.get(name), getattr(new, name)
        if isinstance(before, Decimal) and isinstance(after, Decimal):
            differs = before.compare(after) != 0
        else:
            differs = before != after
        if differs:
            changes[name] = [_jsonable(before), _jsonable(after)]
    return changes


def _jsonable(value):
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value
