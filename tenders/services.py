"""Writes to the tender table: the batch ingest every source goes through, and the operator's split.

One batch = one transaction under one advisory lock, so concurrent runs of the
same export serialise instead of creating duplicates; all reads and writes
are set-based (a fixed number of statements per batch, whatever its size).
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

import tenders.lookups  # noqa: F401  (registers __any)
from sources.records import NoticeRecord
from tenders.bulk import copy_rows, next_ids, staged_update, staged_upsert
from tenders.merging import (
    TenderState,
    compile_tender,
    content_hash,
    latest_versions,
    record_from_json,
    record_json,
    state_changes,
    traits_of,
    version_key,
)
from tenders.models import MergeRule, Tender, TenderSource, TenderVersion
from tenders.resolution import Assignment, FingerprintCandidate, Lookups, keys_of, resolve

logger = logging.getLogger(__name__)

INGEST_LOCK_ID = 0x7E4D3B01  # pg_advisory_xact_lock key of the ingest critical section


@dataclass(frozen=True)
class IngestDelta:
    """What one batch did; matching consumes ``created`` and ``changed``."""

    created: tuple[int, ...] = ()
    changed: dict[int, dict[str, list]] = field(default_factory=dict)  # tracked changes per tender
    updated: tuple[int, ...] = ()  # content changed, nothing tracked (e.g. a new source attached)
    unchanged: int = 0
    new_versions: int = 0

    @property
    def touched(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys((*self.created, *self.changed, *self.updated)))

    def merged_with(self, other: IngestDelta) -> IngestDelta:
        changed = {**self.changed}
        for tender_id, changes in other.changed.items():
            changed[tender_id] = {**changed.get(tender_id, {}), **changes}
        return IngestDelta(
            created=tuple(dict.fromkeys((*self.created, *other.created))),
            changed=changed,
            updated=tuple(dict.fromkeys((*self.updated, *other.updated))),
            unchanged=self.unchanged + other.unchanged,
            new_versions=self.new_versions + other.new_versions,
        )


def fingerprint_rule_enabled() -> bool:
    """Cross-portal fingerprint merging only makes sense while at least two sources deliver."""
    from sources.models import Source

    return Source.objects.filter(is_active=True).count() >= 2


_STATE_FIELDS = (
    "ocid",
    "procedure_id",
    "title",
    "description",
    "buyer_name",
    "buyer_id",
    "procedure_type",
    "status",
    "cpv_codes",
    "cpv_divisions",
    "cpv_prefixes",
    "cpv_labels",
    "nuts_codes",
    "bundesland",
    "postal_code",
    "town",
    "country",
    "estimated_value",
    "currency",
    "published_at",
    "submission_deadline",
    "questions_deadline",
    "lots",
    "documents_url",
    "portal_references",
    "suppliers",
    "fingerprint",
    "content_hash",
)


_MAX_VALUE = 10**16  # numeric(18, 2); an implausible figure is worse than none


def _state_values(state: TenderState) -> list:
    """The Tender columns of ``_STATE_FIELDS``, in that order, clipped to the column sizes."""
    value = state.estimated_value
    return [
        state.ocid,
        state.procedure_id,
        state.title,
        state.description,
        (state.buyer_name or "")[:500],
        (state.buyer_id or "")[:200],
        state.procedure_type,
        state.status,
        list(state.cpv_codes),
        list(state.cpv_divisions),
        list(state.cpv_prefixes),
        state.cpv_labels,
        [code[:5] for code in state.nuts_codes],
        (state.bundesland or "")[:40],
        state.postal_code[:5],
        (state.town or "")[:200],
        state.country[:3],
        value if value is None or abs(value) < _MAX_VALUE else None,
        state.currency[:3],
        state.published_at,
        state.submission_deadline,
        state.questions_deadline,
        list(state.lots),
        (state.documents_url or "")[:2000],
        list(state.portal_references),
        [s[:500] for s in state.suppliers],
        state.fingerprint,
        state.content_hash(),
    ]


def _state_row(state: TenderState) -> dict:
    return dict(zip(_STATE_FIELDS, _state_values(state), strict=True))


def _dedupe(records: Sequence[NoticeRecord]) -> list[NoticeRecord]:
    unique: dict[tuple[str, str, str], NoticeRecord] = {}
    for record in records:
        unique[(record.source, record.source_notice_id, record.version)] = record
    return list(unique.values())


def _load_known_versions(records) -> dict[tuple[str, str, str], tuple[str, int]]:
    if not records:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT v.source, v.source_notice_id, v.version, v.content_hash, v.tender_id
            FROM tenders_tenderversion v
            JOIN unnest(%s::text[], %s::text[], %s::text[]) AS k(source, notice, version)
              ON v.source = k.source AND v.source_notice_id = k.notice AND v.version = k.version
            """,
            [[r.source for r in records], [r.source_notice_id for r in records], [r.version for r in records]],
        )
        return {(s, n, v): (h, t) for s, n, v, h, t in cursor.fetchall()}


