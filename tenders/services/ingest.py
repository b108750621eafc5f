"""The batch ingest every source goes through: parsed notices in, tenders, sources and versions out.

One batch = one transaction under one advisory lock, so concurrent runs of the
same export serialise instead of creating duplicates. A batch costs a fixed
number of statements whatever its size: reads with array parameters, writes
as COPY (rows that cannot conflict) or COPY into staging + one UPDATE/UPSERT.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from kernel.records import NoticeRecord
from tenders.bulk import copy_rows, cycle_collection_paused, interleaved, reserve_ids, staged_update, staged_upsert
from tenders.merging import compile_tender, latest_versions, record_storable, state_changes
from tenders.resolution import keys_of, resolve
from tenders.services.ingest_reads import known_versions, merge_lookups, records_of_tenders, tender_states
from tenders.services.rows import (
    JSON_STATE_FIELDS,
    SOURCE_COLUMNS,
    STATE_FIELDS,
    VERSION_COLUMNS,
    source_rows,
    state_values,
    version_row,
)

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


def lock_ingest() -> None:
    """Serialise every writer of the tender tables until the end of the current transaction."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [INGEST_LOCK_ID])


def _dedupe(records: Sequence[NoticeRecord]) -> list[NoticeRecord]:
    unique: dict[tuple[str, str, str], NoticeRecord] = {}
    for record in records:
        unique[(record.source, record.source_notice_id, record.version)] = record
    return list(unique.values())


@dataclass(frozen=True)
class _Recompiled:
    """Existing tenders whose compiled state changed: their new columns and what matching should know."""

    rows: list[list]
    changed: dict[int, dict[str, list]]
    updated: set[int]


def notices_ingest(
    *, records: Sequence[NoticeRecord], use_fingerprint: bool, now: datetime | None = None
) -> IngestDelta:
    """Merge a batch of parsed notices into the tender table; return what was created and changed.

    ``use_fingerprint`` switches the cross-portal fingerprint rule; callers decide it from the
    source configuration (``sources.selectors.fingerprint_rule_enabled``), which the ingest never reads.

    Idempotent: a notice version seen before with the same content only marks its source
    seen (``TenderSource.last_seen_at``; the tender row is not written). Older versions
    arriving after newer ones are stored but never override them (see ``merging.latest_versions``).
    """
    with cycle_collection_paused():
        return _ingest(records, now=now or timezone.now(), use_fingerprint=use_fingerprint)


def _ingest(records: Sequence[NoticeRecord], *, now: datetime, use_fingerprint: bool) -> IngestDelta:
    # Pure, before the lock: what PostgreSQL cannot store is scrubbed, and every record hashed.
    checked = [record_storable(record) for record in _dedupe(records)]
    if not checked:
        return IngestDelta()
    records = [record for record, _hash in checked]
    hashes = {id(record): content_hash for record, content_hash in checked}
    with transaction.atomic():
        lock_ingest()
        known = known_versions(records=records)
        fresh, seen_again = [], []
        for record in records:
            stored = known.get((record.source, record.source_notice_id, record.version))
            (seen_again if stored and stored[0] == hashes[id(record)] else fresh).append(record)
        _touch_seen(seen_again, now)
        if not fresh:
            return IngestDelta(unchanged=len(seen_again))

        keys = [keys_of(record) for record in fresh]
        lookups, known_sources = merge_lookups(records=fresh, keys=keys, use_fingerprint=use_fingerprint)
        assignments = resolve(fresh, lookups, use_fingerprint=use_fingerprint, keys=keys)
        existing_ids = {a.tender_id for a in assignments if a.tender_id is not None}
        group_records: dict[int, list[NoticeRecord]] = defaultdict(list)
        for record, assignment in zip(fresh, assignments, strict=True):
            group_records[assignment.group].append(record)
        new_groups = sorted({a.group for a in assignments if a.tender_id is None})
        new_sources = {(r.source, r.source_notice_id) for r in fresh} - known_sources.keys()
        ids = reserve_ids({"tenders_tender": len(new_groups), "tenders_tendersource": len(new_sources)})
        group_tender = dict(zip(new_groups, ids["tenders_tender"], strict=True))
        tender_of = [a.tender_id if a.tender_id is not None else group_tender[a.group] for a in assignments]
        sources = source_rows(
            fresh=fresh,
            assignments=assignments,
            tender_of=tender_of,
            known=known_sources,
            new_ids=iter(ids["tenders_tendersource"]),
            now=now,
        )
        recompiled = _recompile(existing_ids, fresh, tender_of, now)

        new_versions, republished = [], []
        prepare_versions = _prepare_versions(
            fresh, tender_of, sources, hashes, recompiled.changed, now, known=known, into=(new_versions, republished)
        )
        _write_new_tenders(group_tender, group_records, now, side_work=prepare_versions)
        _write_changed_tenders(recompiled.rows)
        _write_sources(sources, known=known_sources)
        _write_versions(new_versions, republished)
    return IngestDelta(
        created=tuple(sorted(group_tender.values())),
        changed=recompiled.changed,
        updated=tuple(sorted(recompiled.updated)),
        unchanged=len(seen_again),
        new_versions=len(fresh),
    )


