"""Market view at N synthetic tenders: the buyer page, the supplier page and "ähnliche vergebene Aufträge".

Rows are generated directly and COPYed by two processes (as ``bench.search`` does), with the
table's secondary indexes dropped during the load and rebuilt from their own definitions after it,
then VACUUM ANALYZE (a table that has settled, as in production after autovacuum).

Shape of the data, chosen to resemble the German market rather than to flatter the indexes:

* buyers: N/50 of them (20,000 at 1M), Zipf-like (at 1M the largest has about 5,800 tenders,
  0.6 %, like a big federal buyer; most have a handful); suppliers: N/20 (50,000), Zipf-like (the
  largest wins about 3,500 contracts);
* about a third of the tenders awarded (deadline past), 1-3 lots each, a winner per lot, some lots
  without award; values, number of bids, award dates;
* CPV codes from the real CPV list the project ships (``kernel.vocabulary.cpv``) with a
  skew toward common classes; Länder weighted roughly by population; four years of publications.

Each case calls the portal's own selector (``tenders.market``) after one warm-up and is timed on the
client (every query plus the Python summary), for a frequent, a medium and a rare buyer / supplier /
(CPV class, Land). Every SQL statement of one call is EXPLAIN ANALYZEd to show which index it uses.
The baseline asks the same selectors in the same run with the dedicated index dropped inside a
transaction that is rolled back (what the pages would cost without it).
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bench.loading import copy_part, part_bounds, tenders_bulk_load
from kernel.vocabulary.cpv import vocabulary
from kernel.vocabulary.regions import BUNDESLAENDER
from kernel.vocabulary.time_zone import BERLIN
from tenders.market import buyer_market, similar_awarded, supplier_market
from tenders.merging.compiling import supplier_key
from tenders.models import Tender

RUNS = 7
BASELINE_RUNS = 2
TABLE = "tenders_tender"
DEDICATED = {
    "buyer": "tender_buyer_published_idx",
    "supplier": "tender_supplier_keys_gin",
    "similar": "tender_awarded_similar_idx",
}
COLUMNS = (
    "ocid", "procedure_id", "title", "description", "buyer_name", "buyer_id", "procedure_type", "status",
    "cpv_codes", "cpv_divisions", "cpv_prefixes", "cpv_labels", "nuts_codes", "bundesland", "postal_code", "town",
    "country", "estimated_value", "currency", "published_at", "submission_deadline", "lots", "documents_url",
    "portal_references", "suppliers", "awards", "supplier_keys", "buyer_key", "buyer_street", "buyer_postal_code",
    "buyer_town", "buyer_country", "buyer_email", "buyer_phone", "legal_basis", "contract_nature", "main_cpv",
    "deadlines", "ted_publication_number", "publication_numbers", "contract_duration", "content_hash",
    "first_seen_at", "changed_at",
)  # fmt: skip
JSON_COLUMNS = ("lots", "awards", "deadlines")

# Share of tenders per Land, roughly by population (Destatis 2023), so "frequent" and "rare" Länder exist.
LAND_WEIGHTS = {
    "DEA": 21.5, "DE2": 15.9, "DE1": 13.4, "DE9": 9.6, "DE7": 7.6, "DED": 4.9, "DEB": 4.9, "DE3": 4.5,
    "DEF": 3.5, "DE4": 3.0, "DEE": 2.6, "DEG": 2.5, "DE6": 2.2, "DE8": 1.9, "DEC": 1.2, "DE5": 0.8,
}  # fmt: skip
_TOWN_PARTS = (
    ["Alt", "Neu", "Ober", "Unter", "Berg", "Wald", "See", "Hoch", "Nieder", "Klein", "Groß", "Bad", "Rosen",
     "Linden", "Eichen", "Buchen", "Tann", "Sonnen", "Mühl", "Stein"],
    ["stadt", "dorf", "heim", "hausen", "bach", "feld", "burg", "berg", "au", "tal", "hofen", "ingen", "kirchen",
     "brück", "walde", "wiesen"],
)  # fmt: skip
_BUYER_KINDS = ["Stadt", "Gemeinde", "Landkreis", "Stadtwerke", "Zweckverband", "Universität", "Klinikum", "Amt"]
_SURNAMES = ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann",
             "Schäfer", "Koch", "Bauer", "Richter", "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Zimmermann",
             "Braun", "Krüger", "Hofmann", "Hartmann", "Lange"]  # fmt: skip
_TRADES = ["Bau", "Hochbau", "Tiefbau", "Elektrotechnik", "Haustechnik", "Dachdeckerei", "Gebäudereinigung",
           "Sicherheitsdienst", "IT-Systemhaus", "Ingenieurbüro", "Garten- und Landschaftsbau", "Fahrzeugbau",
           "Medizintechnik", "Druckerei", "Beratung", "Malerbetrieb", "Straßenbau", "Catering"]  # fmt: skip
_LEGAL_FORMS = ["GmbH", "GmbH & Co. KG", "AG", "KG", "e.K."]


def _zipf_cum_weights(count: int, *, exponent: float, offset: float) -> list[float]:
    cumulative, total = [], 0.0
    for rank in range(count):
        total += 1.0 / (rank + 1 + offset) ** exponent
        cumulative.append(total)
    return cumulative


def _cpv_codes() -> list[str]:
    return list(vocabulary())


class World:
    """The buyers, suppliers and codes every worker draws from (same seed, same world in each process)."""

    def __init__(self, n: int, *, seed: int):
        rng = random.Random(seed)
        towns = [a + b for a in _TOWN_PARTS[0] for b in _TOWN_PARTS[1]]
        self.buyers = []
        for index in range(max(200, n // 50)):
            town = towns[index % len(towns)]
            name = f"{_BUYER_KINDS[index // len(towns) % len(_BUYER_KINDS)]} {town}"
            if index >= len(towns) * len(_BUYER_KINDS):
                name += f", Vergabestelle {index // (len(towns) * len(_BUYER_KINDS))}"
            land = rng.choices(list(LAND_WEIGHTS), weights=list(LAND_WEIGHTS.values()))[0]
            self.buyers.append((name, supplier_key(name), town, land, f"{rng.randint(1000, 99999):05d}"))
        rng.shuffle(self.buyers)
        self.suppliers = []
        for index in range(max(500, n // 20)):
            first = _SURNAMES[index % len(_SURNAMES)]
            second = _SURNAMES[(index // len(_SURNAMES)) % len(_SURNAMES)]
            trade = _TRADES[(index // len(_SURNAMES) ** 2) % len(_TRADES)]
            form = _LEGAL_FORMS[index % len(_LEGAL_FORMS)]
            round_ = index // (len(_SURNAMES) ** 2 * len(_TRADES))
            name = f"{first} & {second} {trade}{f' {round_ + 1}' if round_ else ''} {form}"
            self.suppliers.append((name, supplier_key(name), rng.choice(towns)))
        rng.shuffle(self.suppliers)
        codes = _cpv_codes()
        rng.shuffle(codes)
        self.cpv = codes
        self.buyer_weights = _zipf_cum_weights(len(self.buyers), exponent=1.0, offset=25)
        self.supplier_weights = _zipf_cum_weights(len(self.suppliers), exponent=0.9, offset=10)
        self.cpv_weights = _zipf_cum_weights(len(codes), exponent=1.1, offset=5)


def _awards(rng: random.Random, world: World, *, published: datetime, deadline: datetime, lots: int) -> list[dict]:
    awards = []
    for lot in range(1, lots + 1):
        if rng.random() < 0.06:
            awards.append({"lot_id": f"LOT-{lot:04d}", "status": "not_awarded", "supplier_name": "", "supplier_id": "",
                           "supplier_town": "", "supplier_country": "", "value": None, "currency": "",
                           "tenders_received": rng.randint(0, 2), "date": None})  # fmt: skip
            continue
        name, _key, town = rng.choices(world.suppliers, cum_weights=world.supplier_weights)[0]
        value = Decimal(rng.randint(5, 4000) * 1000) + Decimal(rng.randint(0, 99)) / 100
        awards.append({
            "lot_id": f"LOT-{lot:04d}", "status": "awarded", "supplier_name": name, "supplier_id": "",
            "supplier_town": town, "supplier_country": "DEU", "value": str(value), "currency": "EUR",
            "tenders_received": rng.randint(1, 12),
            "date": (deadline + timedelta(days=rng.randint(14, 90))).date().isoformat(),
        })  # fmt: skip
    return awards


def _rows(start: int, count: int, *, now: datetime, seed: int, n: int):
    world = World(n, seed=seed)
    rng = random.Random(seed * 1_000_003 + start)
    nuts_by_land = {code: [code + a + b for a in "123456789AB" for b in "123"] for code in LAND_WEIGHTS}
    for i in range(start, start + count):
        buyer_name, buyer_key, town, land, postal_code = rng.choices(world.buyers, cum_weights=world.buyer_weights)[0]
        cpv = rng.choices(world.cpv, cum_weights=world.cpv_weights)[0]
        codes = [cpv] + ([rng.choice(world.cpv)] if rng.random() < 0.3 else [])
        published = now - timedelta(minutes=rng.randint(0, 60 * 24 * 365 * 4))
        deadline = published + timedelta(days=rng.randint(10, 60), hours=rng.randint(0, 8))
        lots = 1 if rng.random() < 0.7 else rng.randint(2, 3)
        awards: list[dict] = []
        if deadline >= now:
            status = "active"
        else:
            status = rng.choices(("awarded", "expired", "cancelled"), weights=(40, 52, 8))[0]
            if status == "awarded":
                awards = _awards(rng, world, published=published, deadline=deadline, lots=lots)
        winners = list(dict.fromkeys(a["supplier_name"] for a in awards if a["supplier_name"]))
        procedure = f"{rng.getrandbits(64):016x}-{i}"
        yield (
            f"ocds-bench-{procedure}", procedure, f"Leistung {cpv} für {buyer_name} Nr. {i}",
            f"Ausschreibung von {buyer_name}: Leistungen nach CPV {cpv}. Einzelheiten siehe Vergabeunterlagen.",
            buyer_name, "", "open", status, codes, sorted({c[:2] for c in codes}),
            sorted({c[:k] for c in codes for k in range(2, 9)}), "", [rng.choice(nuts_by_land[land])],
            BUNDESLAENDER[land], postal_code, town, "DEU",
            Decimal(rng.randint(10, 5000) * 1000) if rng.random() < 0.6 else None, "EUR", published, deadline,
            [{"lot_id": f"LOT-{k:04d}"} for k in range(1, lots + 1)], f"https://vergabe.example/{procedure}", [],
            winners, awards, [supplier_key(w) for w in winners], buyer_key, "", postal_code, town, "DEU", "", "",
            rng.choice(("vgv", "vob-a-eu", "uvgo", "vob-a")), "services", cpv,
            [{"kind": "angebotsfrist", "at": deadline.isoformat(), "lot_id": ""}], "", [], "",
            f"{rng.getrandbits(128):032x}", published, now,
        )  # fmt: skip


def _load_part(args) -> int:
    start, count, now, seed, n = args
    rows = _rows(start, count, now=now, seed=seed, n=n)
    return copy_part(columns=COLUMNS, json_columns=JSON_COLUMNS, rows=rows, count=count)


def load(n: int, *, now: datetime, seed: int = 42, workers: int = 2) -> None:
    parts = [(start, count, now, seed, n) for start, count in part_bounds(n, workers)]
    copied, indexed = tenders_bulk_load(parts, _load_part, rows=n, workers=workers, vacuum=True)
    print(f"load: {n:,} rows copied in {copied:.0f}s, indexes + VACUUM ANALYZE {indexed:.0f}s")


# --- cases -------------------------------------------------------------------------------------------------


def _pick(ranked: list[tuple[str, int]]) -> list[tuple[str, str, int]]:
    """Frequent (the largest), medium (the 200th) and rare (one with a single tender)."""
    if not ranked:
        return []
    medium = ranked[min(len(ranked) - 1, 199)]
    rare = next((item for item in reversed(ranked) if item[1] == 1), ranked[-1])
    return [("frequent", *ranked[0]), ("medium", *medium), ("rare", *rare)]


def cases() -> list[tuple[str, str, object, int]]:
    """(page, label, argument, tenders behind it) for the buyer page, the supplier page and the similar list."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT min(buyer_name), count(*) FROM tenders_tender WHERE buyer_key <> '' GROUP BY buyer_key ORDER BY 2 DESC"
        )
        buyers = cursor.fetchall()
        cursor.execute(
            "SELECT key, count(*) FROM tenders_tender, unnest(supplier_keys) AS key GROUP BY key ORDER BY 2 DESC"
        )
        suppliers = cursor.fetchall()
        cursor.execute(
            "SELECT bundesland, substr(main_cpv, 1, 4), count(*) FROM tenders_tender WHERE status = 'awarded'"
            " GROUP BY 1, 2 ORDER BY 3 DESC"
        )
        classes = cursor.fetchall()
    found = [("buyer", label, name, count) for label, name, count in _pick(buyers)]
    found += [("supplier", label, name, count) for label, name, count in _pick(suppliers)]
    for label, (land, cpv_class), count in _pick([((land, c), count) for land, c, count in classes]):
        # The tender whose page shows the list: an open one of that class and Land, as a bid manager opens it.
        tender = Tender.objects.filter(bundesland=land, main_cpv__startswith=cpv_class).order_by("id").first()
        found.append(("similar", label, tender, count))
    return found


