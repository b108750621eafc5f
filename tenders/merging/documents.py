"""The stored form of a notice version and its content hash.

Versions keep the parsed record as JSON, so a tender can always be recompiled from
its history; the content hash (everything a notice says, not its raw payload)
tells a re-published version with new content from one seen before.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import fields
from datetime import date, datetime
from decimal import Decimal
from operator import attrgetter

import orjson

from kernel.links import LINK_FIELDS, safe_link
from kernel.memo import short_text_memo
from kernel.normalise import plausible_datetime
from kernel.placeholders import placeholder_amount, plausible_buyer_id, without_placeholder
from kernel.records import TEXT_LIMITS, Award, AwardStatus, Deadline, Lot, NoticeKind, NoticeRecord, texts_cut
from kernel.vocabulary.statuses import TenderStatus

_RECORD_FIELDS = tuple(f.name for f in fields(NoticeRecord) if f.name != "payload")


def _plain(value):
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Lot | Award | Deadline):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    return value


def record_to_json(record: NoticeRecord) -> dict:
    """JSON-ready dict of a record (hand-written: dataclasses.asdict deep-copies and is 10x slower)."""
    data = {name: _plain(getattr(record, name)) for name in _RECORD_FIELDS}
    data["payload"] = record.payload
    return data


def _datetime(raw) -> datetime | None:
    return datetime.fromisoformat(raw) if raw else None


def _date(raw) -> date | None:
    return date.fromisoformat(raw[:10]) if raw else None


def _decimal(raw) -> Decimal | None:
    return Decimal(raw) if raw is not None else None


def _lot_from_json(lot: dict) -> Lot:
    return Lot(
        lot_id=lot.get("lot_id", ""),
        title=lot.get("title", ""),
        cpv_codes=tuple(lot.get("cpv_codes") or ()),
        estimated_value=_decimal(lot.get("estimated_value")),
        submission_deadline=_datetime(lot.get("submission_deadline")),
        town=lot.get("town", ""),
        postal_code=lot.get("postal_code", ""),
        nuts_codes=tuple(lot.get("nuts_codes") or ()),
    )


def _award_from_json(award: dict) -> Award:
    return Award(
        lot_id=award.get("lot_id", ""),
        status=AwardStatus(award.get("status", AwardStatus.AWARDED)),
        supplier_name=award.get("supplier_name", ""),
        supplier_id=award.get("supplier_id", ""),
        supplier_town=award.get("supplier_town", ""),
        supplier_country=award.get("supplier_country", ""),
        value=_decimal(award.get("value")),
        currency=award.get("currency", ""),
        tenders_received=award.get("tenders_received"),
        date=_date(award.get("date")),
    )


def record_from_json(data: dict) -> NoticeRecord:
    """The record stored by ``record_json``; versions stored before a field existed get its default."""
    names = {f.name for f in fields(NoticeRecord)}
    values = {key: value for key, value in data.items() if key in names}
    for key in ("published_at", "submission_deadline", "questions_deadline"):
        values[key] = _datetime(values.get(key))
    for key in ("contract_start", "contract_end"):
        values[key] = _date(values.get(key))
    values["estimated_value"] = _decimal(values.get("estimated_value"))
    for key in ("referenced_notice_ids", "portal_references", "cpv_codes", "nuts_codes", "suppliers"):
        values[key] = tuple(values.get(key) or ())
    values["lots"] = tuple(_lot_from_json(lot) for lot in values.get("lots") or ())
    values["awards"] = tuple(_award_from_json(award) for award in values.get("awards") or ())
    values["deadlines"] = tuple(
        Deadline(kind=d["kind"], at=datetime.fromisoformat(d["at"]), lot_id=d.get("lot_id", ""))
        for d in values.get("deadlines") or ()
    )
    values["kind"] = NoticeKind(values.get("kind", NoticeKind.CONTRACT_NOTICE))
    values["status"] = TenderStatus(values.get("status", TenderStatus.ACTIVE))
    return NoticeRecord(**values)


def str_or_none(value) -> str | None:
    """A Decimal as its text (JSON keeps it exact); None stays None."""
    return None if value is None else str(value)


def json_default(value):
    """orjson's fallback for the one type our documents hold that JSON lacks: Decimal, as exact text."""
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# The origin says which adapter read the notice, not what the notice says: it stays out of the hash,
# so stating it does not make every stored version look changed.
_record_content = attrgetter(*(name for name in _RECORD_FIELDS if name != "origin"))


def record_json(record: NoticeRecord) -> str:
    """The stored form of a record (same document as ``record_to_json``), serialised in one pass.

    orjson writes the dataclass directly, several times faster than building a dict and
    ``json.dumps``-ing it. It refuses what it cannot encode exactly (integers beyond 64 bits,
    lone surrogates from hostile input); such a record takes the standard-library path, with
    lone surrogates replaced so PostgreSQL's jsonb accepts the document.
    """
    try:
        return orjson.dumps(record, default=json_default).decode()
    except orjson.JSONEncodeError:
        text = json.dumps(record_to_json(record), ensure_ascii=False, default=str)
        return text.encode("utf-8", "replace").decode("utf-8")


