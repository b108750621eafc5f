"""The open-source peer (ausschreibungsradar) on the e2e archive, for ``bench/run.py e2e --peer PATH``.

PATH is a checkout of the peer (its ``radar/`` package and ``radar.py``), run with this interpreter
(it needs Python 3.9+ and nothing else). The peer reads a DÖE day from its cache as
``ov_ocds_<day>.zip`` and ``ov_eforms_<day>.zip`` (``radar.sources.oeffentlichevergabe``), so each
round copies the archive there under a fresh data folder, runs the peer's own ingest of that one day
in a fresh process, and takes its wall time. Nothing of the peer is kept in this repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DRIVER = """
import sys
from datetime import date, timedelta
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from radar import pipeline
from radar.sources import oeffentlichevergabe as ov
day = date.fromisoformat(sys.argv[2])
kinds = [c for c in vars(ov).values() if isinstance(c, type) and getattr(c, "nombre", "") == "oeffentlichevergabe"]
source = kinds[0](con_eforms=True, dir_cache=Path(sys.argv[3]), hoy=day + timedelta(days=1), dias_primera_vez=1)
run = getattr(pipeline, "ingerir_fuente", None) or getattr(pipeline, "ingestar_fuente", None)
if run is None:
    sys.exit("the peer's radar.pipeline has no ingerir_fuente/ingestar_fuente: adapt bench/peer.py to this version")
run(source)
"""


class PeerRunner:
    def __init__(self, path: Path) -> None:
        path = path.expanduser().resolve()
        needed = [
            path / "radar.py",
            path / "radar" / "pipeline.py",
            path / "radar" / "sources" / "oeffentlichevergabe.py",
        ]
        missing = [str(p.relative_to(path)) for p in needed if not p.exists()]
        if missing:
            raise SystemExit(
                f"--peer {path}: not an installed copy of ausschreibungsradar (missing {', '.join(missing)}); "
                "clone https://github.com/danielsanmartin-lang/ausschreibungsradar and pass its folder"
            )
        self.path = path

    def ingest(self, paths: list[Path], *, n: int) -> float:
        """Seconds the peer takes to ingest the archive's day into an empty database of its own."""
        from bench.e2e import DAY

        with tempfile.TemporaryDirectory(prefix="peer-") as folder:
            cache = Path(folder) / "cache"
            cache.mkdir()
            for archive in paths:
                kind = "eforms" if "eforms" in archive.name else "ocds"
                shutil.copy(archive, cache / f"ov_{kind}_{DAY}.zip")
            env = {**os.environ, "HOME": folder, "RADAR_DATA_DIR": folder}
            started = time.perf_counter()
            done = subprocess.run(  # noqa: S603  (our interpreter, our driver, the operator's folder)
                [sys.executable, "-c", DRIVER, str(self.path), DAY, str(cache)],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"the peer failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        return seconds