def _load_lookups(records: Sequence[NoticeRecord], keys, *, use_fingerprint: bool) -> Lookups:
    lookups = Lookups()
    ocids = sorted({k.ocid for k in keys if k.ocid})
    procedure_ids = sorted({k.procedure_id for k in keys if k.procedure_id})
    notice_ids = sorted({ref for k in keys for ref in k.references} | {r.source_notice_id for r in records})
    portal_refs = sorted({ref for k in keys for ref in k.portal_references})

    source_rows = TenderSource.objects.filter(source_notice_id__any=notice_ids).values_list(
        "source", "source_notice_id", "tender_id"
    )
    for source, notice_id, tender_id in source_rows:
        lookups.by_source_notice[(source, notice_id)] = tender_id
        lookups.by_notice_id.setdefault(notice_id, tender_id)
    if ocids:
        for ocid, tender_id in TenderSource.objects.filter(ocid__any=ocids).values_list("ocid", "tender_id"):
            lookups.by_ocid.setdefault(ocid, tender_id)
    if procedure_ids:
        rows = TenderSource.objects.filter(procedure_id__any=procedure_ids).values_list("procedure_id", "tender_id")
        for procedure_id, tender_id in rows:
            lookups.by_procedure_id.setdefault(procedure_id, tender_id)
    if portal_refs:
        rows = Tender.objects.filter(portal_references__overlap=portal_refs).values_list("id", "portal_references")
        for tender_id, refs in rows:
            for ref in refs:
                lookups.by_portal_reference.setdefault(ref, tender_id)
    fingerprints = sorted({k.fingerprint for k in keys if k.fingerprint})
    if use_fingerprint and fingerprints:
        rows = list(
            Tender.objects.filter(fingerprint__any=fingerprints).values_list(
                "id", "fingerprint", "cpv_codes", "submission_deadline", "estimated_value"
            )
        )
        sources_of: dict[int, set[str]] = defaultdict(set)
        for tender_id, source in TenderSource.objects.filter(tender_id__any=[r[0] for r in rows]).values_list(
            "tender_id", "source"
        ):
            sources_of[tender_id].add(source)
        for tender_id, fp, cpv_codes, deadline, value in rows:
            lookups.by_fingerprint.setdefault(fp, []).append(
                FingerprintCandidate(
                    tender_id=tender_id,
                    traits=traits_of(cpv_codes=cpv_codes, deadline=deadline, value=value),
                    sources=frozenset(sources_of[tender_id]),
                )
            )
    return lookups


def _records_of_tenders(tender_ids) -> dict[int, list[NoticeRecord]]:
    grouped: dict[int, list[NoticeRecord]] = defaultdict(list)
    rows = TenderVersion.objects.filter(tender_id__any=list(tender_ids)).values_list("tender_id", "record")
    for tender_id, record in rows:
        grouped[tender_id].append(record_from_json(record))
    return grouped


def notices_ingest(
    *, records: Sequence[NoticeRecord], now: datetime | None = None, use_fingerprint: bool | None = None
) -> IngestDelta:
    """Merge a batch of parsed notices into the tender table; return what was created and changed.

    Idempotent: a notice version seen before with the same content only bumps
    ``last_seen_at``. Older versions arriving after newer ones are stored but
    never override them (see ``merging.latest_versions``).
    """
    now = now or timezone.now()
    records = _dedupe(records)
    if not records:
        return IngestDelta()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [INGEST_LOCK_ID])
        if use_fingerprint is None:
            use_fingerprint = fingerprint_rule_enabled()
        known = _load_known_versions(records)
        hashes = {id(r): content_hash(r) for r in records}
        fresh, seen_again = [], []
        for record in records:
            stored = known.get((record.source, record.source_notice_id, record.version))
            (seen_again if stored and stored[0] == hashes[id(record)] else fresh).append(record)
        _touch_seen(seen_again, now)
        if not fresh:
            return IngestDelta(unchanged=len(seen_again))

        keys = [keys_of(record) for record in fresh]
        lookups = _load_lookups(fresh, keys, use_fingerprint=use_fingerprint)
        assignments = resolve(fresh, lookups, use_fingerprint=use_fingerprint, keys=keys)
        existing_ids = {a.tender_id for a in assignments if a.tender_id is not None}
        old_rows = {
            row["id"]: row for row in Tender.objects.filter(id__any=list(existing_ids)).values("id", *_STATE_FIELDS)
        }
        history = _records_of_tenders(existing_ids)

        group_records: dict[int, list[NoticeRecord]] = defaultdict(list)
        for record, assignment in zip(fresh, assignments, strict=True):
            group_records[assignment.group].append(record)
        group_tender = _create_new_tenders(group_records, assignments, now)
        tender_of = [a.tender_id if a.tender_id is not None else group_tender[a.group] for a in assignments]

        source_ids = _upsert_sources(fresh, assignments, tender_of, now)
        created = tuple(sorted(set(group_tender.values())))
        changed, updated = _recompile(existing_ids, history, fresh, tender_of, old_rows, now)
        _insert_versions(fresh, tender_of, source_ids, hashes, changed, now, known=known)
        # New tenders were written with last_seen_at = now already; rewriting them would churn every index.
        _touch_tenders(existing_ids, now)
    return IngestDelta(
        created=created,
        changed=changed,
        updated=tuple(sorted(updated)),
        unchanged=len(seen_again),
        new_versions=len(fresh),
    )


