"""The pages people wait on, under load: portal search, a tender page and the API list, served by gunicorn.

Setup (cached, not timed): N synthetic tenders (default 1,000,000; the rows of ``bench.search``), one
tenant on ``web.localhost`` with 10 members, 3 saved searches each, matches of about 1 % of the open
tenders per search and triage on a few thousand of them, and an API key. The database
(``<database>_web_bench``) is kept between runs, migrated to the code of each run, and rebuilt when N changes.

Timed: gunicorn started as production starts it (``config.settings.production``, ``--workers 4``,
sync workers, HTTPS taken from ``X-Forwarded-Proto`` as behind the TLS proxy), driven over loopback
by this process with a bounded load: 10 and then 50 clients, each sending its next request when the
last one answered, for ``DURATION`` seconds per page and level. The clients are signed in as the
members (a real POST of the login form each) and use the tenant's API key. The search cases are
``bench.search.CASES`` in turn. The API's per-key throttle is lifted for the run (it would answer 429).

Beside each level's rate: the machine's busy CPU per request and the share of the cores it filled
(``bench.cpu``: gunicorn, PostgreSQL, Redis and this load generator together), which shows whether a page is
CPU-bound and what a request costs, whatever the machine's speed.

Also reported: SQL statements per page for one signed-in request of each page (Django's test client on
the same database, every statement of the request counted: session, user, tenant, page).

``--runs`` R repeats the timed part R times and reports medians. ``--against REV`` measures an earlier
commit's code in the same run, after this code in every round, on a copy of the kept database migrated back to
what that code knows (``bench.against``), and adds its figures and the ratios to the result.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

from django.db import connection
from django.utils import timezone

from bench.cpu import MachineCpu
from bench.web_load import HOST, PASSWORD, drive, request, sign_in

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = "web_bench"
MEMBERS = 10
DURATION = float(os.environ.get("BENCH_WEB_SECONDS", "20"))
LEVELS = (10, 50)
GUNICORN_WORKERS = 4
META = "bench_web_meta"


# --- setup (cached) -------------------------------------------------------------------------------------


def _cached(n: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s)", [META])
        if cursor.fetchone()[0] is None:
            return False
        cursor.execute(f"SELECT n FROM {META}")
        row = cursor.fetchone()
    return row is not None and row[0] == n


def _build(n: int) -> None:
    from accounts.models import Tenant
    from accounts.roles import Role
    from accounts.services import public_tenant_ensure, tenant_create, user_create
    from bench.search import load

    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {META}")
        cursor.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    from accounts.models import Domain

    Domain.objects.filter(domain=HOST).delete()
    Tenant.objects.filter(schema_name=SCHEMA).delete()
    load(n, now=now)
    public_tenant_ensure(domain="localhost")
    created = tenant_create(
        name="Web Bench",
        schema_name=SCHEMA,
        domain=HOST,
        admin_email=f"member0@{HOST}",
        admin_password=PASSWORD,
    )
    connection.set_tenant(created.tenant)
    for number in range(1, MEMBERS):
        user_create(email=f"member{number}@{HOST}", password=PASSWORD, role=Role.MEMBER)
    _tenant_data(now=now)
    connection.set_schema_to_public()
    with connection.cursor() as cursor:
        # As autovacuum leaves a table that has settled: visibility map and hint bits set, so the first run
        # measures the pages as a production server reads them, not the load's aftermath.
        cursor.execute("VACUUM (ANALYZE) tenders_tender")
        cursor.execute(f"VACUUM (ANALYZE) {SCHEMA}.notifications_tendermatch, {SCHEMA}.notifications_triage")
        cursor.execute(f"CREATE TABLE {META} (n integer, built_at timestamptz)")
        cursor.execute(f"INSERT INTO {META} VALUES (%s, now())", [n])


def _tenant_data(*, now) -> None:
    """Saved searches, their matches and the members' triage: what the pages read per user."""
    import random

    from django.contrib.auth import get_user_model

    from notifications.models import SavedSearch, TenderMatch, Triage, TriageStatus
    from tenders.filters import TenderFilters
    from tenders.models import Tender

    rng = random.Random(7)
    open_ids = list(Tender.objects.filter(status="active").values_list("id", flat=True))
    words = ["Dacharbeiten", "Reinigung", "Grünpflege", "Tiefgaragenbeschichtung", "Straßenbau", "Malerarbeiten"]
    matches, triage = [], []
    for user in get_user_model().objects.order_by("id"):
        for number in range(3):
            search = SavedSearch.objects.create(
                owner=user,
                name=f"Profil {number + 1}",
                filters=TenderFilters(q=rng.choice(words)).to_json(),
                active_since=now - timedelta(days=365),
            )
            chosen = rng.sample(open_ids, k=max(1, len(open_ids) // 100))
            matches += [
                TenderMatch(
                    saved_search=search, tender_id=tender_id, matched_at=now - timedelta(hours=rng.randint(0, 900))
                )
                for tender_id in chosen
            ]
        statuses = [TriageStatus.INTERESTING, TriageStatus.REJECTED, TriageStatus.REVIEWING]
        triage += [
            Triage(user=user, tender_id=tender_id, status=rng.choice(statuses))
            for tender_id in rng.sample(open_ids, k=min(len(open_ids), 500))
        ]
    TenderMatch.objects.bulk_create(matches, batch_size=5000)
    Triage.objects.bulk_create(triage, batch_size=5000)
    print(f"tenant: {MEMBERS} members, {len(matches):,} matches, {len(triage):,} triage rows")


# --- the server -------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    port: int
    process: subprocess.Popen

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()


def _start_gunicorn(*, root: Path = ROOT, database_url: str | None = None, redis_url: str | None = None) -> Server:
    """gunicorn as production starts it, serving the code at ``root`` (this checkout, or an earlier commit's)."""
    from cryptography.fernet import Fernet

    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url or os.environ["DATABASE_URL"],
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": ".localhost,localhost",
        "SECRETS_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "EMAIL_URL": "console://",
        "TENDER_RADAR_PUBLIC_HOST": "localhost",
        "API_KEY_THROTTLE_RATE": "1000000/min",
        "REDIS_URL": redis_url or os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
    }
    gunicorn = Path(sys.executable).with_name("gunicorn")
    argv = [str(gunicorn), "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    argv += ["--workers", str(GUNICORN_WORKERS), "--timeout", "60", "--log-level", "warning"]
    # gunicorn puts its working directory first on the path: the code at ``root`` is imported, not this one.
    process = subprocess.Popen(argv, cwd=root, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("gunicorn did not start (see its output above)")
        try:
            status, _, _ = request(port, "GET", "/healthz", {})
            if status == 200:
                return Server(port=port, process=process)
        except OSError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("gunicorn did not answer /healthz within 60 s")


def _pages(port: int, sessions: list[str], api_key: str, tender_ids: list[int]) -> dict[str, list[tuple[str, dict]]]:
    from bench.search import CASES

    search = [
        (f"/suche/?{urlencode(params)}", {"Cookie": sessions[i % len(sessions)]})
        for i, (_label, _kind, params) in enumerate(CASES)
    ]
    tender = [
        (f"/ausschreibung/{tender_id}/", {"Cookie": sessions[i % len(sessions)]})
        for i, tender_id in enumerate(tender_ids)
    ]
    api = [
        (f"/api/v1/tenders/?{urlencode(params)}", {"Authorization": f"Bearer {api_key}"})
        for _label, _kind, params in CASES
    ]
    return {"portal": search, "tender": tender, "api": api}


def _statements(api_key: str, tender_id: int, matched_id: int | None) -> dict[str, int]:
    """SQL statements of one signed-in request per page, counted in this process on the same database.

    The tender page is counted on its heaviest common paths as well, and the most is reported: a tender one of
    the member's profiles matched (its "Warum gefunden" compiles their keywords), opened from an alert (no
    keywords) and from the result list (with the search's keywords).
    """
    from django.test import Client, override_settings
    from django.test.utils import CaptureQueriesContext

    from bench.search import CASES

    counts = {}
    with override_settings(ALLOWED_HOSTS=[".localhost", "localhost"], API_KEY_THROTTLE_RATE="1000000/min"):
        client = Client(HTTP_HOST=HOST)
        from django.contrib.auth import get_user_model

        client.force_login(get_user_model().objects.get(username=f"member1@{HOST}"))  # the tenant's session table
        connection.set_schema_to_public()
        keywords = urlencode({"q": CASES[1][2]["q"]})
        pages = [
            ("portal", client, f"/suche/?{urlencode(CASES[1][2])}", {}),
            *(
                ("tender", client, f"/ausschreibung/{shown}/{query}", {})
                for shown in (tender_id, matched_id)
                if shown is not None  # a small bench database may hold no match of the member's
                for query in ("", f"?{keywords}")
            ),
            (
                "api",
                Client(HTTP_HOST=HOST),
                f"/api/v1/tenders/?{urlencode(CASES[1][2])}",
                {"HTTP_AUTHORIZATION": f"Bearer {api_key}"},
            ),
        ]
        for name, page_client, path, extra in pages:
            page_client.get(path, **extra)  # warm: caches a real server has after its first request
            with CaptureQueriesContext(connection) as captured:
                response = page_client.get(path, **extra)
            if response.status_code != 200:
                raise SystemExit(f"{name} page {path} answered {response.status_code}")
            counts[name] = max(counts.get(name, 0), len(captured.captured_queries))
    return counts


def _measure(name: str, server: Server, *, api_key: str, tender_ids: list[int], round_: int, figures: dict) -> None:
    """One round of every page at every level against ``server``; figures by ``<page><clients>_<what>``."""
    sessions = [sign_in(server.port, f"member{number}@{HOST}") for number in range(MEMBERS)]
    pages = _pages(server.port, sessions, api_key, tender_ids)
    for requests in pages.values():  # warm every worker once
        drive(server.port, requests, clients=GUNICORN_WORKERS, seconds=2)
    for page, requests in pages.items():
        for clients in LEVELS:
            with MachineCpu() as cpu:
                rps, p95, failed = drive(server.port, requests, clients=clients, seconds=DURATION)
            used = ""
            if cpu.span is not None and rps > 0:
                cpu_ms = cpu.span.busy / (rps * cpu.span.wall) * 1000
                figures.setdefault(f"{page}{clients}_cpu_ms", []).append(cpu_ms)
                used = f", CPU {cpu_ms:.1f} ms a request (cores {cpu.span.share:.0%} busy)"
            print(
                f"round {round_ + 1} {name} {page} at {clients} clients: {rps:.1f} req/s, p95 {p95:.0f} ms, "
                f"{failed} failed{used}"
            )
            figures.setdefault(f"{page}{clients}_rps", []).append(rps)
            figures.setdefault(f"{page}{clients}_p95_ms", []).append(p95)
            figures.setdefault(f"{page}{clients}_failed", []).append(failed)


def _other_redis_url() -> str:
    # The other code's caches (sessions, throttles, lists) in a database of their own on the same server.
    parts = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    number = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(number + 1) % 16}"))


def _served(figures: dict) -> dict[str, float]:
    return {key: statistics.median(values) for key, values in figures.items()}


def run(*, n: int | None, runs: int | None = None, against: str | None = None) -> None:
    """``against``: a git revision whose code is measured in the same run, round by round (``bench.against``)."""
    from accounts.models import Tenant
    from bench.against import other_code_prepare, other_code_remove
    from notifications.api.services import api_key_create
    from tenders.models import Tender

    n = n or 1_000_000
    runs = max(1, runs or 1)
    started = time.perf_counter()
    if not _cached(n):
        _build(n)
        print(f"built {n:,} tenders and the tenant in {time.perf_counter() - started:.0f}s (kept for the next run)")
    else:
        from django.core.management import call_command

        call_command("migrate_schemas", schema_name=SCHEMA, interactive=False, verbosity=0)  # the code may be newer
        print(f"using the kept database of {n:,} tenders (built before; migrated to this code)")
    tenant = Tenant.objects.get(schema_name=SCHEMA)
    tender_ids = list(Tender.objects.filter(status="active").order_by("?").values_list("id", flat=True)[:200])
    connection.set_tenant(tenant)
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.get(username=f"member0@{HOST}")
    api_key = api_key_create(name=f"bench {timezone.now():%H%M%S}", created_by=owner).plaintext
    from notifications.models import TenderMatch

    matched_id = (
        TenderMatch.objects.filter(saved_search__owner__username=f"member1@{HOST}")
        .order_by("tender_id")
        .values_list("tender_id", flat=True)
        .first()
    )
    statements = _statements(api_key, tender_ids[0], matched_id)
    connection.set_schema_to_public()
    connection.close()  # the bench process holds no connection while the server is measured

    other = other_code_prepare(revision=against, database_url=os.environ["DATABASE_URL"]) if against else None
    figures: dict[str, list[float]] = {}
    other_figures: dict[str, list[float]] = {}
    try:
        for round_ in range(runs):  # this code, then the other, in each round
            server = _start_gunicorn()
            try:
                _measure("this code", server, api_key=api_key, tender_ids=tender_ids, round_=round_, figures=figures)
            finally:
                server.stop()
            if other is None:
                continue
            server = _start_gunicorn(root=other.root, database_url=other.database_url, redis_url=_other_redis_url())
            try:
                _measure(
                    f"at {other.commit}",
                    server,
                    api_key=api_key,
                    tender_ids=tender_ids,
                    round_=round_,
                    figures=other_figures,
                )
            finally:
                server.stop()
    finally:
        if other is not None:
            other_code_remove(other)
    medians = _served(figures)
    print(f"statements per page: {statements}")
    fields = [
        f"portal_rps={medians['portal10_rps']:.1f}",
        f"portal_p95_ms={medians['portal10_p95_ms']:.0f}",
        f"portal50_rps={medians['portal50_rps']:.1f}",
        f"portal50_p95_ms={medians['portal50_p95_ms']:.0f}",
        f"tender_rps={medians['tender10_rps']:.1f}",
        f"tender_p95_ms={medians['tender10_p95_ms']:.0f}",
        f"api_rps={medians['api10_rps']:.1f}",
        f"api_p95_ms={medians['api10_p95_ms']:.0f}",
        f"api50_rps={medians['api50_rps']:.1f}",
        f"api50_p95_ms={medians['api50_p95_ms']:.0f}",
        *(
            f"{page}_cpu_ms={medians[f'{page}10_cpu_ms']:.1f}"
            for page in ("portal", "tender", "api")
            if f"{page}10_cpu_ms" in medians
        ),
        f"statements_per_page={max(statements.values())}",
        f"failed={int(sum(sum(v) for k, v in figures.items() if k.endswith('_failed')))}",
    ]
    if other is not None:
        before = _served(other_figures)
        print(
            f"at {other.commit} ({against}): portal {before['portal10_rps']:.1f} req/s p95 {before['portal10_p95_ms']:.0f} ms,"
            f" tender {before['tender10_rps']:.1f} req/s, api {before['api10_rps']:.1f} req/s"
            f" p95 {before['api10_p95_ms']:.0f} ms (10 clients)"
        )
        fields += [
            f"against={other.commit}",
            f"portal_ratio={medians['portal10_rps'] / before['portal10_rps']:.2f}",
            f"tender_ratio={medians['tender10_rps'] / before['tender10_rps']:.2f}",
            f"api_ratio={medians['api10_rps'] / before['api10_rps']:.2f}",
            *(
                f"against_{page}_cpu_ms={before[f'{page}10_cpu_ms']:.1f}"
                for page in ("portal", "tender", "api")
                if f"{page}10_cpu_ms" in before
            ),
            f"against_failed={int(sum(sum(v) for k, v in other_figures.items() if k.endswith('_failed')))}",
        ]
    fields.append(f"n={n} runs={runs} seconds={DURATION:g}")
    print("RESULT web " + " ".join(fields))
