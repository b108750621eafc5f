"""Fresh processes for ``test_parallel``: ``python -m tests.sources.parallel_probe prepared|scoped|run|killed [arg]``.

Why a fresh interpreter: the fork server is per process, and the test process may run one
already. ``prepared`` prints the fork servers this process has before ``prepare_workers``,
after it and after an ``ordered_map``; ``scoped`` the same around a ``parse_workers_scope``
(with a server already running before it, a pool left open in it, or neither); ``run`` around a source run importing
the given files; ``backfill`` after each day of a backfill from a DÖE server and after it; ``killed`` starts a pool on slow tasks, prints every
process it started and waits to be killed. The process table is read from ``/proc``.
"""

from __future__ import annotations

import os
import sys
import threading
import time


def child_pids(pid: int, *, recursive: bool = False) -> list[int]:
    """The processes whose parent is ``pid`` (and theirs, with ``recursive``), from ``/proc``."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
        if parent == pid:
            found.append(int(entry))
            if recursive:
                found += child_pids(int(entry), recursive=True)
    return found


def is_running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie may wait for a reaper that never comes)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _fork_servers(*, settle: bool = False) -> str:
    """This process's fork servers by pid ("-": none). ``settle``: give one that was just started up to 5 s to
    show as one: its process exists at once, but names itself a fork server only once it has executed."""
    deadline = time.monotonic() + (5 if settle else 0)
    while (found := _fork_servers_now()) == "-" and time.monotonic() < deadline:
        time.sleep(0.01)
    return found


def _fork_servers_now() -> str:
    servers = []
    for pid in child_pids(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"forkserver" in cmdline.read():
                    servers.append(str(pid))
        except OSError:
            continue
    return ",".join(sorted(servers)) or "-"


def _nap(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def prepared(workers: int) -> None:
    from sources.parallel import ordered_map, prepare_workers

    before = _fork_servers()
    prepare_workers(workers)
    after_prepare = _fork_servers(settle=workers > 1)
    assert list(ordered_map(abs, range(-9, 0), workers=workers)) == list(range(9, 0, -1))
    print(before, after_prepare, _fork_servers())


def scoped(mode: str) -> None:
    from sources.parallel import ordered_map, parse_workers_scope, prepare_workers

    if mode == "running":
        prepare_workers(2)
    before = _fork_servers()
    with parse_workers_scope():
        results = ordered_map(abs, range(-90, 0), workers=2)
        assert next(results) == 90
        if mode != "open":  # "open": kept unfinished, as a failed run's traceback keeps its stream
            assert list(results) == list(range(89, 0, -1))
        inside = _fork_servers()
    print(before, inside, _fork_servers())


def run(paths: list[str]) -> None:
    from pathlib import Path

    from sources.services import source_ingest_files

    before = _fork_servers()
    outcome = source_ingest_files(source_key="doe", paths=[Path(path) for path in paths])
    print(before, outcome.run.status, outcome.run.new, _fork_servers())


def backfill(base_url: str, *days: str) -> None:
    from datetime import date

    from sources.models import Source
    from sources.services import source_backfill

    source = Source.objects.get(key="doe")
    source.settings = {"base_url": base_url, "allowed_hosts": ["localhost", "127.0.0.1"]}
    source.politeness_seconds = 0
    source.save()
    seen = []
    source_backfill(
        source_id=source.pk,
        days=[date.fromisoformat(day) for day in days],
        on_run=lambda outcome: seen.append(f"{outcome.run.status}:{_fork_servers()}"),
    )
    print(*seen, _fork_servers())


def killed() -> None:
    from sources.parallel import ordered_map

    results = ordered_map(_nap, [120] * 4, workers=2)
    threading.Thread(target=lambda: list(results), daemon=True).start()
    deadline = time.monotonic() + 60
    # the resource tracker, the fork server and two workers
    while len(child_pids(os.getpid(), recursive=True)) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    print(" ".join(map(str, child_pids(os.getpid(), recursive=True))), flush=True)
    time.sleep(300)


if __name__ == "__main__":
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    if sys.argv[1] == "prepared":
        prepared(int(sys.argv[2]))
    elif sys.argv[1] == "scoped":
        scoped(sys.argv[2])
    elif sys.argv[1] == "run":
        run(sys.argv[2:])
    elif sys.argv[1] == "backfill":
        backfill(*sys.argv[2:])
    else:
        killed()
