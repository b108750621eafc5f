"""The hand-off under a burst: T tenants × S saved searches, 12 ingest batches, coalesced vs one by one.

``python bench/run.py matching --tenants 2000 --searches 5 [--n BATCH]``

Setup (not timed):

* One template tenant is created the ordinary way (``Tenant.save()`` creates and migrates its
  schema) and gets an owner. Every further tenant is a clone of it: ``pg_dump --schema`` of the
  template (tables, indexes, constraints, sequences and the rows of ``django_migrations`` and the
  owner) with the schema name replaced, executed for each new schema, and a tenant row
  in ``accounts_tenant``. That is what django-tenants' ``TENANT_BASE_SCHEMA`` / ``clone_schema``
  does (its PL/pgSQL ``clone_schema`` function copies a schema object by object), at a fraction of
  the cost: the function takes seconds per schema, the replayed dump a few milliseconds.
* Each tenant gets its own S searches (``bench.matching._random_filters``, a third with instant
  alerts, so the round also writes outbox rows as a tenant's round does).
* Two bursts of 12 ingest batches (``--n`` new tenders each, default 200), as 12 sources
  arriving within a minute would write them: ``notices_ingest`` + ``delta_hand_off`` in one
  transaction per batch, so 12 durable ``TenderDelta`` rows per burst.

Timed, for every tenant in its schema: the task body ``deltas_match_pending`` —

* baseline, first burst, one by one: ``limit=1``, one round (transaction, lock, matching
  statement, completions) per delta, as a task per batch would do: 12 rounds per tenant;
* coalesced, second burst: the default limit, all 12 deltas in one round.

Each variant starts on a new database connection with an empty compiled-condition cache, so
neither inherits the other's warm caches. Afterwards every delta must be completed by every
tenant (``deltas_mark_completed``), or the benchmark fails.
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from datetime import timedelta

import psycopg
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from bench.matching import _random_filters
from bench.notices import synthetic_notices
from tenders.handoff import delta_hand_off, deltas_mark_completed
from tenders.models import TenderDelta
from tenders.services import notices_ingest

TEMPLATE = "bench_burst_template"
BATCHES = 12
OLDER_TENDERS = 5_000


def _template_tenant():
    from accounts.models import Tenant

    connection.set_schema_to_public()
    tenant = Tenant(schema_name=TEMPLATE, name="Bench template")
    tenant.save()  # creates and migrates the schema
    connection.set_tenant(tenant)
    get_user_model().objects.create_user(username="owner@bench.example", email="owner@bench.example")
    connection.set_schema_to_public()
    return tenant


def _template_dump() -> str:
    db = settings.DATABASES["default"]
    env = {**os.environ, "PGPASSWORD": db.get("PASSWORD") or ""}
    command = [
        "pg_dump",
        "--schema",
        TEMPLATE,
        "--no-owner",
        "--no-privileges",
        "--inserts",
        "--rows-per-insert=1000",
        "-d",
        db["NAME"],
    ]
    for flag, key in (("-h", "HOST"), ("-p", "PORT"), ("-U", "USER")):
        if db.get(key):
            command += [flag, str(db[key])]
    dump = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    # The dump resets search_path for its own statements; the clones run on their own connection.
    return "\n".join(line for line in dump.splitlines() if not line.startswith("\\"))


def _clone_tenants(count: int) -> list:
    """``count`` tenants whose schemas are copies of the template's (see module docstring)."""
    from accounts.models import Tenant

    dump = _template_dump()
    names = [f"bench_t{i:05d}" for i in range(count)]
    db = settings.DATABASES["default"]
    params = {
        k: db[v] for k, v in (("dbname", "NAME"), ("host", "HOST"), ("port", "PORT"), ("user", "USER")) if db.get(v)
    }
    with psycopg.connect(**params) as clone_conn:
        for name in names:
            # One schema per transaction: a schema's DDL takes ~100 locks, and the server's lock
            # table (max_locks_per_transaction × connections) is shared by every session.
            with clone_conn.transaction():
                clone_conn.execute(dump.replace(TEMPLATE, name))
    Tenant.objects.bulk_create(Tenant(schema_name=name, name=name) for name in names)
    return list(Tenant.objects.filter(schema_name__in=names).order_by("schema_name"))


