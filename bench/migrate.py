"""Migrating tenants: ``migrate_schemas --executor=multiprocessing`` (docker-compose's migrate step) for N tenants.

Setup (not timed): the shared apps are migrated, then N tenants are registered the way a
database restored from an older release looks to the migrate step: a tenant row and an empty
schema each, nothing migrated yet. ``--tenants`` sets N (default 200).

Timed: ``manage.py migrate_schemas --tenant --executor=multiprocessing`` in a subprocess, as
docker-compose runs it (processes: ``TENANT_MULTIPROCESSING_MAX_PROCESSES``). Baseline: the
standard executor (one tenant after the other) on a sample of the tenants, extrapolated linearly
from its per-tenant time; each tenant's migrations are independent, so the sample's rate holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
BASELINE_SAMPLE = 5


def _register_tenants(count: int, *, prefix: str) -> None:
    from accounts.models import Tenant

    Tenant.objects.bulk_create(Tenant(schema_name=f"{prefix}{i:05d}", name=f"{prefix} {i}") for i in range(count))
    with connection.cursor() as cursor:
        cursor.execute("".join(f'CREATE SCHEMA "{prefix}{i:05d}";' for i in range(count)))


def _migrate(*, executor: str) -> float:
    command = [
        sys.executable,
        "manage.py",
        "migrate_schemas",
        "--tenant",
        "--noinput",
        f"--executor={executor}",
        "-v",
        "0",
    ]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=os.environ.copy(), check=True)
    return time.perf_counter() - start


def _migrated_schemas(prefix: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema LIKE %s AND table_name = %s",
            [f"{prefix}%", "notifications_tendermatch"],
        )
        return cursor.fetchone()[0]


def run(*, n: int | None, tenants: int | None = None) -> None:
    count = tenants or n or 200
    processes = settings.TENANT_MULTIPROCESSING_MAX_PROCESSES
    _register_tenants(count, prefix="mig_")
    connection.close()
    seconds = _migrate(executor="multiprocessing")
    if _migrated_schemas("mig_") != count:
        raise AssertionError("not every tenant schema was migrated")

    from accounts.models import Tenant

    Tenant.objects.filter(schema_name__startswith="mig_").delete()  # rows only; the schemas stay
    _register_tenants(BASELINE_SAMPLE, prefix="seq_")
    connection.close()
    sample = _migrate(executor="standard")
    if _migrated_schemas("seq_") != BASELINE_SAMPLE:
        raise AssertionError("not every sampled tenant schema was migrated")
    baseline_seconds = sample / BASELINE_SAMPLE * count
    print(f"{count} tenants, multiprocessing executor ({processes} processes, {os.cpu_count()} cores): {seconds:.0f}s")
    print(
        f"standard executor: {sample / BASELINE_SAMPLE:.1f}s per tenant on {BASELINE_SAMPLE} tenants, "
        f"{baseline_seconds:.0f}s extrapolated to {count}"
    )
    print(
        f"RESULT migrate tenants={count} processes={processes} seconds={seconds:.1f} "
        f"baseline_seconds={baseline_seconds:.1f} ratio={baseline_seconds / seconds:.2f}"
    )