def _recompile(existing_ids: set[int], fresh, tender_of, now) -> _Recompiled:
    """Compile every existing tender that got new notices from its stored history plus the new ones."""
    incoming: dict[int, list[NoticeRecord]] = defaultdict(list)
    for record, tender_id in zip(fresh, tender_of, strict=True):
        if tender_id in existing_ids:
            incoming[tender_id].append(record)
    if not incoming:
        return _Recompiled(rows=[], changed={}, updated=set())
    history = records_of_tenders(tender_ids=incoming)
    old_rows = tender_states(tender_ids=incoming)
    rows, changed, updated = [], {}, set()
    for tender_id, new_records in incoming.items():
        state = compile_tender(latest_versions([*history.get(tender_id, []), *new_records]), now=now)
        values = state_values(state=state)
        old = old_rows[tender_id]
        if values[-1] == old["content_hash"]:
            continue
        tracked = state_changes(old, state)
        if tracked:
            changed[tender_id] = tracked
        else:
            updated.add(tender_id)
        rows.append([tender_id, *values, now])
    return _Recompiled(rows=rows, changed=changed, updated=updated)


def _prepare_versions(fresh, tender_of, sources, hashes, changed, now, *, known, into) -> Iterator[None]:
    """Build the version rows one at a time (a generator, so the work can run while a COPY is in flight)."""
    new_versions, republished = into
    for record, tender_id in zip(fresh, tender_of, strict=True):
        row = version_row(
            record=record,
            tender_id=tender_id,
            source_id=sources[(record.source, record.source_notice_id)]["id"],
            content_hash=hashes[id(record)],
            changes=changed.get(tender_id, {}),
            now=now,
        )
        is_known = (record.source, record.source_notice_id, record.version) in known
        (republished if is_known else new_versions).append(row)
        yield None


def _write_new_tenders(group_tender: dict[int, int], group_records, now, *, side_work: Iterator[None]) -> None:
    # Compiled inside the COPY stream: PostgreSQL builds the search vectors of earlier rows meanwhile,
    # and the version rows are prepared while it catches up.
    rows = (
        [tender_id, *state_values(state=compile_tender(group_records[group], now=now)), now, now]
        for group, tender_id in group_tender.items()
    )
    copy_rows(
        table="tenders_tender",
        columns=["id", *STATE_FIELDS, "first_seen_at", "changed_at"],
        rows=interleaved(rows, side_work),
        json_columns=list(JSON_STATE_FIELDS),
    )


def _write_changed_tenders(rows: list[list]) -> None:
    if rows:
        staged_update(
            table="tenders_tender",
            key="id",
            columns=["id", *STATE_FIELDS, "changed_at"],
            rows=rows,
            json_columns=list(JSON_STATE_FIELDS),
        )


def _write_sources(sources: dict[tuple[str, str], dict], *, known: dict[tuple[str, str], dict]) -> None:
    """New (source, notice id) pairs are COPYed with reserved ids; known ones get one UPDATE … FROM."""
    new = (row for key, row in sources.items() if key not in known)
    copy_rows(table="tenders_tendersource", columns=SOURCE_COLUMNS, rows=([r[c] for c in SOURCE_COLUMNS] for r in new))
    columns = ["id", "ocid", "procedure_id", "url", "latest_version", "last_seen_at"]
    updates = [[row[c] for c in columns] for key, row in sources.items() if key in known]
    if updates:
        staged_update(table="tenders_tendersource", key="id", columns=columns, rows=updates)


def _write_versions(new_versions: list[list], republished: list[list]) -> None:
    """New versions cannot conflict (checked under the ingest lock): plain COPY. Re-published ones are upserted."""
    copy_rows(table="tenders_tenderversion", columns=VERSION_COLUMNS, rows=new_versions)
    if republished:
        staged_upsert(
            table="tenders_tenderversion",
            columns=VERSION_COLUMNS,
            rows=republished,
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


def _touch_seen(records: Sequence[NoticeRecord], now: datetime) -> None:
    if not records:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE tenders_tendersource s SET last_seen_at = %s
            FROM unnest(%s::text[], %s::text[]) AS k(source, notice)
            WHERE s.source = k.source AND s.source_notice_id = k.notice
            """,
            [now, [r.source for r in records], [r.source_notice_id for r in records]],
        )
