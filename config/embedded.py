"""Servers that need no installation, for a newcomer's machine.

With ``DATABASE_URL`` unset the product runs on an embedded PostgreSQL
(``pgserver`` ships the binaries in its wheel); its data lives in
``.local/pgdata`` and survives restarts. With ``REDIS_URL`` unset Celery talks
through kombu's filesystem transport, so web, worker and beat still run as
separate processes. Neither is meant for production: one machine, one user.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

EMBEDDED_DATABASE_NAME = "tender_radar"


def embedded_database_settings(data_dir: Path) -> dict:
    """Start (or join) the embedded PostgreSQL and return a Django DATABASES entry.

    Every process that calls this holds a handle; the server stops when the last
    one exits (pgserver's ``cleanup_mode='stop'``), so a crashed run leaves no
    orphan server behind and the next start reuses the same data.
    """
    import logging
    import warnings

    logging.getLogger("pgserver").setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on headless machines
        import pgserver

        data_dir.mkdir(parents=True, exist_ok=True)
        server = pgserver.get_server(data_dir, cleanup_mode="stop")
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{EMBEDDED_DATABASE_NAME}';")  # noqa: S608 (constant)
    if "(1 row)" not in exists:
        server.psql(f'CREATE DATABASE "{EMBEDDED_DATABASE_NAME}";')
    uri = urlparse(server.get_uri(EMBEDDED_DATABASE_NAME))
    host = parse_qs(uri.query).get("host", [uri.hostname or ""])[0]
    return {
        "NAME": EMBEDDED_DATABASE_NAME,
        "USER": uri.username or "postgres",
        "PASSWORD": uri.password or "",
        "HOST": host,
        "PORT": str(uri.port or ""),
    }


# The queue of a machine without Redis: folders, no server. kombu takes a virtual transport's host to be
# "localhost" when the URL names none, and says so as a warning on every connection (each command that hands
# work on printed it); this transport never uses the host, so the URL names it.
FILESYSTEM_BROKER_URL = "filesystem://localhost//"


def filesystem_broker_options(data_dir: Path) -> dict:
    """kombu filesystem transport folders; both sides of the queue share one folder."""
    queue_dir = data_dir / "queue"
    processed_dir = data_dir / "processed"
    control_dir = data_dir / "control"
    for folder in (queue_dir, processed_dir, control_dir):
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(queue_dir),
        "data_folder_out": str(queue_dir),
        "processed_folder": str(processed_dir),
        "control_folder": str(control_dir),
        "store_processed": False,
    }


def embedded_database_stop(data_dir: Path) -> None:
    """Stop the embedded server now, even if a crashed child left its handle registered."""
    import pgserver
    from pgserver._commands import pg_ctl

    server = pgserver.get_server(data_dir, cleanup_mode=None)
    info = server.get_postmaster_info()
    if info is not None and info.is_running():
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=server.pgdata, user=server.system_user)
