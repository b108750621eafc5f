"""Filling the tender table with N synthetic rows fast, for the benchmarks that read it (search, market).

The tender tables are emptied, the table's secondary indexes dropped, the rows COPYed by forked
processes (each part is ``load_part(part)``, returning how many rows it wrote), then the indexes
rebuilt once from their own definitions and the table analysed.
"""
# ruff: noqa: S608  (the table name is the benchmarks' own constant)

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable, Sequence

from django.db import connection, connections, models

from tenders.bulk import copy_rows
from tenders.models import Tender

TABLE = "tenders_tender"


def tenders_bulk_load(
    parts: Sequence[tuple], load_part: Callable[[tuple], int], *, rows: int, workers: int = 2, vacuum: bool = False
) -> tuple[float, float]:
    """Load ``rows`` rows in ``parts``; returns (seconds copying, seconds rebuilding indexes and analysing).

    ``vacuum``: VACUUM ANALYZE (a settled table, as after autovacuum) instead of a plain ANALYZE.
    """
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE tenders_tenderversion, tenders_tendersource, tenders_tender RESTART IDENTITY CASCADE")
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname NOT LIKE '%%pkey'", [TABLE]
        )
        indexes = cursor.fetchall()
        for name, _definition in indexes:
            cursor.execute(f'DROP INDEX IF EXISTS "{name}"')
    connections.close_all()  # forked children must not share the parent's socket
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        written = sum(pool.map(load_part, parts))
    if written != rows:
        raise RuntimeError(f"{written} rows loaded, {rows} expected")
    copied = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '1GB'")
        for _name, definition in indexes:
            cursor.execute(definition)
        cursor.execute(f"{'VACUUM ANALYZE' if vacuum else 'ANALYZE'} {TABLE}")
    return copied, time.perf_counter() - started - copied


def copy_part(*, columns: Sequence[str], json_columns: Sequence[str], rows: Iterable[tuple], count: int) -> int:
    """COPY one part's rows in a forked child; columns the generator leaves out get their model defaults."""
    connections.close_all()  # a forked child must not share the parent's socket
    others = _other_columns(columns)
    defaults = tuple(default for _column, default, _json in others)
    copy_rows(
        table=TABLE,
        columns=[*columns, *(column for column, _default, _json in others)],
        rows=((*row, *defaults) for row in rows),
        json_columns=(*json_columns, *(column for column, _default, is_json in others if is_json)),
    )
    connections.close_all()
    return count


def _other_columns(columns: Sequence[str]) -> list[tuple[str, object, bool]]:
    """(column, default, is JSON) of the tender columns not in ``columns`` (a column added later is filled too)."""
    return [
        (f.column, f.get_default(), isinstance(f, models.JSONField))
        for f in Tender._meta.concrete_fields
        if f.column not in columns and f.column != "id" and not f.generated
    ]


def part_bounds(rows: int, workers: int) -> list[tuple[int, int]]:
    """(start, count) of each part: four parts per worker, so a slow part does not hold the others up."""
    chunk = -(-rows // (workers * 4))
    return [(start, min(chunk, rows - start)) for start in range(0, rows, chunk)]
