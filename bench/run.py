"""Benchmarks: ``python bench/run.py <name> [--n N] [--tenants T] [--searches S] [--runs R] [--against REV]``. Each ends with one ``RESULT <name> key=value …`` line.

They run against a separate database (``<name>_bench``) on the configured
server (DATABASE_URL, or the embedded one), never against product data.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

BENCHMARKS = {
    "e2e": "bench.e2e",
    "pipeline": "bench.pipeline",
    "search": "bench.search",
    "search_page": "bench.search_page",
    "matching": "bench.matching",
    "market": "bench.market",
    "relevance": "bench.relevance",
    "migrate": "bench.migrate",
    "login": "bench.login",
    "web": "bench.web",
}
# Benchmarks whose database takes long to build keep it between runs (``<database>_<name>_bench``, never
# dropped by the others) and check what it holds themselves.
KEPT_DATABASES = {"web"}


def _bench_database_url(suffix: str = "_bench") -> str:
    from urllib.parse import urlsplit, urlunsplit

    url = os.environ.get("DATABASE_URL")
    if url:
        parts = urlsplit(url)
        return urlunsplit(parts._replace(path=parts.path.rstrip("/") + suffix))
    from config.embedded import embedded_database_settings

    base = Path(__file__).resolve().parents[1]
    db = embedded_database_settings(Path(os.environ.get("TENDER_RADAR_DATA_DIR", base / ".local")) / "pgdata")
    return f"postgres://{db['USER']}@/{db['NAME']}{suffix}?host={db['HOST']}"


def _fresh_database(url: str, *, keep: bool = False) -> None:
    """The bench database is disposable: recreated each run, so no stale schema or data skews a figure.

    ``keep``: created only when missing; the benchmark checks what it holds (``KEPT_DATABASES``).
    """
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not name.endswith("_bench"):
        raise SystemExit(f"refusing to recreate {name!r}: not a bench database")
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if keep and conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("name", choices=sorted(BENCHMARKS))
    parser.add_argument("--n", type=int, default=None, help="problem size (benchmark-specific default)")
    parser.add_argument("--tenants", type=int, default=None, help="number of tenants (matching, migrate)")
    parser.add_argument("--searches", type=int, default=None, help="saved searches per tenant (matching)")
    parser.add_argument("--runs", type=int, default=None, help="alternating runs to take medians of (e2e)")
    parser.add_argument("--peer", default=None, help="an installed copy of the open-source peer to compare with (e2e)")
    parser.add_argument("--against", default=None, help="a git revision measured in the same run, round by round (web)")
    args = parser.parse_args()
    sizes = {
        key: value
        for key, value in (
            ("tenants", args.tenants),
            ("searches", args.searches),
            ("runs", args.runs),
            ("peer", args.peer),
            ("against", args.against),
        )
        if value is not None
    }

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    kept = args.name in KEPT_DATABASES
    url = _bench_database_url(f"_{args.name}_bench" if kept else "_bench")
    _fresh_database(url, keep=kept)
    os.environ["DATABASE_URL"] = url

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate_schemas", shared=True, interactive=False, verbosity=0)
    module = importlib.import_module(BENCHMARKS[args.name])
    module.run(n=args.n, **sizes)


if __name__ == "__main__":
    main()
