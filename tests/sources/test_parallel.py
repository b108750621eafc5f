"""ordered_map: results in input order from worker processes, with bounded input in flight."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sources.parallel import ordered_map


def _counted(n: int, pulled: list[int]):
    for i in range(n):
        pulled.append(i)
        yield -i


def test_results_come_back_in_input_order_from_the_workers() -> None:
    assert list(ordered_map(abs, range(-50, 0), workers=2)) == [abs(i) for i in range(-50, 0)]


def test_the_window_bounds_the_input_in_flight() -> None:
    pulled: list[int] = []
    results = ordered_map(abs, _counted(40, pulled), workers=2, window=5)
    # five items in flight; the sixth is read and waits for the first result
    assert next(results) == 0 and len(pulled) == 6
    assert [0, *results] == list(range(40))


def test_a_cost_budget_bounds_the_input_in_flight_and_lets_one_big_item_through() -> None:
    pulled: list[int] = []
    results = ordered_map(abs, _counted(40, pulled), workers=2, window=20, cost=lambda item: 10, budget=30)
    # three items of cost 10 fit the budget of 30; the fourth is read and waits for the first result
    assert next(results) == 0 and len(pulled) == 4
    assert [0, *results] == list(range(40))
    # items costing more than the whole budget still run, one per worker
    pulled.clear()
    results = ordered_map(abs, _counted(5, pulled), workers=2, cost=lambda item: 100, budget=30)
    assert next(results) == 0 and len(pulled) == 3
    assert [0, *results] == list(range(5))


def test_a_daemonic_process_maps_in_process(monkeypatch) -> None:
    """A Celery prefork child may not start children: the same results come from the calling process."""
    import multiprocessing

    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True)
    doubled = ordered_map(lambda i: 2 * i, range(5), workers=2)  # a lambda cannot reach a worker process
    assert list(doubled) == [0, 2, 4, 6, 8]


# Run in a fresh interpreter: the fork server is per process, and the test process may have one already.
_PREPARED = """
import multiprocessing, os, sys
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from sources.parallel import ordered_map, prepare_workers

def fork_servers():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read().decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if parent == os.getpid() and "forkserver" in command:
            found.append(pid)
    return ",".join(sorted(found)) or "-"

if __name__ == "__main__":
    multiprocessing.current_process().daemon = sys.argv[1] == "daemonic"
    before = fork_servers()
    prepare_workers(2)
    prepared = fork_servers()
    assert list(ordered_map(abs, range(-9, 0), workers=2)) == list(range(9, 0, -1))
    print(before, prepared, fork_servers())
"""

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")


def _fork_servers_seen(tmp_path: Path, mode: str) -> list[str]:
    """The fork servers of a fresh process: before ``prepare_workers(2)``, after it, after an ``ordered_map``."""
    script = tmp_path / "prepared.py"
    script.write_text(_PREPARED)
    done = subprocess.run(
        [sys.executable, str(script), mode],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@needs_proc
def test_prepare_workers_starts_the_fork_server_the_map_then_uses(tmp_path) -> None:
    """The server (and its imports) start before the first task is submitted, and the map forks from it."""
    before, prepared, after = _fork_servers_seen(tmp_path, "normal")
    assert before == "-" and prepared != "-"
    assert after == prepared  # the same server: the map did not start another


@needs_proc
def test_prepare_workers_starts_nothing_where_the_map_runs_in_process(tmp_path) -> None:
    assert _fork_servers_seen(tmp_path, "daemonic") == ["-", "-", "-"]
