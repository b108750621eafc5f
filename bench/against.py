"""The same bench against an earlier commit, in the same run: ``bench/run.py web --against REV``.

The earlier code is exported from git (``git archive``, no work tree) into a temporary directory and served by
its own gunicorn, on a copy of the kept database (``CREATE DATABASE … TEMPLATE``) that this code migrates back
to the migrations the earlier code knows (an app's newest migration both trees hold), then vacuums as the
kept database was. Both servers get the same production settings, the same pages, clients and seconds; only
the code differs. A revision whose migrations this code does not know is refused: run the bench from the
newer checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
COPY_SUFFIX = "_against"


@dataclass(frozen=True)
class OtherCode:
    """An earlier commit's code ready to serve: its tree and its copy of the database."""

    revision: str
    commit: str
    root: Path
    database_url: str


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def migration_names(root: Path) -> dict[str, list[str]]:
    """Migration names per app directory holding a ``migrations`` package, in order."""
    found = {}
    for package in sorted(root.glob("*/migrations/__init__.py")):
        names = sorted(p.stem for p in package.parent.glob("[0-9]*.py"))
        found[package.parent.parent.name] = names
    return found


def migrations_back(*, current: dict[str, list[str]], other: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(app, migration) to migrate this code's database back to, so that ``other``'s code finds what it knows.

    ``zero`` when the earlier code has none of an app's migrations; nothing for an app whose migrations agree.
    """
    unknown = {app: sorted(set(names) - set(current.get(app, []))) for app, names in other.items()}
    unknown = {app: names for app, names in unknown.items() if names}
    if unknown:
        raise SystemExit(f"the other code has migrations this code does not know: {unknown}; run from the newer one")
    targets = []
    for app, names in current.items():
        common = [name for name in names if name in set(other.get(app, []))]
        if common != names:
            targets.append((app, common[-1] if common else "zero"))
    return targets


def _database_url_with_name(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def _admin(url: str):
    import psycopg

    return psycopg.connect(_database_url_with_name(url, "postgres"), autocommit=True)


def _copy_database(url: str) -> str:
    name = urlsplit(url).path.lstrip("/")
    copy = name + COPY_SUFFIX
    with _admin(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{name}"')
    return _database_url_with_name(url, copy)


def other_code_prepare(*, revision: str, database_url: str) -> OtherCode:
    """Export ``revision``, copy the kept database and migrate the copy back (the caller holds no connection)."""
    commit = _git("rev-parse", "--verify", f"{revision}^{{commit}}")
    root = Path(tempfile.mkdtemp(prefix="bench-against-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    targets = migrations_back(current=migration_names(ROOT), other=migration_names(root))
    copy_url = _copy_database(database_url)
    env = {**os.environ, "DATABASE_URL": copy_url, "DJANGO_SETTINGS_MODULE": "config.settings.local"}
    for app, migration in targets:
        print(f"against {revision}: migrating the copy back to {app} {migration}")
        subprocess.run(
            [sys.executable, "manage.py", "migrate_schemas", app, migration, "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
    import psycopg

    with psycopg.connect(copy_url, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) tenders_tender")
    return OtherCode(revision=revision, commit=commit[:8], root=root, database_url=copy_url)


def other_code_remove(other: OtherCode) -> None:
    name = urlsplit(other.database_url).path.lstrip("/")
    if name.endswith(COPY_SUFFIX):
        with _admin(other.database_url) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    shutil.rmtree(other.root, ignore_errors=True)
