"""Matching throughput (with ``--tenants``: the hand-off under a burst, see ``bench.matching_burst``).

Without ``--tenants``: 10,000 saved searches of 100 tenants against one delta of 5,000 new tenders.

Setup choice: the bench database is recreated on every run, and creating 100 django-tenants
schemas (migrations or ``clone_schema``) costs about three seconds each, five minutes before
anything is measured. Matching is per tenant anyway (one statement over the tenant's own
tables), so the benchmark uses ONE real, migrated tenant schema and plays the 100 tenants one
after the other: before each round the tenant's tables are emptied and refilled with that
tenant's own 100 saved searches (not timed); the round itself (timed) is exactly what the
per-tenant match task does for a delta: load the active searches, build their conditions, run
the one matching statement, insert the matches, commit.

Data: 20,000 older tenders plus the delta (default 5,000; ``--n`` changes it). Searches are
written as companies write them: always a "what" (a kind of work, often narrowed by the kind of
building, or a CPV code) and a "where" (one or two Länder, or a postcode area), sometimes a
value or deadline condition; the synthetic corpus has only a dozen kinds of work, so the
printed matches per search show how selective that is.

Compiled conditions are cached per worker process (see ``notifications.alerts.matching``): the
first batch after a worker starts compiles every search, later batches reuse them. Both figures
are printed; the RESULT line is the steady state (warm cache).

Baseline: the per-search × per-tender loop (one ``exists()`` query per pair). For 50 million
pairs it would take hours, so it runs on a sample of pairs and is extrapolated from its rate;
the sample's answers are compared with the pairs the set-based statement inserted, so the
benchmark fails if the two disagree.
"""

from __future__ import annotations

import random
import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from bench.notices import synthetic_notices
from kernel.vocabulary.regions import BUNDESLAENDER
from tenders.models import Tender
from tenders.services import notices_ingest

TENANTS = 100
SEARCHES_PER_TENANT = 100
OLDER_TENDERS = 20_000
SCHEMA = "bench_matching"
TARGET_SECONDS = 10.0
BASELINE_SAMPLE_PAIRS = 3_000

_WORKS = ["Dacharbeiten", "Reinigung", "Softwareentwicklung", "Winterdienst", "Feuerwehrfahrzeugen", "Catering"]
_PLACES = ["Grundschule", "Rathaus", "Kita", "Gymnasium", "Feuerwache", "Sporthalle"]
_CPV = ["45261210", "90919200", "72000000", "34144210", "90620000", "77310000", "55524000", "71321000"]
_LAENDER = sorted(set(BUNDESLAENDER.values()))


def _random_filters(rng: random.Random) -> dict:
    filters: dict = {}
    what = rng.random()
    if what < 0.4:
        filters["q"] = f"{rng.choice(_WORKS)} {rng.choice(_PLACES)}"
    elif what < 0.6:
        filters["q"] = rng.choice(_WORKS)
    else:
        filters["cpv"] = [rng.choice(_CPV)]
    where = rng.random()
    if where < 0.6:
        filters["bundesland"] = [rng.choice(_LAENDER)]
    elif where < 0.85:
        filters["bundesland"] = rng.sample(_LAENDER, k=2)
    else:
        filters["plz"] = str(rng.randint(10, 99))
    extra = rng.random()
    if extra < 0.2:
        filters["value_min"] = str(rng.choice([50_000, 100_000, 500_000]))
    elif extra < 0.35:
        filters["deadline_days"] = str(rng.choice([30, 60, 90]))
    return filters


def _ensure_tenant():
    from accounts.models import Tenant

    connection.set_schema_to_public()
    tenant = Tenant(schema_name=SCHEMA, name="Bench")
    tenant.save()  # creates and migrates the schema
    connection.set_tenant(tenant)
    owner = get_user_model().objects.create_user(username="owner@bench.example", email="owner@bench.example")
    connection.set_schema_to_public()
    return tenant, owner


def _seed_tenders(delta_size: int) -> list[int]:
    now = timezone.now()
    records = synthetic_notices(OLDER_TENDERS + delta_size, seed=11)
    for i in range(0, OLDER_TENDERS, 2000):
        notices_ingest(records=records[i : i + 2000], now=now - timedelta(days=30), use_fingerprint=False)
    delta: list[int] = []
    for i in range(OLDER_TENDERS, len(records), 2000):
        delta.extend(notices_ingest(records=records[i : i + 2000], now=now, use_fingerprint=False).created)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tenders_tender")
    return delta


def _tenant_searches(owner, tenant_number: int, *, active_since) -> None:
    """Empty the tenant's tables and give it its own 100 searches (not timed)."""
    from notifications.models import SavedSearch, TenderMatch

    rng = random.Random(tenant_number)
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {TenderMatch._meta.db_table}, {SavedSearch._meta.db_table} CASCADE")
    SavedSearch.objects.bulk_create(
        SavedSearch(owner=owner, name=f"Profil {k}", filters=_random_filters(rng), active_since=active_since)
        for k in range(SEARCHES_PER_TENANT)
    )