def _seed_searches(tenants: list, per_tenant: int, *, active_since) -> None:
    from notifications.models import SavedSearch

    owner_id = None
    for number, tenant in enumerate(tenants):
        connection.set_tenant(tenant)
        if owner_id is None:
            owner_id = get_user_model().objects.values_list("pk", flat=True).get()
        rng = random.Random(number)
        SavedSearch.objects.bulk_create(
            SavedSearch(
                owner_id=owner_id,
                name=f"Profil {k}",
                filters=_random_filters(rng),
                instant_alert=rng.random() < 1 / 3,
                active_since=active_since,
            )
            for k in range(per_tenant)
        )
    connection.set_schema_to_public()


def _burst(records, *, now) -> list[int]:
    """12 ingest batches, each with its durable delta, as the source pipeline writes them."""
    size = len(records) // BATCHES
    ids = []
    for b in range(BATCHES):
        with transaction.atomic():
            delta = notices_ingest(records=records[b * size : (b + 1) * size], now=now, use_fingerprint=False)
            ids.append(delta_hand_off(delta, now=now).pk)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tenders_tender")
    return ids


def _all_tenants(tenants: list, *, limit: int) -> tuple[float, int, int]:
    from notifications.alerts import matching
    from notifications.alerts.handoff import deltas_match_pending

    connection.close()
    matching._compiled.cache_clear()
    rounds = matches = 0
    start = time.perf_counter()
    for tenant in tenants:
        connection.set_tenant(tenant)
        run = deltas_match_pending(limit=limit)
        if run.deltas != BATCHES:
            raise AssertionError(f"{tenant.schema_name} matched {run.deltas} deltas, expected {BATCHES}")
        rounds += run.rounds
        matches += run.matches
    seconds = time.perf_counter() - start
    connection.set_schema_to_public()
    return seconds, rounds, matches


def run(*, n: int | None, tenants: int, searches: int | None = None) -> None:
    batch_size = n or 200
    per_tenant = searches or 5
    started = time.perf_counter()
    template = _template_tenant()
    cloned = _clone_tenants(tenants - 1)
    clone_seconds = time.perf_counter() - started
    all_tenants = [template, *cloned]
    now = timezone.now()
    _seed_searches(all_tenants, per_tenant, active_since=now - timedelta(days=1))
    records = synthetic_notices(OLDER_TENDERS + 2 * BATCHES * batch_size, seed=11)
    for i in range(0, OLDER_TENDERS, 2000):
        notices_ingest(
            records=records[i : min(i + 2000, OLDER_TENDERS)], now=now - timedelta(days=30), use_fingerprint=False
        )
    burst_size = BATCHES * batch_size
    first = _burst(records[OLDER_TENDERS : OLDER_TENDERS + burst_size], now=timezone.now())
    print(f"setup: {time.perf_counter() - started:.0f}s ({tenants} tenants, schemas cloned in {clone_seconds:.0f}s)")

    baseline_seconds, baseline_rounds, baseline_matches = _all_tenants(all_tenants, limit=1)
    second = _burst(records[OLDER_TENDERS + burst_size :], now=timezone.now())
    seconds, rounds, matches = _all_tenants(all_tenants, limit=50)
    deltas_mark_completed(now=timezone.now())
    if TenderDelta.objects.filter(pk__in=first + second, completed_at__isnull=True).exists():
        raise AssertionError("a delta is not completed by every tenant")

    print(
        f"{tenants} tenants × {per_tenant} searches; a burst of {BATCHES} deltas × {batch_size} new tenders "
        "(timings noisy: shared machine)"
    )
    print(
        f"one by one: {baseline_seconds:.1f}s, {baseline_rounds} rounds "
        f"({baseline_seconds / tenants * 1000:.0f} ms per tenant), {baseline_matches} matches"
    )
    print(
        f"coalesced:  {seconds:.1f}s, {rounds} rounds ({seconds / tenants * 1000:.0f} ms per tenant), {matches} matches"
    )
    print(
        f"RESULT matching tenants={tenants} searches={per_tenant} deltas={BATCHES} seconds={seconds:.2f} "
        f"baseline_seconds={baseline_seconds:.2f} ratio={baseline_seconds / seconds:.1f}"
    )
