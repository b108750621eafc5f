"""Set-based writes through COPY: a staging table per statement, then one INSERT … ON CONFLICT or UPDATE … FROM.

Django's bulk_create interpolates every parameter client-side; for thousands of
rows with arrays and JSON that costs more than the database work. COPY streams
the rows instead. Table and column names come from our own models, never from
input, so the f-strings below are safe.
"""
# ruff: noqa: S608  (identifiers are our own model names; values always go through COPY or parameters)

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from django.db import connection

from tenders.copy_text import row_encoder

T = TypeVar("T")


_CHUNK = 1 << 16  # characters (about as many bytes) handed to the connection at a time


def copy_rows(
    *, table: str, columns: Sequence[str], rows: Iterable[Sequence], json_columns: Iterable[str] = ()
) -> None:
    """COPY ``rows`` (sequences in ``columns`` order) into ``table``; ``rows`` may be a generator.

    Lines are encoded by ``copy_text`` and sent in chunks as they are produced, so
    the server works through earlier rows while later ones are still being built.
    """
    columns = list(columns)
    encode = row_encoder(len(columns), frozenset(columns.index(c) for c in json_columns))
    with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        pending: list[str] = []
        size = 0
        for values in rows:
            line = encode(values)
            pending.append(line)
            size += len(line)
            if size >= _CHUNK:
                copy.write("".join(pending))
                pending, size = [], 0
        if pending:
            copy.write("".join(pending))


def _stage(*, table: str, columns: Sequence[str], rows, json_columns) -> str:
    staging = f"_staging_{table}"
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {staging}")
        cursor.execute(
            f"CREATE TEMP TABLE {staging} ON COMMIT DROP AS SELECT {', '.join(columns)} FROM {table} WITH NO DATA"
        )
    copy_rows(table=staging, columns=columns, rows=rows, json_columns=json_columns)
    return staging


def staged_upsert(
    *,
    table: str,
    columns: Sequence[str],
    rows: Iterable[Sequence],
    conflict: Sequence[str],
    update: Sequence[str],
    returning: Sequence[str],
    json_columns: Iterable[str] = (),
) -> list[tuple]:
    """INSERT … SELECT FROM staging ON CONFLICT (conflict) DO UPDATE SET update RETURNING returning."""
    staging = _stage(table=table, columns=columns, rows=rows, json_columns=json_columns)
    assignments = ", ".join(f"{c} = EXCLUDED.{c}" for c in update)
    action = f"DO UPDATE SET {assignments}" if update else "DO NOTHING"
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(columns)} FROM {staging} "
            f"ON CONFLICT ({', '.join(conflict)}) {action} RETURNING {', '.join(returning)}"
        )
        return cursor.fetchall()


def staged_update(
    *, table: str, key: str, columns: Sequence[str], rows: Iterable[Sequence], json_columns: Iterable[str] = ()
) -> int:
    """UPDATE table SET columns FROM staging WHERE table.key = staging.key; ``columns`` includes ``key``."""
    staging = _stage(table=table, columns=columns, rows=rows, json_columns=json_columns)
    assignments = ", ".join(f"{c} = s.{c}" for c in columns if c != key)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} t SET {assignments} FROM {staging} s WHERE t.{key} = s.{key}")
        return cursor.rowcount


def reserve_ids(counts: dict[str, int]) -> dict[str, list[int]]:
    """Reserve primary keys for several tables in one round trip, so rows can be COPYed with known ids."""
    tables = [table for table, count in counts.items() if count]
    reserved: dict[str, list[int]] = {table: [] for table in counts}
    if not tables:
        return reserved
    # The sequence is resolved once per table (MATERIALIZED): per row, pg_get_serial_sequence costs more than nextval.
    parts = [
        f"(WITH s AS MATERIALIZED (SELECT pg_get_serial_sequence('{table}', 'id')::regclass AS seq) "
        f"SELECT array_agg(nextval(s.seq)) FROM s CROSS JOIN generate_series(1, %s))"
        for table in tables
    ]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(parts)}", [counts[table] for table in tables])
        for table, ids in zip(tables, cursor.fetchone(), strict=True):
            reserved[table] = list(ids)
    return reserved


def interleaved(rows: Iterable[T], side_work: Iterator[object]) -> Iterator[T]:
    """``rows`` for a COPY, advancing ``side_work`` one step after each row and exhausting it at the end.

    Where PostgreSQL works harder per row than the client (search vectors, GIN
    entries), the client would otherwise idle until the COPY finishes; this
    spends that time preparing the next statement's rows.
    """
    for row in rows:
        yield row
        next(side_work, None)
    for _ in side_work:
        pass


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a batch builds its rows.

    A batch allocates tens of thousands of acyclic containers (rows, dicts, records); the
    collector would traverse them again and again (about a tenth of the batch's time) and find
    nothing. Whatever a batch does leave behind is collected once the collector is back on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