def call(page: str, argument) -> object:
    if page == "buyer":
        return buyer_market(name=argument)
    if page == "supplier":
        return supplier_market(name=argument)
    return similar_awarded(tender=argument)


def timed(page: str, argument, *, runs: int) -> list[float]:
    call(page, argument)  # warm-up: pages in cache, as for every repeated visit
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call(page, argument)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _plan_shape(node: dict) -> str:
    name = node["Node Type"] + (f" {node['Index Name']}" if "Index Name" in node else "")
    children = node.get("Plans") or []
    return name + (f" > {', '.join(_plan_shape(child) for child in children)}" if children else "")


def explained(page: str, argument) -> list[str]:
    """Every statement one call runs, EXPLAIN ANALYZEd: plan shape, rows, server time."""
    with CaptureQueriesContext(connection) as captured:
        call(page, argument)
    lines = []
    for query in captured.captured_queries:
        if not query["sql"].lstrip().upper().startswith("SELECT"):
            continue  # the tenant middleware's SET search_path
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {query['sql']}")
            raw = cursor.fetchone()[0]
        plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]
        ms = plan["Planning Time"] + plan["Execution Time"]
        lines.append(f"{ms:8.2f} ms  rows {plan['Plan'].get('Actual Rows'):>5}  {_plan_shape(plan['Plan'])}")
    return lines


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1))]


