"""ordered_map: results in input order from worker processes, with bounded input in flight."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sources.parallel import ordered_map
from tests.sources.parallel_probe import is_running


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


def _pid(_item: int) -> int:
    return os.getpid()


def test_a_daemonic_process_maps_in_worker_processes(monkeypatch) -> None:
    """A Celery prefork child is daemonic: its parse workers start all the same, and its flag stays as it was."""
    import multiprocessing

    process = multiprocessing.current_process()
    monkeypatch.setattr(process, "daemon", True)
    pids = set(ordered_map(_pid, range(8), workers=2))
    assert pids and os.getpid() not in pids
    assert process.daemon is True


def test_billiards_process_state_starts_workers_and_is_restored(monkeypatch) -> None:
    """billiard installs its child as the current process, with its own authkey, which multiprocessing cannot pickle."""
    import multiprocessing

    from billiard.process import AuthenticationString as BilliardAuthkey

    process = multiprocessing.current_process()
    authkey = BilliardAuthkey(bytes(process.authkey))
    monkeypatch.setitem(process._config, "authkey", authkey)
    monkeypatch.setitem(process._config, "daemon", True)
    assert os.getpid() not in set(ordered_map(_pid, range(8), workers=2))
    assert process._config["authkey"] is authkey and process._config["daemon"] is True


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
ROOT = Path(__file__).resolve().parents[2]


def _probe(*args: str, env: dict[str, str] | None = None) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.sources.parallel_probe", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@needs_proc
def test_prepare_workers_starts_the_fork_server_the_map_then_uses() -> None:
    """The server (and its imports) start before the first task is submitted, and the map forks from it."""
    before, prepared, after = _probe("prepared", "2")
    assert before == "-" and prepared != "-"
    assert after == prepared  # the same server: the map did not start another


@needs_proc
def test_prepare_workers_starts_nothing_for_one_worker() -> None:
    """One worker is the in-process path: no server, no pool."""
    assert _probe("prepared", "1") == ["-", "-", "-"]


@needs_proc
def test_a_fork_server_started_in_the_scope_ends_with_it() -> None:
    before, inside, after = _probe("scoped", "fresh")
    assert before == "-" and inside != "-" and after == "-"


@needs_proc
def test_a_fork_server_running_before_the_scope_stays() -> None:
    before, inside, after = _probe("scoped", "running")
    assert before != "-" and inside == before and after == before


@needs_proc
def test_a_scope_ending_with_a_pool_still_open_returns_and_leaves_the_server() -> None:
    """Stopping the server waits for it, and the open pool's workers keep it alive: the scope must not wait."""
    before, inside, after = _probe("scoped", "open")
    assert before == "-" and inside != "-" and after == inside


@needs_proc
@pytest.mark.usefixtures("committed")
def test_a_source_run_leaves_no_idle_fork_server_in_its_process() -> None:
    """A Celery prefork child lives on after a DÖE poll: the run's server (about 100 MB) must not."""
    from tests.fixtures.processes import process_env

    exports = ROOT / "tests" / "data" / "doe" / "exports"
    paths = [str(exports / "2026-09-14_ocds.zip"), str(exports / "2026-09-14_eforms.zip")]
    env = process_env("memory://", SOURCES_PARSE_WORKERS="2", SOURCES_PARSE_PARALLEL_MEMBERS="0")
    assert _probe("run", *paths, env=env) == ["-", "succeeded", "6", "-"]


@needs_proc
@pytest.mark.usefixtures("committed")
def test_a_backfill_imports_the_parsers_once_for_all_its_days(httpserver) -> None:
    """``ingest --from/--to`` runs a day at a time; the days share one fork server, which ends with the backfill."""
    from tests.fixtures.processes import process_env

    exports = ROOT / "tests" / "data" / "doe" / "exports"
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    for day in ("2026-09-14", "2026-09-15"):
        for fmt in ("ocds", "eforms"):
            httpserver.expect_request(
                "/api/notice-exports", query_string={"pubDay": day, "format": f"{fmt}.zip"}
            ).respond_with_data((exports / f"2026-09-14_{fmt}.zip").read_bytes(), content_type="application/zip")
    env = process_env("memory://", SOURCES_PARSE_WORKERS="2", SOURCES_PARSE_PARALLEL_MEMBERS="0")
    first, second, after = _probe("backfill", httpserver.url_for("/").rstrip("/"), "2026-09-14", "2026-09-15", env=env)
    assert first.startswith("succeeded:") and first != "succeeded:-"
    assert second == first  # the second day forked from the same server
    assert after == "-"


@needs_proc
def test_workers_exit_when_the_process_that_started_them_is_killed() -> None:
    """A writer killed outright (a Celery hard time limit) leaves no parse worker or fork server behind."""
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.sources.parallel_probe", "killed"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        started = [int(pid) for pid in writer.stdout.readline().split()]
        assert len(started) >= 4, writer.stderr.read() if writer.poll() is not None else started
        assert all(map(is_running, started))
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    deadline = time.monotonic() + 20
    while any(map(is_running, started)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in started if is_running(pid)]
    for pid in left:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert not left


def test_small_inputs_get_one_worker_and_inputs_from_the_threshold_all(settings) -> None:
    from sources.parallel import parse_workers_for

    settings.SOURCES_PARSE_WORKERS = 2
    settings.SOURCES_PARSE_PARALLEL_MEMBERS = 10
    assert [parse_workers_for(members=n) for n in (0, 9, 10, 5000)] == [1, 1, 2, 2]
    settings.SOURCES_PARSE_PARALLEL_MEMBERS = 0  # no threshold: workers even for one member
    assert parse_workers_for(members=1) == 2


def test_the_workers_imports_leave_out_the_network_client_and_the_settings_schemas() -> None:
    """The fork server imports what parsing needs, not the adapters' HTTP client or settings schemas,
    whose import delayed every bulk import's first notice by about 0.4 s."""
    code = (
        "import importlib, sys\n"
        "from sources.parallel import _PRELOAD\n"
        "for name in _PRELOAD: importlib.import_module(name)\n"
        "from sources.adapters.doe.reading import read_and_parse\n"
        "print(sorted(m for m in ('httpx', 'pydantic', 'sources.adapters.base', 'sources.adapters.doe.adapter')"
        " if m in sys.modules))\n"
    )
    root = Path(__file__).resolve().parents[2]
    found = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"


def test_the_doe_package_still_names_its_adapter_and_helpers() -> None:
    """Its names are imported on first use; an unknown one is an AttributeError as before."""
    import sources.adapters.doe as doe
    from sources.adapters.doe.adapter import DoeAdapter
    from sources.registry import get_adapter

    assert doe.DoeAdapter is DoeAdapter and get_adapter("doe") is DoeAdapter
    assert doe.stem_key("abc-1.xml") == ("abc", "01")
    with pytest.raises(AttributeError):
        doe.no_such_name  # noqa: B018
