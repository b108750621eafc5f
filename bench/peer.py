"""The open-source peer (ausschreibungsradar) on the e2e archive, for ``bench/run.py e2e --peer PATH``.

PATH is a checkout of https://github.com/danielsanmartin-lang/ausschreibungsradar (measured at
8bdaa347e33e49eb10cca315f6028509a7327d43): ``radar.py`` beside the ``radar/`` package. The peer is
standard library only (Python 3.9+), so it runs under this interpreter unless ``BENCH_PEER_PYTHON``
names another one (its own virtualenv, say).

How the peer reads a DÖE day: its connector ``radar.sources.oeffentlichevergabe.FuenteOeffentlicheVergabe``
takes a day's export from its cache folder as ``ov_ocds_<day>.zip`` and ``ov_eforms_<day>.zip``
before it would download anything, joins the two by member name (the same ``<id>-<version>`` stems
as our archive), and ``radar.pipeline.ingerir(con, [source])`` writes the notices into the peer's
SQLite database (``radar.db.conectar``). Each round copies the archive into that cache under a
fresh data folder (``AUSSCHREIBUNGSRADAR_DATEN``, so nothing lands in the checkout), runs the
ingest of that one day in a fresh process, and takes the time of ``ingerir`` alone, as the
product's figure is its FetchRun's start to commit: no interpreter start, no schema creation,
and not the peer's profile matching that its ``radar.py ingest`` command runs afterwards. The machine's
busy CPU over that same stretch is read from ``/proc/stat`` (``bench.cpu.CpuTimeline``).
Nothing of the peer is kept in this repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.cpu import CpuSpan, CpuTimeline

# Runs in the peer's process. The archive is local: a download attempt would mean the cache names
# are wrong, and its retries (with back-off) would be timed as ingest, so it fails the round instead.
DRIVER = """
import json, sys, time
from datetime import date, timedelta
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from radar import db, net, pipeline
from radar.sources import oeffentlichevergabe
day, folder = date.fromisoformat(sys.argv[2]), Path(sys.argv[3])

def no_download(url, *args, **kwargs):
    raise RuntimeError(f"the peer tried to download {url}: the archive is not where it looks")

net.descargar_a_fichero = no_download
con = db.conectar(folder / "ausschreibungen.db")
# The connector's first run reads the days up to yesterday: "today" is the day after the archive's.
source = oeffentlichevergabe.FuenteOeffentlicheVergabe(
    con_eforms=True, dir_cache=folder / "cache", hoy=day + timedelta(days=1), dias_primera_vez=1
)
started_at, started = time.time(), time.perf_counter()
summary = pipeline.ingerir(con, [source])[source.nombre]
seconds, finished_at = time.perf_counter() - started, time.time()
deadlines = con.execute("SELECT COUNT(fecha_limite_presentacion) FROM licitaciones").fetchone()[0]
report = {"seconds": seconds, "started_at": started_at, "finished_at": finished_at, "deadlines": deadlines}
print(json.dumps({**report, **summary}))
"""

NEEDED = (
    "radar.py",
    "radar/__init__.py",
    "radar/db.py",
    "radar/pipeline.py",
    "radar/sources/__init__.py",
    "radar/sources/oeffentlichevergabe.py",
)


@dataclass(frozen=True)
class PeerRun:
    """The peer's ingest of the archive: its seconds, and the machine's busy CPU over them (None off Linux)."""

    seconds: float
    cpu: CpuSpan | None


class PeerRunner:
    def __init__(self, path: Path) -> None:
        path = path.expanduser().resolve()
        missing = [name for name in NEEDED if not (path / name).exists()]
        if missing:
            raise SystemExit(
                f"--peer {path}: not a checkout of ausschreibungsradar (missing {', '.join(missing)}); "
                "clone https://github.com/danielsanmartin-lang/ausschreibungsradar and pass its folder"
            )
        self.path = path
        self.python = os.environ.get("BENCH_PEER_PYTHON") or sys.executable

    def ingest(self, paths: list[Path], *, n: int) -> PeerRun:
        """The peer's ingest of the archive's day into an empty database of its own, timed as ``DRIVER`` says."""
        from bench.e2e import DAY

        with tempfile.TemporaryDirectory(prefix="peer-") as folder:
            cache = Path(folder) / "cache"
            cache.mkdir()
            for archive in paths:
                kind = "eforms" if "eforms" in archive.name else "ocds"
                shutil.copy(archive, cache / f"ov_{kind}_{DAY}.zip")
            env = {**os.environ, "HOME": folder, "AUSSCHREIBUNGSRADAR_DATEN": folder}
            with CpuTimeline() as timeline:
                done = subprocess.run(  # noqa: S603  (the operator's interpreter and checkout, our driver)
                    [self.python, "-c", DRIVER, str(self.path), DAY, folder],
                    cwd=folder,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            raise SystemExit(f"the peer failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        report = json.loads(lines[-1])
        # The peer isolates a failing source and carries on, and reads its OCDS export without the eForms
        # one when that fails: a round that did not read every notice, or no eForms deadline, would be
        # timed as a fast one.
        if report["error"] or report["vistos"] != n or report["nuevos"] != n or not report["deadlines"]:
            raise SystemExit(f"the peer did not ingest the {n} notices of the archive: {report}\n{done.stderr}")
        return PeerRun(seconds=report["seconds"], cpu=timeline.between(report["started_at"], report["finished_at"]))
