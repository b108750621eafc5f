"""What one signed-in search page, API list page and tender page cost: statements and their plans.

Loads N synthetic tenders (``bench.search.load``, default 200,000), creates one tenant with a member,
three saved searches with matches, triage on a share of the tenders and an API key, then requests the
pages through Django's test client (the whole middleware stack, as a browser or partner would) and
prints every statement each request ran, with EXPLAIN (ANALYZE, BUFFERS) of the statements that read
the tender table. The bench database stays afterwards, so plans can be read again by hand.
"""

from __future__ import annotations

import random
import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tenants.utils import schema_context

from bench.search import load
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender
from tenders.suggestions import search_vocabulary_refresh

HOST = "bench.localhost"
PASSWORD = "Bench-Search-2026!"
TRIAGED_SHARE = 0.02  # of all tenders: a busy team's verdicts
PAGES = [
    ("search, frequent word, relevance", "/suche/", {"q": "Dacharbeiten"}),
    ("search, frequent word, deadline", "/suche/", {"q": "Dacharbeiten", "order": "deadline"}),
    ("search, frequent word, page 3", "/suche/", {"q": "Dacharbeiten", "order": "published", "page": "3"}),
    ("search, no keywords (open tenders, newest first)", "/suche/", {}),
    ("search, Bayern, deadline", "/suche/", {"bundesland": "Bayern", "order": "deadline"}),
    ("search, rare word", "/suche/", {"q": "Glockenstuhl"}),
]
API_PAGES = [
    ("API list, frequent word, deadline", "/api/v1/tenders/", {"q": "Dacharbeiten", "order": "deadline"}),
    ("API list, no keywords", "/api/v1/tenders/", {}),
]


def _tenant_with_data(*, now) -> tuple[Client, Client, int]:
    from accounts.models import Tenant
    from accounts.services import public_tenant_ensure, tenant_create
    from notifications.api.services import api_key_create
    from notifications.models import SavedSearch, TenderMatch, Triage

    public_tenant_ensure(domain="localhost")
    if not Tenant.objects.filter(schema_name="bench").exists():
        tenant_create(
            name="Bench GmbH", schema_name="bench", domain=HOST, admin_email="a@bench.example", admin_password=PASSWORD
        )
    rng = random.Random(7)
    ids = list(Tender.objects.order_by("id").values_list("id", flat=True))
    with schema_context("bench"):
        user = get_user_model().objects.get(username="a@bench.example")
        Triage.objects.all().delete()
        Triage.objects.bulk_create(
            Triage(user=user, tender_id=tender_id, status=rng.choice(["interessant", "abgelehnt", "pruefung"]))
            for tender_id in rng.sample(ids, int(len(ids) * TRIAGED_SHARE))
        )
        SavedSearch.objects.all().delete()
        for name, filters in (
            ("Dach", {"q": "Dacharbeiten"}),
            ("Bayern", {"bundesland": ["Bayern"]}),
            ("Reinigung", {"q": "Reinigung"}),
        ):
            profile = SavedSearch.objects.create(owner=user, name=name, filters=filters, active_since=now)
            TenderMatch.objects.bulk_create(
                TenderMatch(saved_search=profile, tender_id=tender_id, matched_at=now)
                for tender_id in rng.sample(ids, 2000)
            )
        key = api_key_create(name="bench", created_by=user).plaintext
        connection.set_tenant(Tenant.objects.get(schema_name="bench"))
        portal = Client(HTTP_HOST=HOST)
        portal.force_login(user)
    connection.set_schema_to_public()
    api = Client(HTTP_HOST=HOST, headers={"Authorization": f"Bearer {key}"})
    return portal, api, ids[len(ids) // 2]


def _explain(sql: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SET search_path = bench, public")
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")
        return "\n".join(row[0] for row in cursor.fetchall())


def _request(client: Client, label: str, path: str, params: dict, *, plans: bool) -> None:
    client.get(path, params)  # warm caches, as a second visit would
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, params)
    wall = (time.perf_counter() - started) * 1000
    statements = queries.captured_queries
    sql_ms = sum(float(q["time"]) for q in statements) * 1000
    print(
        f"\n### {label}: HTTP {response.status_code}, {len(statements)} statements, "
        f"{wall:.1f} ms wall, {sql_ms:.1f} ms SQL (client side)"
    )
    for number, query in enumerate(statements, 1):
        sql = query["sql"]
        print(f"  {number:2}. {float(query['time']) * 1000:7.1f} ms  {' '.join(sql.split())[:160]}")
    if plans:
        for number, query in enumerate(statements, 1):
            sql = query["sql"]
            if "tenders_tender" in sql and sql.lstrip().upper().startswith("SELECT"):
                print(f"\n  plan of statement {number}:\n{_explain(sql)}")


def run(*, n: int | None) -> None:
    n = n or 200_000
    now = timezone.now().astimezone(BERLIN).replace(microsecond=0)
    load(n, now=now)
    with connection.cursor() as cursor:
        # Settled, as after autovacuum: index-only scans can skip the heap.
        cursor.execute("VACUUM ANALYZE tenders_tender")
    search_vocabulary_refresh()
    portal, api, tender_id = _tenant_with_data(now=now - timedelta(days=1))
    for label, path, params in [*PAGES, *API_PAGES, ("tender page", f"/ausschreibung/{tender_id}/", {})]:
        client = api if path.startswith("/api/") else portal
        _request(client, label, path, params, plans=True)
    print(f"RESULT search_page n={n}")