def _create_new_tenders(group_records, assignments: list[Assignment], now) -> dict[int, int]:
    new_groups = sorted({a.group for a in assignments if a.tender_id is None})
    ids = next_ids(table="tenders_tender", count=len(new_groups))
    columns = ["id", *_STATE_FIELDS, "first_seen_at", "last_seen_at", "changed_at"]
    # A generator, so PostgreSQL builds the search vectors of earlier rows while later ones compile.
    rows = (
        [tender_id, *_state_values(compile_tender(group_records[group], now=now)), now, now, now]
        for tender_id, group in zip(ids, new_groups, strict=True)
    )
    copy_rows(table="tenders_tender", columns=columns, rows=rows, json_columns=["lots"])
    return dict(zip(new_groups, ids, strict=True))


_SOURCE_COLUMNS = [
    "id",
    "tender_id",
    "source",
    "source_notice_id",
    "ocid",
    "procedure_id",
    "url",
    "latest_version",
    "merge_rule",
    "first_seen_at",
    "last_seen_at",
]


def _upsert_sources(fresh, assignments, tender_of, now) -> dict[tuple[str, str], int]:
    """New (source, notice id) pairs are COPYed with reserved ids; known ones get one UPDATE … FROM."""
    existing = {
        (row["source"], row["source_notice_id"]): row
        for row in TenderSource.objects.filter(source_notice_id__any=list({r.source_notice_id for r in fresh})).values(
            *_SOURCE_COLUMNS
        )
    }
    rows: dict[tuple[str, str], dict] = {}
    for record, assignment, tender_id in zip(fresh, assignments, tender_of, strict=True):
        key = (record.source, record.source_notice_id)
        base = rows.get(key) or existing.get(key)
        versions = [record.version] + ([base["latest_version"]] if base else [])
        rows[key] = {
            "id": base["id"] if base else None,
            "tender_id": base["tender_id"] if base else tender_id,
            "source": record.source,
            "source_notice_id": record.source_notice_id,
            "ocid": record.ocid or (base["ocid"] if base else None),
            "procedure_id": record.procedure_id or (base["procedure_id"] if base else None),
            "url": (record.url or (base["url"] if base else ""))[:2000],
            "latest_version": max(versions, key=version_key),
            "merge_rule": base["merge_rule"] if base else (assignment.rule or MergeRule.NEW),
            "first_seen_at": base["first_seen_at"] if base else now,
            "last_seen_at": now,
        }
    new = [row for key, row in rows.items() if key not in existing]
    for row, pk in zip(new, next_ids(table="tenders_tendersource", count=len(new)), strict=True):
        row["id"] = pk
    copy_rows(
        table="tenders_tendersource", columns=_SOURCE_COLUMNS, rows=([r[c] for c in _SOURCE_COLUMNS] for r in new)
    )
    known = [row for key, row in rows.items() if key in existing]
    if known:
        columns = ["id", "ocid", "procedure_id", "url", "latest_version", "last_seen_at"]
        staged_update(
            table="tenders_tendersource", key="id", columns=columns, rows=([r[c] for c in columns] for r in known)
        )
    return {key: row["id"] for key, row in rows.items()}


