"""Compiling stored tenders again from their stored notice versions, after the compile rules changed.

The ingest compiles every tender it touches; this is for the others - e.g. after source precedence
per field came in, so that lineage and conflicts exist for every tender and a weaker source's values
give way to the official notice's. Each batch is one transaction under the ingest lock, so it never
races an ingest; a tender whose compiled content is unchanged is not written, so a rerun is cheap.
Tracked changes (a title or deadline that now comes from the official notice) are handed off to
matching like an ingest's, so a tenant sees them once, as changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from tenders.bulk import staged_update
from tenders.handoff import delta_hand_off
from tenders.merging import compile_tender, latest_versions, state_changes
from tenders.services.ingest import IngestDelta, lock_ingest
from tenders.services.ingest_reads import records_of_tenders, tender_states
from tenders.services.rows import JSON_STATE_FIELDS, STATE_FIELDS, state_values


@dataclass(frozen=True)
class RecompileProgress:
    done: int  # tenders looked at so far
    total: int  # tenders with an id above the start when the run began
    updated: int  # rows whose compiled content changed
    changed: int  # of those, rows with a tracked change handed off to matching
    last_id: int  # resume with --after-id this


def tenders_recompile(
    *,
    batch_size: int = 1000,
    after_id: int = 0,
    now: datetime | None = None,
    progress: Callable[[RecompileProgress], None] | None = None,
) -> RecompileProgress:
    """Compile every tender with an id above ``after_id`` from its stored versions; write what differs."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM tenders_tender WHERE id > %s", [after_id])
        total = cursor.fetchone()[0]
    state = RecompileProgress(done=0, total=total, updated=0, changed=0, last_id=after_id)
    while True:
        with transaction.atomic():
            lock_ingest()
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT id FROM tenders_tender WHERE id > %s ORDER BY id LIMIT %s", [state.last_id, batch_size]
                )
                ids = [row[0] for row in cursor.fetchall()]
            if not ids:
                break
            updated, changed = _recompile_batch(ids, now=now or timezone.now())
        state = RecompileProgress(
            done=state.done + len(ids),
            total=total,
            updated=state.updated + updated,
            changed=state.changed + changed,
            last_id=ids[-1],
        )
        if progress is not None:
            progress(state)
    return state


def _recompile_batch(ids: list[int], *, now: datetime) -> tuple[int, int]:
    history = records_of_tenders(tender_ids=ids)
    old_rows = tender_states(tender_ids=ids)
    quiet, tracked_rows, tracked = [], [], {}
    for tender_id in ids:
        records = history.get(tender_id)
        if not records:
            continue  # a tender without versions is left as it is (none exist; the split keeps one per tender)
        compiled = compile_tender(latest_versions(records), now=now)
        values = state_values(state=compiled)
        old = old_rows[tender_id]
        if values[-1] == old["content_hash"]:
            continue
        changes = state_changes(old, compiled)
        if changes:
            tracked[tender_id] = changes
            tracked_rows.append([tender_id, *values, now])
        else:
            quiet.append([tender_id, *values])
    # Only a tracked change moves "zuletzt geändert"; new lineage or a recorded conflict does not.
    if quiet:
        staged_update(
            table="tenders_tender",
            key="id",
            columns=["id", *STATE_FIELDS],
            rows=quiet,
            json_columns=list(JSON_STATE_FIELDS),
        )
    if tracked_rows:
        staged_update(
            table="tenders_tender",
            key="id",
            columns=["id", *STATE_FIELDS, "changed_at"],
            rows=tracked_rows,
            json_columns=list(JSON_STATE_FIELDS),
        )
        delta_hand_off(IngestDelta(changed=tracked), now=now)
    return len(quiet) + len(tracked_rows), len(tracked_rows)


__all__ = ["RecompileProgress", "tenders_recompile"]
