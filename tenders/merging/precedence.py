"""Which notice a tender's field is taken from, where sources disagree, and where each value came from.

The rule (documented in ``kernel.vocabulary.provenance`` and docs/architecture.md): a field takes the
value of the strongest source that states it - official notice > portal detail page > portal list row
> feed item > alert mail - and within one rank the newest version (notice order: prior information
< contract notice < change < award < cancellation, then publication time, then version). A weaker
source fills a gap and never overrides. Where a weaker source states something else for a field a
bidder acts on, the tender keeps the disagreement as a *conflict* (both values, both sources), and
for every field a *lineage* entry says which notice version its value came from.

Pure: records in, plain values out. ``compile_tender`` calls ``Lineage.pick`` for every field.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.provenance import origin_of, origin_rank
from kernel.vocabulary.time_zone import BERLIN
from tenders.merging.identity import normalise_name, version_key

KIND_RANK = {
    NoticeKind.PRIOR_INFORMATION: 0,
    NoticeKind.CONTRACT_NOTICE: 1,
    NoticeKind.CHANGE: 2,
    NoticeKind.AWARD: 3,
    NoticeKind.CANCELLATION: 4,
}
_EPOCH = datetime(1970, 1, 1, tzinfo=BERLIN)
_RESULT_KINDS = (NoticeKind.AWARD, NoticeKind.CANCELLATION)

# Fields a bidder acts on: a weaker source stating something else for one of these is recorded.
CONFLICT_FIELDS = ("title", "buyer_name", "submission_deadline", "estimated_value", "postal_code", "town", "bundesland")


def notice_order(record: NoticeRecord) -> tuple:
    """Newest last, within one source rank. Change notices override the notice they change even when
    another platform republished the original later (TED lags DÖE by days); awards and cancellations last."""
    return (KIND_RANK[record.kind], record.published_at or _EPOCH, version_key(record.version), record.source)


def strength(record: NoticeRecord) -> tuple:
    """Strongest last: the source's rank first, then notices that describe the tender before result notices
    (an award notice's title is kept only where nothing else states one), then the notice order."""
    return (origin_rank(record), record.kind not in _RESULT_KINDS, *notice_order(record))


def stated(value) -> bool:
    # Truthy first: most values are; Decimal("0") and False still count as stated.
    return bool(value) or (value is not None and value != "" and value != ())


def reference(record: NoticeRecord) -> dict:
    """A notice version as lineage and conflicts name it."""
    return {
        "source": record.source,
        "notice_id": record.source_notice_id,
        "version": record.version,
        "kind": str(record.kind),
        "origin": str(origin_of(record)),
        "published_at": record.published_at.isoformat() if record.published_at else None,
    }


def jsonable(value):
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


@dataclass
class Lineage:
    """Collects, while a tender is compiled, which record each field was taken from (by reference index)."""

    refs: list[dict] = field(default_factory=list)
    fields: dict[str, int] = field(default_factory=dict)
    chosen: dict[str, NoticeRecord] = field(default_factory=dict)
    _index: dict[int, int] = field(default_factory=dict)

    def ref(self, record: NoticeRecord) -> int:
        """The index of the record's reference, added on first use."""
        index = self._index.get(id(record))
        if index is None:
            index = self._index[id(record)] = len(self.refs)
            self.refs.append(reference(record))
        return index

    def note(self, name: str, record: NoticeRecord | None) -> None:
        if record is not None:
            self.fields[name] = self.ref(record)
            self.chosen[name] = record

    def pick(self, records: Sequence[NoticeRecord], attr: str, default: Any = "", *, name: str = "") -> Any:
        """The value of the strongest record (``records`` ordered by ``strength``) that states ``attr``."""
        for record in reversed(records):
            value = getattr(record, attr)
            if stated(value):
                self.note(name or attr, record)
                return value
        return default

    def union(self, records: Sequence[NoticeRecord], attr: str) -> tuple:
        """The items of every record of the strongest rank that states any: a weaker source adds none."""
        stating = [record for record in records if getattr(record, attr)]
        if not stating:
            return ()
        top = origin_rank(stating[-1])
        self.note(attr, stating[-1])
        return tuple(dict.fromkeys(item for r in stating if origin_rank(r) == top for item in getattr(r, attr)))

    def as_json(self) -> dict:
        return {"refs": self.refs, "fields": self.fields} if self.fields else {}


def _same_title(a: str, b: str) -> bool:
    # Lists and feeds shorten long titles ("Neubau der Grundschule …"): a cut-off prefix agrees.
    left, right = (" ".join(text.casefold().rstrip(" .…").split()) for text in (a, b))
    return left == right or (min(len(left), len(right)) >= 20 and (left.startswith(right) or right.startswith(left)))


def _same_deadline(chosen: datetime, other: datetime) -> bool:
    # A source that states only the day (midnight) agrees with any time on that day.
    if chosen == other:
        return True
    local = other.astimezone(BERLIN)
    return local.time() == datetime.min.time() and local.date() == chosen.astimezone(BERLIN).date()


_AGREE: dict[str, Callable[[Any, Any], bool]] = {
    "title": _same_title,
    "buyer_name": lambda a, b: normalise_name(a) == normalise_name(b),
    "submission_deadline": _same_deadline,
    "estimated_value": lambda a, b: a.compare(b) == 0,
    "town": lambda a, b: " ".join(a.casefold().split()) == " ".join(b.casefold().split()),
}


def conflicts(lineage: Lineage, candidates: dict[str, Sequence[NoticeRecord]]) -> tuple[dict, ...]:
    """Disagreements of weaker sources with the chosen value, one per (field, source): the newest value
    that source states. Records of the chosen record's rank or above never conflict with it - within
    a rank the newest version simply replaces the older one."""
    found = []
    for name in CONFLICT_FIELDS:
        chosen = lineage.chosen.get(name)
        if chosen is None:
            continue
        value, rank = getattr(chosen, name), origin_rank(chosen)
        agree = _AGREE.get(name, lambda a, b: a == b)
        newest: dict[str, NoticeRecord] = {}
        for record in candidates[name]:
            if origin_rank(record) < rank and stated(getattr(record, name)):
                newest[record.source] = record  # candidates are in strength order: the last one is the newest
        for record in newest.values():
            other = getattr(record, name)
            if not agree(value, other):
                found.append(
                    {
                        "field": name,
                        "value": jsonable(other),
                        "ref": lineage.ref(record),
                        "chosen": jsonable(value),
                        "chosen_ref": lineage.fields[name],
                    }
                )
    return tuple(found)
