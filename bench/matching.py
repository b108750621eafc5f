"""Matching throughput: 10,000 saved searches in 100 tenants against one delta of new tenders.

Setup: 100 real tenant schemas. Running the tenant migrations 100 times would take
minutes, so one template tenant is created and migrated normally and the other 99
schemas are copies of it (django-tenants' ``CloneSchema``, the same mechanism as its
``TENANT_BASE_SCHEMA``); they are kept between runs. Each tenant gets 100 saved
searches with a realistic mix of keywords, CPV, Bundesland, PLZ, value and deadline
filters, and the tender table gets 20,000 older tenders plus the delta (default 5,000;
``--n`` changes it), all first seen before the searches became active except the delta.

Measured: for every tenant, exactly what the per-tenant match task does for the
delta (load the active searches, build their conditions, run the one matching
statement, insert the matches), one tenant after the other on one connection.

Baseline: the per-search × per-tender loop (one ``exists()`` query per pair). Running it
for all 50 million pairs would take hours, so it runs on a sample of pairs and is
extrapolated by its rate; the sample's answers are also compared with the pairs the
set-based statement inserted, so the benchmark fails if the two disagree.
"""

from __future__ import annotations

import random
import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from bench.notices import synthetic_notices
from sources.normalise import BUNDESLAENDER
from tenders.models import Tender
from tenders.services import notices_ingest

TENANTS = 100
SEARCHES_PER_TENANT = 100
OLDER_TENDERS = 20_000
TEMPLATE_SCHEMA = "bench_match_000"
TARGET_SECONDS = 10.0
BASELINE_SAMPLE_PAIRS = 3_000

# Profiles as companies write them: always a "what" (a kind of work, often narrowed by the kind of
# building, or a CPV code) and a "where" (one or two Länder, or a postcode area), sometimes a value
# or deadline condition. The synthetic corpus has only a dozen kinds of work, so these are about as
# selective as real profiles on real data (a few hits per profile and day, see the printed average).
_WORKS = ["Dacharbeiten", "Reinigung", "Softwareentwicklung", "Winterdienst", "Feuerwehrfahrzeugen", "Catering"]
_PLACES = ["Grundschule", "Rathaus", "Kita", "Gymnasium", "Feuerwache", "Sporthalle"]
_CPV = ["45261210", "90919200", "72000000", "34144210", "90620000", "77310000", "55524000", "71321000"]
_LAENDER = sorted(set(BUNDESLAENDER.values()))


def _schemas() -> list[str]:
    return [f"bench_match_{i:03d}" for i in range(TENANTS)]


def _ensure_tenants() -> None:
    from django_tenants.clone import CloneSchema
    from django_tenants.utils import schema_exists

    from accounts.models import Tenant

    connection.set_schema_to_public()
    if not Tenant.objects.filter(schema_name=TEMPLATE_SCHEMA).exists():
        Tenant(schema_name=TEMPLATE_SCHEMA, name="Bench 0").save()  # creates and migrates the schema
        connection.set_schema(TEMPLATE_SCHEMA)
        get_user_model().objects.create_user(username="owner@bench.example", email="owner@bench.example")
        connection.set_schema_to_public()
    cloner = CloneSchema()
    for i, schema in enumerate(_schemas()[1:], start=1):
        if not schema_exists(schema):
            cloner.clone_schema(TEMPLATE_SCHEMA, schema, clone_mode="DATA")
        if not Tenant.objects.filter(schema_name=schema).exists():
            Tenant.objects.bulk_create([Tenant(schema_name=schema, name=f"Bench {i}")])  # schema exists: no migrate


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


def _seed_searches(*, active_since) -> None:
    from notifications.models import SavedSearch, TenderMatch

    rng = random.Random(7)
    for schema in _schemas():
        connection.set_schema(schema)
        owner = get_user_model().objects.get(username="owner@bench.example")
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {TenderMatch._meta.db_table}, {SavedSearch._meta.db_table} CASCADE")
        SavedSearch.objects.bulk_create(
            SavedSearch(owner=owner, name=f"Profil {k}", filters=_random_filters(rng), active_since=active_since)
            for k in range(SEARCHES_PER_TENANT)
        )
    connection.set_schema_to_public()


def _seed_tenders(delta_size: int) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE tenders_tenderversion, tenders_tendersource, tenders_tender RESTART IDENTITY CASCADE")
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


def _match_all_tenants(delta: list[int]) -> tuple[float, int]:
    from notifications.alerts.matching import active_searches, matches_insert, search_conditions

    total = 0
    start = time.perf_counter()
    for schema in _schemas():
        connection.set_schema(schema)
        now = timezone.now()
        with transaction.atomic():
            conditions = search_conditions(active_searches(), now=now)
            total += len(matches_insert(conditions=conditions, tender_ids=delta, now=now))
    elapsed = time.perf_counter() - start
    connection.set_schema_to_public()
    return elapsed, total


def _baseline(delta: list[int]) -> tuple[float, int]:
    """Per-search × per-tender on a sample of pairs, extrapolated; checked against the inserted matches."""
    from django.db.models import Q

    from notifications.models import SavedSearch, TenderMatch
    from tenders.filters import TenderFilters, filters_q

    rng = random.Random(3)
    schema = _schemas()[rng.randrange(TENANTS)]
    connection.set_schema(schema)
    now = timezone.now()
    searches = list(SavedSearch.objects.filter(is_active=True))
    pairs = [(rng.choice(searches), rng.choice(delta)) for _ in range(BASELINE_SAMPLE_PAIRS)]
    start = time.perf_counter()
    found = set()
    for search, tender_id in pairs:
        condition = Q(first_seen_at__gte=search.active_since) & filters_q(
            TenderFilters.from_json(search.filters), now=now
        )
        if Tender.objects.filter(condition, pk=tender_id).exists():
            found.add((search.pk, tender_id))
    per_pair = (time.perf_counter() - start) / len(pairs)
    stored = set(TenderMatch.objects.values_list("saved_search_id", "tender_id"))
    sampled = {(s.pk, t) for s, t in pairs}
    mismatch = (stored & sampled) ^ found
    connection.set_schema_to_public()
    if mismatch:
        raise AssertionError(f"set-based matching disagrees with the per-pair baseline on {len(mismatch)} pairs")
    return per_pair * TENANTS * SEARCHES_PER_TENANT * len(delta), len(found)


def run(*, n: int | None) -> None:
    delta_size = n or 5000
    started = time.perf_counter()
    _ensure_tenants()
    delta = _seed_tenders(delta_size)
    _seed_searches(active_since=timezone.now() - timedelta(days=1))
    print(f"setup: {time.perf_counter() - started:.0f}s")
    seconds, matches = _match_all_tenants(delta)
    baseline_seconds, sample_hits = _baseline(delta)
    searches = TENANTS * SEARCHES_PER_TENANT
    print(
        f"delta: {len(delta)} tenders; {searches} searches in {TENANTS} tenants; {matches} matches inserted "
        f"({matches / searches:.1f} per search)"
    )
    print(f"set-based: {seconds:.2f}s ({seconds / TENANTS * 1000:.0f} ms per tenant), target <= {TARGET_SECONDS:.0f}s")
    print(
        f"per-pair baseline: {baseline_seconds:,.0f}s extrapolated from {BASELINE_SAMPLE_PAIRS} sampled pairs "
        f"({sample_hits} hits, all agreeing with the set-based result)"
    )
    print(
        f"RESULT matching seconds={seconds:.2f} baseline_seconds={baseline_seconds:.0f} "
        f"ratio={baseline_seconds / seconds:.0f}"
    )