def content_hash(record: NoticeRecord) -> str:
    """Hash of everything a notice says (not the raw payload): equal hash = nothing new."""
    return sha256_json(_record_content(record))


def sha256_json(values: tuple) -> str:
    """SHA-256 of values serialised as JSON: orjson, or the standard library for what orjson refuses."""
    return hashlib.sha256(_json_bytes(values)[0]).hexdigest()


def _json_bytes(value) -> tuple[bytes, bool]:
    """``value`` as JSON, and whether it holds what PostgreSQL cannot store (NUL, lone surrogates)."""
    try:
        data = orjson.dumps(value, default=json_default)
    except orjson.JSONEncodeError:  # lone surrogates (or huge integers): the escaped form, still deterministic
        data = json.dumps(value, ensure_ascii=True, cls=_FallbackEncoder).encode()
        return data, b"\\u0000" in data or b"\\ud" in data
    return data, b"\\u0000" in data


def record_storable(record: NoticeRecord) -> tuple[NoticeRecord, str]:
    """The record as PostgreSQL can store it, and its content hash.

    PostgreSQL text and jsonb hold neither NUL characters nor lone surrogates, and hostile
    feeds send both (in ids, links, payloads): NUL is dropped, a lone surrogate becomes "?".
    Identifiers longer than their columns are shortened by ``fit_identifier``; placeholder
    dates (year 9999 …), implausible amounts and CPV codes that are not eight digits are dropped, and overlong
    texts cut (``kernel.records.TEXT_LIMITS``), and links that are not http(s) with a host emptied,
    whichever adapter built the record. One such
    notice must not fail the whole batch it arrives in. A clean record (the normal case) is
    returned as it is; the check rides on the hash serialisation.
    """
    data, dirty = _json_bytes(_record_content(record))
    if not dirty and record.payload:
        dirty = _json_bytes(record.payload)[1]
    if dirty:
        record = _scrubbed(record)
    fitted = _fitted(record)
    if dirty or fitted is not record:
        record = fitted
        data = _json_bytes(_record_content(record))[0]
    return record, hashlib.sha256(data).hexdigest()


# Column sizes of the identifiers a record writes (tenders.models; a test keeps them in step).
IDENTIFIER_LIMITS = {"source_notice_id": 200, "ocid": 120, "procedure_id": 120, "version": 10}
_IDENTIFIER_LIMITS = tuple(IDENTIFIER_LIMITS.items())
PORTAL_REFERENCE_LIMIT = 200


def fit_identifier(value: str, limit: int) -> str:
    """An over-long identifier shortened to ``limit`` without losing its identity.

    Cutting alone could make two different ids equal (a false merge); the cut keeps a
    hash of the whole id, so equal ids stay equal and different ones stay different.
    """
    if len(value) <= limit:
        return value
    digest = hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()
    keep = max(0, limit - 17)
    return f"{value[:keep]}~{digest[: limit - keep - 1]}"


_DATE_FIELDS = ("published_at", "submission_deadline", "questions_deadline")
VALUE_LIMIT = Decimal(10) ** 16  # numeric(18, 2); an implausible figure is worse than none


def plausible_value(value: Decimal | None) -> Decimal | None:
    """A finite amount in [0, VALUE_LIMIT), else None (the column refuses the rest)."""
    if value is None or not value.is_finite() or not (0 <= value < VALUE_LIMIT):
        return None
    return value


_TEXT_LIMITS = tuple(TEXT_LIMITS.items())
_MEMO_MAX_CHARS = 100  # towns, phone numbers and buyer ids repeat across a feed


@short_text_memo(max_chars=_MEMO_MAX_CHARS, maxsize=8192)
def _placeholder(text: str) -> bool:
    """Whether ``text`` only stands in for a value (``without_placeholder`` changes it)."""
    return without_placeholder(text) != text


@short_text_memo(max_chars=_MEMO_MAX_CHARS, maxsize=8192)
def _implausible_buyer_id(value: str) -> bool:
    return not plausible_buyer_id(value)


def _placeholder_value(award: Award) -> bool:
    return award.value is not None and (placeholder_amount(award.value) or plausible_value(award.value) is None)


def _placeholder_award(award: Award) -> bool:
    return _placeholder_value(award) or bool(award.supplier_id and _implausible_buyer_id(award.supplier_id))


def _without_placeholders(award: Award) -> Award:
    changes: dict = {}
    if _placeholder_value(award):
        changes.update(value=None, currency="")
    if award.supplier_id and _implausible_buyer_id(award.supplier_id):
        changes["supplier_id"] = ""  # "--", "-", "n/a": an identifier has digits
    return dataclasses.replace(award, **changes)