def _recompile(existing_ids, history, fresh, tender_of, old_rows, now):
    incoming: dict[int, list[NoticeRecord]] = defaultdict(list)
    for record, tender_id in zip(fresh, tender_of, strict=True):
        if tender_id in existing_ids:
            incoming[tender_id].append(record)
    changed: dict[int, dict[str, list]] = {}
    updated: set[int] = set()
    to_update = []
    for tender_id, new_records in incoming.items():
        state = compile_tender(latest_versions([*history.get(tender_id, []), *new_records]), now=now)
        row = _state_row(state)
        old = old_rows[tender_id]
        if row["content_hash"] == old["content_hash"]:
            continue
        tracked = state_changes(old, state)
        if tracked:
            changed[tender_id] = tracked
        else:
            updated.add(tender_id)
        to_update.append([tender_id, *(row[name] for name in _STATE_FIELDS), now])
    if to_update:
        staged_update(
            table="tenders_tender",
            key="id",
            columns=["id", *_STATE_FIELDS, "changed_at"],
            rows=to_update,
            json_columns=["lots"],
        )
    return changed, updated


_VERSION_COLUMNS = [
    "tender_id",
    "tender_source_id",
    "source",
    "source_notice_id",
    "version",
    "kind",
    "published_at",
    "record",
    "content_hash",
    "changes",
    "seen_at",
]


def _insert_versions(fresh, tender_of, source_ids, hashes, changed, now, *, known) -> None:
    """New versions cannot conflict (checked under the ingest lock): plain COPY. Re-published ones are upserted."""

    def rows(pairs):
        for record, tender_id in pairs:
            yield [
                tender_id,
                source_ids[(record.source, record.source_notice_id)],
                record.source,
                record.source_notice_id,
                record.version,
                record.kind.value,
                record.published_at,
                record_json(record),
                hashes[id(record)],
                json.dumps(changed.get(tender_id, {}), ensure_ascii=False),
                now,
            ]

    new_pairs, republished = [], []
    for record, tender_id in zip(fresh, tender_of, strict=True):
        is_known = (record.source, record.source_notice_id, record.version) in known
        (republished if is_known else new_pairs).append((record, tender_id))
    copy_rows(table="tenders_tenderversion", columns=_VERSION_COLUMNS, rows=rows(new_pairs))
    if not republished:
        return
    staged_upsert(
        table="tenders_tenderversion",
        columns=_VERSION_COLUMNS,
        rows=rows(republished),
        conflict=["source", "source_notice_id", "version"],
        update=[
            "tender_id",
            "tender_source_id",
            "record",
            "content_hash",
            "changes",
            "seen_at",
            "kind",
            "published_at",
        ],
        returning=["id"],
    )


def _touch_seen(records, now) -> None:
    if not records:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH touched AS (
                UPDATE tenders_tendersource s SET last_seen_at = %s
                FROM unnest(%s::text[], %s::text[]) AS k(source, notice)
                WHERE s.source = k.source AND s.source_notice_id = k.notice
                RETURNING s.tender_id
            )
            UPDATE tenders_tender t SET last_seen_at = %s WHERE t.id IN (SELECT tender_id FROM touched)
            """,
            [now, [r.source for r in records], [r.source_notice_id for r in records], now],
        )


def _touch_tenders(tender_ids, now) -> None:
    Tender.objects.filter(id__any=list(tender_ids)).update(last_seen_at=now)


def tender_split_source(*, tender_source_id: int, now: datetime | None = None) -> Tender:
    """Move one wrongly merged source (with all its versions) into a tender of its own.

    The moved source keeps its (source, notice id), so later versions of it
    follow it to the new tender instead of merging back.
    """
    now = now or timezone.now()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [INGEST_LOCK_ID])
        moved = TenderSource.objects.select_for_update().get(pk=tender_source_id)
        old_tender_id = moved.tender_id
        if not TenderSource.objects.filter(tender_id=old_tender_id).exclude(pk=moved.pk).exists():
            raise ValueError("This source is the tender's only source; there is nothing to split off.")
        records = [record_from_json(r) for r in moved.versions.values_list("record", flat=True)]
        state = compile_tender(records, now=now)
        new_tender = Tender.objects.create(
            **_state_row(state), first_seen_at=moved.first_seen_at, last_seen_at=now, changed_at=now
        )
        moved.versions.update(tender=new_tender)
        TenderSource.objects.filter(pk=moved.pk).update(tender=new_tender, merge_rule=MergeRule.SPLIT)
        remaining = _records_of_tenders([old_tender_id])[old_tender_id]
        old_state = compile_tender(remaining, now=now)
        Tender.objects.filter(pk=old_tender_id).update(**_state_row(old_state), changed_at=now)
    return new_tender


def tenders_expire(*, now: datetime | None = None) -> int:
    """Active tenders whose submission deadline passed become expired (one UPDATE)."""
    now = now or timezone.now()
    return Tender.objects.filter(status="active", submission_deadline__lt=now).update(status="expired", changed_at=now)
