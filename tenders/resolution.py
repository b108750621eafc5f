"""Pure merge-rule resolution: which tender does each incoming notice belong to?

Input: the batch of records and ``Lookups`` (what the database already knows,
loaded by the service in a handful of set-based queries). Output: for every
record either an existing tender id or a new-tender group, plus the rule that
attached it. A notice already known on its portal (same source notice id) stays
on the tender its source belongs to, so a later version never jumps tenders (an
operator's split holds). Otherwise, in order: OCID / procedure id → reference to
an earlier notice (any portal's notice id) → exact portal reference → fingerprint.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

from kernel.identifiers import canonical_publication_number
from kernel.records import NoticeRecord
from tenders.merging import FingerprintTraits, fingerprint, fingerprint_compatible, own_portal_references, traits_of


def strip_version_suffix(notice_id: str) -> str:
    """DÖE and eForms reference notices as ``<uuid>-01``; the id without version is what sources store."""
    head, sep, tail = notice_id.rpartition("-")
    if sep and tail.isdigit() and len(tail) == 2 and len(head) >= 32:
        return head
    return notice_id


@dataclass(frozen=True)
class RecordKeys:
    ocid: str | None
    procedure_id: str | None
    references: tuple[str, ...]
    portal_references: tuple[str, ...]
    fingerprint: str | None
    traits: FingerprintTraits


def keys_of(record: NoticeRecord) -> RecordKeys:
    references: tuple[str, ...] = ()
    if record.referenced_notice_ids:  # most notices reference none: no generators for them
        # "00615938-2024" and "615938-2024" are one TED publication number.
        refs = dict.fromkeys(
            canonical_publication_number(r) or strip_version_suffix(r) for r in record.referenced_notice_ids if r
        )
        references = tuple(r for r in refs if r != record.source_notice_id)
    return RecordKeys(
        ocid=record.ocid or None,
        procedure_id=record.procedure_id or None,
        references=references,
        portal_references=own_portal_references(record),
        fingerprint=fingerprint(buyer_name=record.buyer_name, title=record.title),
        traits=traits_of(cpv_codes=record.cpv_codes, deadline=record.submission_deadline, value=record.estimated_value),
    )


@dataclass(frozen=True)
class FingerprintCandidate:
    tender_id: int
    traits: FingerprintTraits
    sources: frozenset[str]


@dataclass
class Lookups:
    """Existing identities, each mapping a key to a tender id."""

    by_source_notice: dict[tuple[str, str], int] = field(default_factory=dict)
    by_ocid: dict[str, int] = field(default_factory=dict)
    by_procedure_id: dict[str, int] = field(default_factory=dict)
    by_notice_id: dict[str, int] = field(default_factory=dict)  # any source's notice id
    by_portal_reference: dict[str, int] = field(default_factory=dict)
    by_publication_number: dict[str, int] = field(default_factory=dict)  # a tender's notices' OJ S numbers
    # (fingerprint, source) -> stored tenders without a notice of that source, oldest first.
    by_fingerprint: dict[tuple[str, str], list[FingerprintCandidate]] = field(default_factory=dict)


@dataclass(frozen=True)
class Assignment:
    tender_id: int | None  # existing tender, or None for a new one
    group: int  # records with the same group end up on the same tender
    rule: str  # MergeRule value; "new" for the first record of a new tender


class _UnionFind:
    def __init__(self, size: int):
        self.parent = list(range(size))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _existing_match(record: NoticeRecord, keys: RecordKeys, lookups: Lookups, use_fingerprint: bool):
    known = lookups.by_source_notice.get((record.source, record.source_notice_id))
    if known is not None:
        return known, "source_notice_id"
    if keys.ocid and keys.ocid in lookups.by_ocid:
        return lookups.by_ocid[keys.ocid], "ocid"
    if keys.procedure_id and keys.procedure_id in lookups.by_procedure_id:
        return lookups.by_procedure_id[keys.procedure_id], "procedure_id"
    for ref in keys.references:
        if ref in lookups.by_notice_id:
            return lookups.by_notice_id[ref], "notice_reference"
        if ref in lookups.by_publication_number:
            return lookups.by_publication_number[ref], "notice_reference"
    for ref in keys.portal_references:
        if ref in lookups.by_portal_reference:
            return lookups.by_portal_reference[ref], "portal_reference"
    if use_fingerprint and keys.fingerprint:
        for candidate in lookups.by_fingerprint.get((keys.fingerprint, record.source), ()):
            # A portal does not publish one tender twice under two ids: never fingerprint-merge within a source.
            if record.source not in candidate.sources and fingerprint_compatible(keys.traits, candidate.traits):
                return candidate.tender_id, "fingerprint"
    return None, ""


def resolve(
    records: Sequence[NoticeRecord],
    lookups: Lookups,
    *,
    use_fingerprint: bool,
    keys: Sequence[RecordKeys] | None = None,
) -> list[Assignment]:
    """Assign every record to an existing tender or to a new-tender group (``keys``: precomputed keys_of)."""
    keys = list(keys) if keys is not None else [keys_of(record) for record in records]
    matches = [_existing_match(r, k, lookups, use_fingerprint) for r, k in zip(records, keys, strict=True)]
    uf = _UnionFind(len(records))
    link_rule: dict[int, str] = {}

    def link(index: int, first: dict, key, rule: str) -> None:
        if key is None:
            return
        if key in first:
            if uf.find(index) != uf.find(first[key]):
                link_rule.setdefault(index, rule)
            uf.union(first[key], index)
        else:
            first[key] = index

    # Records of one batch that share an identity become one tender, by the same rules.
    seen: dict[str, dict] = {name: {} for name in ("source_notice", "ocid", "procedure", "notice", "portal")}
    for i, (record, k) in enumerate(zip(records, keys, strict=True)):
        link(i, seen["source_notice"], (record.source, record.source_notice_id), "source_notice_id")
        link(i, seen["ocid"], k.ocid, "ocid")
        link(i, seen["procedure"], k.procedure_id, "procedure_id")
        own = (
            (record.source_notice_id, record.publication_number)
            if record.publication_number
            else (record.source_notice_id,)
        )
        for ref in (*own, *k.references):
            link(i, seen["notice"], ref, "notice_reference")
        for ref in k.portal_references:
            link(i, seen["portal"], ref, "portal_reference")
    if use_fingerprint:
        # Earlier records by fingerprint and source: only another source's record may join (see
        # _existing_match), so a batch of one portal's notices under one reused title is not
        # compared pair by pair. The first compatible record in batch order wins.
        by_fp: dict[str, dict[str, list[int]]] = {}
        for i, k in enumerate(keys):
            if k.fingerprint:
                by_source = by_fp.setdefault(k.fingerprint, {})
                source = records[i].source
                others = [indexes for other, indexes in by_source.items() if other != source]
                for j in heapq.merge(*others) if len(others) > 1 else others[0] if others else ():
                    if fingerprint_compatible(k.traits, keys[j].traits):
                        if uf.find(i) != uf.find(j):
                            link_rule.setdefault(i, "fingerprint")
                        uf.union(i, j)
                        break
                by_source.setdefault(source, []).append(i)

    # A group adopts the existing tender any of its members matched (the oldest, should several).
    group_tender: dict[int, int] = {}
    for i, (tender_id, _rule) in enumerate(matches):
        if tender_id is not None:
            root = uf.find(i)
            group_tender[root] = min(tender_id, group_tender.get(root, tender_id))
    assignments = []
    first_in_group: set[int] = set()
    for i in range(len(records)):
        root = uf.find(i)
        tender_id = group_tender.get(root)
        rule = matches[i][1] or link_rule.get(i, "")
        if tender_id is None and root not in first_in_group:
            first_in_group.add(root)
            rule = "new"
        elif not rule:
            rule = "new"
        assignments.append(Assignment(tender_id=tender_id, group=root, rule=rule))
    return assignments