def _with_stray_full_stop(town: str) -> bool:
    """ "Berlin." from a free-text line, but not "Frankfurt a. M." nor "Halle a.d.S.": the last word's own dot."""
    if not town.endswith("."):
        return False
    last = town.rsplit(" ", 1)[-1]
    return len(last) > 3 and "." not in last[:-1]


def _fitted(record: NoticeRecord) -> NoticeRecord:
    # Plain checks first, one statement each: nearly every record passes all of them unchanged.
    for name, limit in _TEXT_LIMITS:
        if len(getattr(record, name)) > limit:
            record = texts_cut(record)
            break
    changes: dict = {}
    for name in _DATE_FIELDS:
        if (value := getattr(record, name)) is not None and plausible_datetime(value) is None:
            changes[name] = None
    for name, limit in _IDENTIFIER_LIMITS:
        if (value := getattr(record, name)) and len(value) > limit:
            changes[name] = fit_identifier(value, limit)
    # Links that are not http(s) with a host never reach a template (adapter runs record them as problems).
    for name in LINK_FIELDS:
        if value := getattr(record, name):
            if "&amp;" in value:  # escaped twice at the source ("&amp;amp;" in the XML): a broken link as it stands
                value = changes[name] = value.replace("&amp;", "&")
            if not safe_link(value):
                changes[name] = ""
    if record.estimated_value is not None and (
        plausible_value(record.estimated_value) is None or placeholder_amount(record.estimated_value)
    ):
        changes["estimated_value"] = None
    _placeholders_dropped(record, changes)
    if not all(len(code) == 8 and code.isdigit() for code in record.cpv_codes):  # e.g. "45000000-7" unnormalised
        changes["cpv_codes"] = tuple(code for code in record.cpv_codes if len(code) == 8 and code.isdigit())
    if record.portal_references and max(map(len, record.portal_references)) > PORTAL_REFERENCE_LIMIT:
        changes["portal_references"] = tuple(
            fit_identifier(ref, PORTAL_REFERENCE_LIMIT) for ref in record.portal_references
        )
    return record.replace(**changes) if changes else record


def _placeholders_dropped(record: NoticeRecord, changes: dict) -> None:
    """Stand-in values ("1 EUR", "Standort der beauftragten Firma", a buyer id "-") are no values."""
    for name in ("town", "buyer_town", "buyer_phone"):
        value = getattr(record, name)
        if value and (_placeholder(value) or (name == "buyer_phone" and not value.strip("0 "))):
            changes[name] = ""
        elif name != "buyer_phone" and value and _with_stray_full_stop(value):
            changes[name] = value[:-1].rstrip()
    if record.buyer_id and _implausible_buyer_id(record.buyer_id):
        changes["buyer_id"] = ""
    # The tuples are rebuilt only when one entry changes (rarely): a clean record keeps its own.
    if any(map(_placeholder_award, record.awards)):
        changes["awards"] = tuple(
            _without_placeholders(award) if _placeholder_award(award) else award for award in record.awards
        )
    if any(lot.town and _placeholder(lot.town) for lot in record.lots):
        changes["lots"] = tuple(
            dataclasses.replace(lot, town="") if lot.town and _placeholder(lot.town) else lot for lot in record.lots
        )


def _scrubbed(record: NoticeRecord) -> NoticeRecord:
    changes = {}
    for name in (*_RECORD_FIELDS, "payload"):
        value = getattr(record, name)
        cleaned = _scrub(value)
        if cleaned is not value:
            changes[name] = cleaned
    return record.replace(**changes) if changes else record


def _scrub(value):
    """``value`` with NUL dropped and lone surrogates replaced in every string; the same object if clean."""
    if isinstance(value, str):
        cleaned = value.replace("\x00", "")
        try:
            cleaned.encode("utf-8")
        except UnicodeEncodeError:
            cleaned = cleaned.encode("utf-8", "replace").decode("utf-8")
        return value if cleaned == value else cleaned
    if isinstance(value, tuple | list):
        items = [_scrub(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    if isinstance(value, dict):
        pairs = [(_scrub(key), _scrub(item)) for key, item in value.items()]
        if all(k is old_k and v is old_v for (k, v), (old_k, old_v) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    if isinstance(value, Lot | Award | Deadline):
        cleaned = {f.name: _scrub(getattr(value, f.name)) for f in fields(value)}
        if all(item is getattr(value, name) for name, item in cleaned.items()):
            return value
        return dataclasses.replace(value, **cleaned)
    return value


class _FallbackEncoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, Lot | Award | Deadline):
            return [getattr(o, f.name) for f in fields(o)]
        if isinstance(o, datetime | date):
            return o.isoformat()
        if isinstance(o, Decimal):
            return str(o)
        return super().default(o)
