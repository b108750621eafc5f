"""Search latency on N synthetic tenders: German full text + filters, ORDER BY deadline LIMIT 50.

Rows are generated directly (shapes of ``bench.notices``, not the ingest
pipeline) and COPYed by two processes, with the table's secondary indexes
dropped during the load and rebuilt from their own definitions afterwards.

Each query is the portal's own (``tenders.search.tender_search`` over
``tenders.filter_query.filters_q``, order=deadline, first page of 50), timed on the
server (EXPLAIN ANALYZE planning + execution time) after one warm-up run. The
ILIKE baseline asks the same questions with ``title/description ILIKE '%term%'``.
The RESULT line is the schema as migrated.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import connection
from django.db.models import F, Q
from django.http import QueryDict
from django.utils import timezone

from bench.loading import copy_part, part_bounds, tenders_bulk_load
from bench.notices import _BUYERS, _PLACES, _PROCEDURES, _TOWNS, _WORKS
from kernel.vocabulary.cpv import cpv_code_labels, cpv_labels_for
from kernel.vocabulary.regions import BUNDESLAENDER
from kernel.vocabulary.time_zone import BERLIN
from tenders.deadline_order import NearFirst
from tenders.filter_query import filters_q
from tenders.filters import parse_filters
from tenders.fulltext import keyword_query_build
from tenders.merging.compiling import compound_columns
from tenders.models import SynonymGroup, Tender
from tenders.pagination import BoundedCountPaginator
from tenders.search import relevance_listed, tender_search
from tenders.suggestions import search_vocabulary_refresh

RUNS = 5
TABLE = "tenders_tender"
COLUMNS = (
    "ocid", "procedure_id", "title", "description", "buyer_name", "buyer_id", "procedure_type", "status",
    "cpv_codes", "cpv_divisions", "cpv_prefixes", "cpv_labels", "title_parts", "search_parts", "nuts_codes", "bundesland", "postal_code", "town",
    "country", "estimated_value", "currency", "published_at", "submission_deadline", "lots", "documents_url",
    "portal_references", "suppliers", "content_hash", "first_seen_at", "changed_at",
)  # fmt: skip


# Words with a known share of rows, so "rare" and "medium" mean something at any N.
RARE_WORDS = {"Glockenstuhl": 0.00005, "Orgelsanierung": 0.0005, "Tiefgaragenbeschichtung": 0.005}
_TOWN_PARTS = (
    ["Alt", "Neu", "Ober", "Unter", "Berg", "Wald", "See", "Hoch", "Nieder", "Klein", "Groß", "Bad", "Rosen",
     "Linden", "Eichen", "Buchen", "Tann", "Sonnen", "Mühl", "Stein"],
    ["stadt", "dorf", "heim", "hausen", "bach", "feld", "burg", "berg", "au", "tal", "hofen", "ingen", "kirchen",
     "brück", "walde", "wiesen"],
)  # fmt: skip
_FILLER = [
    "Ausführung nach VOB/B.",
    "Leistungsbeschreibung siehe Vergabeunterlagen.",
    "Besichtigung vor Ort wird empfohlen.",
    "Nebenangebote sind nicht zugelassen.",
    "Die Vergabe erfolgt in Losen.",
    "Eignungsnachweise gemäß Bekanntmachung.",
    "Rahmenvertrag mit einer Laufzeit von zwei Jahren.",
    "Ausführungsfrist nach Auftragserteilung.",
]


def _rows(start: int, count: int, *, now: datetime, seed: int):
    rng = random.Random(seed * 1_000_003 + start)
    towns = [a + b for a in _TOWN_PARTS[0] for b in _TOWN_PARTS[1]] + list(_TOWNS)
    nuts_prefixes = list(BUNDESLAENDER)
    rare = list(RARE_WORDS.items())
    for i in range(start, start + count):
        work, cpv = rng.choice(_WORKS)
        town = rng.choice(towns)
        nuts = rng.choice(nuts_prefixes) + rng.choice("123456789ABC") + str(rng.randint(1, 9))
        published = now - timedelta(minutes=rng.randint(0, 60 * 24 * 240))
        deadline = published + timedelta(days=rng.randint(10, 60), hours=rng.randint(0, 8))
        if deadline >= now:
            status = "active"
        else:
            status = rng.choices(("expired", "awarded", "cancelled"), weights=(85, 12, 3))[0]
        extra = [word for word, share in rare if rng.random() < share]
        description = f"{work} für das Objekt in {town}. {rng.choice(_FILLER)} {rng.choice(_FILLER)} {' '.join(extra)}"
        procedure = f"{rng.getrandbits(64):016x}-{i}"
        title = f"{work} {rng.choice(_PLACES)} {town}"
        labels = cpv_labels_for([cpv])
        yield (
            f"ocds-bench-{procedure}",
            procedure,
            title,
            description,
            f"{rng.choice(_BUYERS)} {town}",
            f"DE{rng.randint(100000000, 999999999)}",
            rng.choice(_PROCEDURES),
            status,
            [cpv],
            [cpv[:2]],
            [cpv[:n] for n in range(2, 9)],
            labels,
            *compound_columns(title=title, description=description, lots=(), code_labels=cpv_code_labels([cpv])),
            [nuts],
            BUNDESLAENDER[nuts[:3]],
            f"{rng.randint(1000, 99999):05d}",
            town,
            "DEU",
            Decimal(rng.randint(10, 5000) * 1000) if rng.random() < 0.8 else None,
            "EUR",
            published,
            deadline,
            [],
            f"https://vergabe.example/{procedure}",
            [],
            [],
            f"{rng.getrandbits(128):032x}",
            published,
            now,
        )


def _load_part(args) -> int:
    start, count, now, seed = args
    rows = _rows(start, count, now=now, seed=seed)
    return copy_part(columns=COLUMNS, json_columns=("lots",), rows=rows, count=count)


def load(n: int, *, now: datetime, seed: int = 42, workers: int = 2) -> float:
    """Empty the tender tables and COPY n rows; secondary indexes are rebuilt once at the end."""
    parts = [(start, count, now, seed) for start, count in part_bounds(n, workers)]
    copied, indexed = tenders_bulk_load(parts, _load_part, rows=n, workers=workers)
    print(f"load: {n:,} rows copied in {copied:.1f}s, indexes + ANALYZE {indexed:.1f}s")
    return copied + indexed


# --- queries ---------------------------------------------------------------------------------------------

FREQUENT = "Dacharbeiten"  # one work type of twelve: ~8 % of rows
MEDIUM = "Tiefgaragenbeschichtung"
CASES = [
    # (label, kind, params)
    ("frequent", "frequent", {"q": FREQUENT}),
    ("frequent active", "frequent", {"q": FREQUENT, "status": "active"}),
    ("frequent Bayern active", "frequent", {"q": FREQUENT, "bundesland": "Bayern", "status": "active"}),
    ("frequent cpv45 30 days", "frequent", {"q": FREQUENT, "cpv": "45", "deadline_days": "30"}),
    ("two words active", "frequent", {"q": "Reinigung Büroräumen", "status": "active"}),
    # Found through the thesaurus: "Grünflächenpflege" is a synonym of the title word "Grünpflege".
    ("synonym frequent", "frequent", {"q": "Grünflächenpflege"}),
    ("synonym frequent active", "frequent", {"q": "Grünflächenpflege", "status": "active"}),
    ("medium active", "frequent", {"q": MEDIUM, "status": "active"}),
    ("medium value", "frequent", {"q": MEDIUM, "value_min": "1000000"}),
    ("rare", "rare", {"q": "Glockenstuhl"}),
    ("rare active", "rare", {"q": "Glockenstuhl", "status": "active"}),
    ("rare Bayern", "rare", {"q": "Orgelsanierung", "bundesland": "Bayern"}),
    ("rare active plz", "rare", {"q": "Orgelsanierung", "status": "active", "plz": "8"}),
    ("no keywords Sachsen active", "filter", {"bundesland": "Sachsen", "status": "active"}),
]
RELEVANCE_CASES = [
    case for case in CASES if case[0] in {"frequent", "frequent active", "synonym frequent", "rare Bayern"}
]


def _query_dict(params: dict) -> QueryDict:
    query = QueryDict(mutable=True)
    for key, value in params.items():
        query.setlist(key, [value])
    return query


def portal_query(params: dict, *, now: datetime, order: str = "deadline"):
    """The first result page the portal and the API run for these params (``tenders.search`` on ``filters_q``)."""
    return tender_search(filters=parse_filters(_query_dict(params)), order=order, now=now)[:50]


def relevance_query(params: dict, *, now: datetime):
    return portal_query(params, now=now, order="relevance")


def ilike_query(params: dict, *, now: datetime):
    """The naive baseline: the same question with ILIKE on every word instead of the tsvector."""
    rest = {k: v for k, v in params.items() if k != "q"}
    condition = filters_q(parse_filters(_query_dict(rest)), now=now)
    for word in params.get("q", "").split():
        condition &= Q(title__icontains=word) | Q(description__icontains=word)
    order = (F("submission_deadline").asc(nulls_last=True), "id")
    return Tender.objects.filter(condition).order_by(*order)[:50]


def server_ms(queryset) -> tuple[float, dict]:
    """Planning + execution time on the server (JIT included, as the server is configured).

    A deadline list is read in parts (``tenders.deadline_order``): the statements the first page runs are
    measured as it runs them — a dated part's boundary lookup, then its near and far ranges, each asked
    for what the page still lacks, and no further part once the page is full — and their times added.
    """
    if hasattr(queryset, "parts"):
        return _first_page_ms(queryset)
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        raw = cursor.fetchone()[0]
    plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]
    return plan["Planning Time"] + plan["Execution Time"], plan["Plan"]


def _first_page_ms(results) -> tuple[float, dict]:
    remaining, timed = results.stop - results.start, []
    for part in results.parts:
        if remaining <= 0:
            break
        if isinstance(part, NearFirst):
            timed.append(server_ms(part.boundary_query()) + (0,))
        for queryset in part.querysets() if isinstance(part, NearFirst) else (part,):
            if remaining <= 0:
                break
            ms, plan = server_ms(queryset[:remaining])
            timed.append((ms, plan, plan.get("Actual Rows", 0)))
            remaining -= plan.get("Actual Rows", 0)
    plans = [plan for _ms, plan, _rows in timed]
    rows = sum(rows for _ms, _plan, rows in timed)
    return sum(ms for ms, _plan, _rows in timed), {"Node Type": "Append", "Plans": plans, "Actual Rows": rows}


def _plan_shape(node: dict) -> str:
    name = node["Node Type"] + (f" {node['Index Name']}" if "Index Name" in node else "")
    children = node.get("Plans") or []
    return name + (f" > {', '.join(_plan_shape(child) for child in children)}" if children else "")


def measure(build, *, now: datetime, cases=CASES, runs: int = RUNS) -> dict[str, dict]:
    results = {}
    for label, kind, params in cases:
        queryset = build(params, now=now)
        server_ms(queryset)  # warm-up: pages in cache, as for every repeated search
        samples, plan = [], None
        for _ in range(runs):
            elapsed, plan = server_ms(queryset)
            samples.append(elapsed)
        results[label] = {"kind": kind, "samples": samples, "plan": _plan_shape(plan), "rows": plan.get("Actual Rows")}
    return results


def rewrite_ms(runs: int = 20) -> tuple[float, float]:
    """p50 and p95 of building the keyword tsquery with the thesaurus rewrite, for every keyword case."""
    samples = []
    for _label, _kind, params in CASES:
        if params.get("q"):
            for _ in range(runs):
                started = time.perf_counter()
                keyword_query_build(q=params["q"])
                samples.append((time.perf_counter() - started) * 1000)
    return percentile(samples, 0.5), percentile(samples, 0.95)


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1))]


def summary(results: dict[str, dict]) -> dict[str, float]:
    every = [s for r in results.values() for s in r["samples"]]
    rare = [s for r in results.values() if r["kind"] == "rare" for s in r["samples"]]
    return {"p50": percentile(every, 0.5), "p95": percentile(every, 0.95), "rare_p95": percentile(rare, 0.95)}


def _print(title: str, results: dict[str, dict]) -> None:
    print(f"\n{title}")
    for label, result in results.items():
        samples = result["samples"]
        print(
            f"  {label:28} p50 {statistics.median(samples):8.2f} ms  max {max(samples):8.2f} ms  "
            f"rows {result['rows']:>3}  {result['plan']}"
        )


def result_pages(*, now: datetime, runs: int = 3) -> dict[str, tuple[float, int, str]]:
    """What the portal's result list costs end to end, timed on the client, default order (relevance with
    keywords, else newest first): its first page of 25 with its count, as the search page reads it
    (``notifications.portal.result_list``: a relevance list reads, counts and ranks one candidate more than the
    count's bound in one statement, then fetches the page's rows; the other orders count up to the bound in the
    page's statement). Without a user's triage per row (the bench has no tenant)."""
    from notifications.portal.selectors import RESULT_FIELDS

    timings = {}
    for label, _kind, params in [*CASES, ("no filters", "filter", {})]:
        filters = parse_filters(_query_dict(params))
        keywords = keyword_query_build(q=filters.q)
        candidates = BoundedCountPaginator.exact_up_to + 1
        samples = []
        for _ in range(runs + 1):  # the first run warms the cache and is not kept
            started = time.perf_counter()
            hits = tender_search(filters=filters, order="published", now=now, keywords=keywords).order_by()
            if filters.q:
                listed = relevance_listed(filters=filters, now=now, keywords=keywords, candidates=candidates, shown=26)
                queryset = tender_search(
                    filters=filters, order="relevance", now=now, keywords=keywords, listed=listed.ids
                ).only(*RESULT_FIELDS)
                paginator = BoundedCountPaginator(queryset, 25, count_basis=hits, counted=listed.candidates)
            else:
                queryset = tender_search(filters=filters, order="relevance", now=now, keywords=keywords)
                paginator = BoundedCountPaginator(queryset.only(*RESULT_FIELDS), 25, count_basis=hits)
            list(paginator.get_page(1).object_list)
            samples.append((time.perf_counter() - started) * 1000)
        shown = "more than " if paginator.is_lower_bound else ""
        count = paginator.exact_up_to if paginator.is_lower_bound else paginator.count
        timings[label] = (statistics.median(samples[1:]), count, shown)
    return timings


def run(*, n: int | None) -> None:
    n = n or 1_000_000
    now = timezone.now().astimezone(BERLIN).replace(microsecond=0)
    load(n, now=now)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_size_pretty(pg_total_relation_size(%s))", [TABLE])
        print(f"table with indexes: {cursor.fetchone()[0]}")
    started = time.perf_counter()
    search_vocabulary_refresh()  # the title words a compound's head is searched in (tenders.title_forms.HeadQuery)
    print(f"search vocabulary refreshed in {time.perf_counter() - started:.1f}s")

    search = measure(portal_query, now=now)
    ilike = measure(ilike_query, now=now, runs=2)
    relevance = measure(relevance_query, now=now, cases=RELEVANCE_CASES, runs=3)
    pages = result_pages(now=now)
    _print("full text, schema as migrated (filters_q, ORDER BY deadline LIMIT 50):", search)
    _print("ILIKE baseline (same filters, ORDER BY deadline LIMIT 50):", ilike)
    _print("order=relevance (ts_rank over the newest RANK_CANDIDATES matches):", relevance)
    print(
        "\nportal result list, default order, first page of 25 with its count, as the search page reads it (client side):"
    )
    for label, (ms, count, shown) in pages.items():
        print(f"  {label:28} {ms:8.1f} ms  {shown}{count:,} matches")

    # The thesaurus rewrite (tenders.fulltext.keyword_query_build) is one round trip before the statement;
    # the statement's own cost shows against the same queries with an empty thesaurus (the bench
    # database is disposable).
    rewrite = rewrite_ms()
    print(f"\nsynonym rewrite (building the tsquery, client side): p50 {rewrite[0]:.2f} ms, p95 {rewrite[1]:.2f} ms")
    SynonymGroup.objects.all().delete()
    plain = measure(portal_query, now=now)
    _print("the same without synonyms (empty thesaurus):", plain)
    plain_result = summary(plain)
    print(f"synonym rewrite: p95 {summary(search)['p95']:.1f} ms with, {plain_result['p95']:.1f} ms without")

    result = summary(search)
    relevance_p95 = percentile([s for r in relevance.values() for s in r["samples"]], 0.95)
    ilike_samples = [s for r in ilike.values() if r["kind"] != "filter" for s in r["samples"]]
    print(
        f"RESULT search p50_ms={result['p50']:.1f} p95_ms={result['p95']:.1f} "
        f"rare_p95_ms={result['rare_p95']:.1f} ilike_p95_ms={percentile(ilike_samples, 0.95):.1f} "
        f"relevance_p95_ms={relevance_p95:.1f} no_synonyms_p95_ms={plain_result['p95']:.1f} "
        f"rewrite_p95_ms={rewrite[1]:.2f}"
    )
