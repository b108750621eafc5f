"""Bringing stored tenders' search words up to date: CPV labels and compound parts.

The ingest writes both for every tender it touches; this is for the tenders
stored before the vocabulary or the splitter changed. It is safe while the
portal and the ingest run: it works in short batches by id, each its own
transaction, and writes a row only if its content is still what was read (a
tender the ingest rewrote in between already has fresh words).
"""
# ruff: noqa: S608  (table and column names are our own constants)

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import orjson
from django.db import connection, transaction

from kernel.records import Lot
from kernel.vocabulary.cpv import cpv_code_labels, cpv_labels_for
from tenders.bulk import copy_rows
from tenders.merging.compiling import compound_columns


@dataclass(frozen=True)
class ReindexProgress:
    done: int  # tenders looked at so far
    total: int  # tenders with an id above the start when the run began
    updated: int  # of those, rows whose words changed
    last_id: int  # resume with --after-id this


def tenders_reindex_search(
    *, batch_size: int = 2000, after_id: int = 0, progress: Callable[[ReindexProgress], None] | None = None
) -> ReindexProgress:
    """Recompute ``cpv_labels``, ``title_parts`` and ``search_parts`` of every tender with an id above ``after_id``.

    PostgreSQL recomputes the generated ``search_vector`` of each changed row. Also what a deploy runs after
    the rules for these words changed (so far: the compound parts of CPV labels, since issue 30 those of the
    codes' own labels only); until then a stored tender is found by its old words.
    Rows whose words are already current are not written, so a rerun is cheap.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM tenders_tender WHERE id > %s", [after_id])
        total = cursor.fetchone()[0]
    done = updated = 0
    last_id = after_id
    while True:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT id, title, description, lots, cpv_codes, cpv_labels, title_parts, search_parts, "
                    "content_hash FROM tenders_tender WHERE id > %s ORDER BY id LIMIT %s",
                    [last_id, batch_size],
                )
                rows = cursor.fetchall()
            if not rows:
                break
            changed = []
            for (
                tender_id,
                title,
                description,
                lots,
                cpv_codes,
                old_labels,
                old_title_parts,
                old_parts,
                content_hash,
            ) in rows:
                lots = orjson.loads(lots) if isinstance(lots, str) else lots  # raw cursors return jsonb as text
                labels = cpv_labels_for(cpv_codes or ())
                title_parts, parts = compound_columns(
                    title=title,
                    description=description,
                    lots=[Lot(lot_id=str(lot.get("lot_id", "")), title=lot.get("title") or "") for lot in lots or ()],
                    code_labels=cpv_code_labels(cpv_codes or ()),
                )
                if (labels, title_parts, parts) != (old_labels, old_title_parts, old_parts):
                    changed.append((tender_id, labels, title_parts, parts, content_hash))
            if changed:
                updated += _write(changed)
            done += len(rows)
            last_id = rows[-1][0]
        state = ReindexProgress(done=done, total=total, updated=updated, last_id=last_id)
        if progress is not None:
            progress(state)
    return ReindexProgress(done=done, total=total, updated=updated, last_id=last_id)


def _write(changed: list[tuple]) -> int:
    # content_hash guards against a concurrent ingest: its row is newer than what was read here.
    staging = "_staging_reindex"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {staging}")
        cursor.execute(
            f"CREATE TEMP TABLE {staging} ON COMMIT DROP AS "
            "SELECT id, cpv_labels, title_parts, search_parts, content_hash FROM tenders_tender WITH NO DATA"
        )

    columns = ("id", "cpv_labels", "title_parts", "search_parts", "content_hash")
    copy_rows(table=staging, columns=columns, rows=changed)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE tenders_tender t SET cpv_labels = s.cpv_labels, title_parts = s.title_parts, "
            f"search_parts = s.search_parts "
            f"FROM {staging} s WHERE t.id = s.id AND t.content_hash = s.content_hash"
        )
        return cursor.rowcount


__all__ = ["ReindexProgress", "tenders_reindex_search"]
