"""Set-based writes through COPY: a staging table per statement, then one INSERT … ON CONFLICT or UPDATE … FROM.

Django's bulk_create interpolates every parameter client-side; for thousands of
rows with arrays and JSON that costs more than the database work. COPY streams
the rows instead. Table and column names come from our own models, never from
input, so the f-strings below are safe.
"""
# ruff: noqa: S608  (identifiers are our own model names; values always go through COPY or parameters)

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection
from psycopg.types.json import Jsonb


def _row(values: Sequence, json_columns: frozenset[int]) -> list:
    return [Jsonb(v) if i in json_columns else v for i, v in enumerate(values)]


def copy_rows(
    *, table: str, columns: Sequence[str], rows: Iterable[Sequence], json_columns: Iterable[str] = ()
) -> None:
    json_idx = frozenset(list(columns).index(c) for c in json_columns)
    with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for values in rows:
            copy.write_row(_row(values, json_idx))


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


def next_ids(*, table: str, count: int) -> list[int]:
    """Reserve ``count`` primary keys so rows can be COPYed with known ids."""
    if count == 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) FROM generate_series(1, %s)", [count])
        return [row[0] for row in cursor.fetchall()]