class _Rollback(Exception):
    pass


def without_index(page: str, argument, *, runs: int) -> tuple[list[float], list[str]]:
    """The same selector with its dedicated index dropped in a transaction that is then rolled back."""
    result: tuple[list[float], list[str]] = ([], [])
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f'DROP INDEX "{DEDICATED[page]}"')
            result = (timed(page, argument, runs=runs), explained(page, argument))
            raise _Rollback
    except _Rollback:
        pass
    return result


def _describe(argument) -> str:
    return (
        f"tender {argument.pk} ({argument.bundesland}, CPV {argument.main_cpv[:4]})"
        if isinstance(argument, Tender)
        else str(argument)
    )


def run(*, n: int | None) -> None:
    n = n or 1_000_000
    now = timezone.now().astimezone(BERLIN).replace(microsecond=0)
    load(n, now=now)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_size_pretty(pg_total_relation_size(%s)), count(*) FILTER (WHERE status = 'awarded') FROM "
            + TABLE,
            [TABLE],
        )
        size, awarded = cursor.fetchone()
    print(f"table with indexes: {size}; awarded tenders: {awarded:,} ({awarded / n:.0%})")

    indexed: list[float] = []
    baseline: list[float] = []
    for page, label, argument, count in cases():
        samples = timed(page, argument, runs=RUNS)
        base_samples, base_plans = without_index(page, argument, runs=BASELINE_RUNS)
        indexed += samples
        baseline += base_samples
        print(f"\n{page} {label}: {_describe(argument)} — {count:,} tenders behind it")
        print(
            f"  with index     p50 {statistics.median(samples):8.1f} ms  p95 {percentile(samples, 0.95):8.1f} ms"
            f"  (whole selector, client side, {RUNS} runs)"
        )
        for line in explained(page, argument):
            print(f"    {line}")
        print(f"  without {DEDICATED[page]}: p50 {statistics.median(base_samples):8.1f} ms  ({BASELINE_RUNS} runs)")
        for line in base_plans:
            print(f"    {line}")

    p95, base_p95 = percentile(indexed, 0.95), percentile(baseline, 0.95)
    print(
        f"RESULT market p50_ms={statistics.median(indexed):.1f} p95_ms={p95:.1f} "
        f"baseline_p95_ms={base_p95:.1f} ratio={base_p95 / p95:.1f}"
    )