def _round(delta: list[int], phases: dict[str, float]) -> int:
    """One tenant's matching for the delta, as the per-tenant task does it (timed, by phase)."""
    from notifications.alerts.matching import active_searches, matches_insert, search_conditions

    start = time.perf_counter()
    now = timezone.now()
    with transaction.atomic():
        conditions = search_conditions(active_searches())
        prepared = time.perf_counter()
        created = matches_insert(conditions=conditions, tender_ids=delta, now=now)
        inserted = time.perf_counter()
    committed = time.perf_counter()  # deferred foreign-key checks of the new rows run at commit
    for name, seconds in (
        ("prepare", prepared - start),
        ("statement", inserted - prepared),
        ("commit", committed - inserted),
    ):
        phases[name] = phases.get(name, 0.0) + seconds
    return len(created)


def _all_tenants(tenant, owner, delta: list[int], *, active_since) -> tuple[float, int, dict[str, float]]:
    phases: dict[str, float] = {}
    matches = 0
    connection.set_tenant(tenant)
    for number in range(TENANTS):
        _tenant_searches(owner, number, active_since=active_since)
        matches += _round(delta, phases)
    return sum(phases.values()), matches, phases


def _baseline(delta: list[int]) -> tuple[float, int]:
    """Per-search × per-tender on a sample of pairs of the last tenant, extrapolated; checked against its matches."""
    from notifications.models import SavedSearch, TenderMatch
    from tenders.filter_query import filters_q
    from tenders.filters import TenderFilters, effective_filters

    rng = random.Random(3)
    now = timezone.now()
    searches = list(SavedSearch.objects.filter(is_active=True))
    pairs = [(rng.choice(searches), rng.choice(delta)) for _ in range(BASELINE_SAMPLE_PAIRS)]
    start = time.perf_counter()
    found = set()
    for search, tender_id in pairs:
        condition = Q(first_seen_at__gte=search.active_since) & filters_q(
            effective_filters(TenderFilters.from_json(search.filters)), now=now
        )
        if Tender.objects.filter(condition, pk=tender_id).exists():
            found.add((search.pk, tender_id))
    per_pair = (time.perf_counter() - start) / len(pairs)
    stored = set(TenderMatch.objects.values_list("saved_search_id", "tender_id"))
    mismatch = (stored & {(s.pk, t) for s, t in pairs}) ^ found
    if mismatch:
        raise AssertionError(f"set-based matching disagrees with the per-pair baseline on {len(mismatch)} pairs")
    return per_pair * TENANTS * SEARCHES_PER_TENANT * len(delta), len(found)


def run(*, n: int | None, tenants: int | None = None, searches: int | None = None) -> None:
    if tenants is not None:  # the hand-off under a burst, over real tenant schemas
        from bench.matching_burst import run as burst_run

        burst_run(n=n, tenants=tenants, searches=searches)
        return
    from notifications.alerts import matching

    delta_size = n or 5000
    started = time.perf_counter()
    tenant, owner = _ensure_tenant()
    delta = _seed_tenders(delta_size)
    active_since = timezone.now() - timedelta(days=1)
    print(f"setup: {time.perf_counter() - started:.0f}s")

    matching._compiled.cache_clear()
    cold_seconds, _, _ = _all_tenants(tenant, owner, delta, active_since=active_since)
    seconds, matches, phases = _all_tenants(tenant, owner, delta, active_since=active_since)
    baseline_seconds, sample_hits = _baseline(delta)
    connection.set_schema_to_public()

    searches = TENANTS * SEARCHES_PER_TENANT
    print(
        f"delta: {len(delta)} tenders; {searches} searches in {TENANTS} tenants; {matches} matches "
        f"({matches / searches:.1f} per search)"
    )
    print(f"set-based, first batch after worker start (compiling every search): {cold_seconds:.2f}s")
    print(f"set-based, steady state: {seconds:.2f}s ({seconds / TENANTS * 1000:.0f} ms per tenant), target <= 10s")
    print(
        "  per tenant: "
        + ", ".join(f"{name} {value / TENANTS * 1000:.0f} ms" for name, value in phases.items())
        + " (prepare: load and compile searches; statement: match and insert; commit: foreign-key checks)"
    )
    print(
        f"per-pair baseline: {baseline_seconds:,.0f}s extrapolated from {BASELINE_SAMPLE_PAIRS} sampled pairs "
        f"({sample_hits} hits, all agreeing with the set-based result)"
    )
    print(
        f"RESULT matching seconds={seconds:.2f} baseline_seconds={baseline_seconds:.0f} "
        f"ratio={baseline_seconds / seconds:.0f}"
    )
