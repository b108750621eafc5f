"""Parse in worker processes, hand results back in order: the CPU half of a bulk import on every core.

Why: parsing an eForms notice costs about ten times what writing it costs, and parsing is
pure (bytes in, frozen records out), so it runs in other processes while this one writes.
Results come back in submission order, so the single writer sees exactly the sequence the
in-process path produces; ``workers=1`` *is* the in-process path (no pool, no pickling).

Bounded memory: at most ``window`` tasks are in flight (and, given a ``cost`` per task, at most
``budget`` of cost beyond one task per worker, so big tasks still keep every worker busy); a
task's input is read only when a slot is free, so a huge archive never sits in memory or in the
pipes at once. The workers go on with what is in flight while the consumer is busy with earlier
results (the writer writing a batch): a window that covers one step of the consumer keeps every
core busy.

Processes start by ``forkserver`` (fork without the writer's threads, DB connections and
open files; the server imports only the parsing modules). A Celery prefork child (a scheduled
DÖE poll) is a daemonic process with billiard's process state, which multiprocessing refuses
to start children from: see ``_parent_process_state``.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.connection import wait
from multiprocessing.process import AuthenticationString
from typing import TypeVar

from django.conf import settings

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

# Modules the fork server imports once, so each worker starts with the parsers and the word
# frequencies of compound splitting loaded (shared by every worker it forks). DÖE's reading, not its
# adapter: the workers need no network client or settings schemas, whose import (about 0.4 s) would
# delay every bulk import's first notice. A TED worker imports its adapter module with its first file.
_PRELOAD = ["sources.adapters.doe.reading", "kernel.vocabulary.compound_frequencies"]


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def parse_workers() -> int:
    """Worker processes for bulk parsing: ``SOURCES_PARSE_WORKERS``, else one per available core."""
    configured = getattr(settings, "SOURCES_PARSE_WORKERS", None)
    if configured:
        return max(1, int(configured))
    return available_cores()


def parallel_from_members() -> int:
    """Archive members from which a bulk import starts worker processes: ``SOURCES_PARSE_PARALLEL_MEMBERS``."""
    return max(0, int(getattr(settings, "SOURCES_PARSE_PARALLEL_MEMBERS", 0) or 0))


def parse_workers_for(*, members: int) -> int:
    """``parse_workers()`` for an input of this many archive members' worth of parsing, 1 below the threshold.

    Why: starting the workers costs about a second, which a small input never wins back.
    """
    return parse_workers() if members >= parallel_from_members() else 1


@contextmanager
def _parent_process_state() -> Iterator[None]:
    """This process's multiprocessing state made fit to start the pool's workers, for as long as it starts them.

    Why: billiard (Celery's prefork pool) installs its child as multiprocessing's current
    process, marked daemonic and holding billiard's own authkey. multiprocessing refuses
    children of a daemonic process (so that none outlives a parent killed without cleaning up)
    and cannot pickle billiard's authkey into a new process's start data. Neither reason holds
    for the parse workers: they are forked by the fork server, not by this process, and exit
    when this process dies (each worker by ``_exit_with_parent``, then the server, whose "alive"
    pipe nobody holds any more), as ``test_parallel`` shows by killing such a process. Outside a
    daemonic or billiard process this changes nothing.
    """
    config = multiprocessing.current_process()._config
    authkey = config.get("authkey")
    if not config.get("daemon") and (authkey is None or type(authkey) is AuthenticationString):
        yield
        return
    saved = dict(config)
    config["daemon"] = False
    if authkey is not None:
        config["authkey"] = AuthenticationString(bytes(authkey))
    try:
        yield
    finally:
        config.clear()
        config.update(saved)


def _exit_with_parent() -> None:
    """Worker initializer: exit as soon as the process that started the pool is gone.

    Why: a pool's workers wait on a task queue whose write end they hold themselves, so a
    writer killed outright (a Celery hard time limit, ``kill -9``) would leave them waiting for
    ever. The parent's sentinel (a pipe only the parent holds open) turns readable when it dies.
    """
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _forkserver_context() -> multiprocessing.context.BaseContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    return context


def prepare_workers(workers: int) -> None:
    """Start the fork server now, for an ``ordered_map`` with ``workers`` to come; returns at once.

    Why: the server imports the parsers and the word frequencies (most of a second) before it
    forks the first worker; started while the caller plans the tasks (an archive's directory
    read, its groups sorted), that import no longer delays the first result.
    """
    if workers > 1:
        from multiprocessing import forkserver

        _forkserver_context()
        forkserver.ensure_running()


def _fork_server_pid() -> int | None:
    from multiprocessing import forkserver

    return getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)


# Open parse_workers_scope blocks of this process (the outermost one owns the server it sees
# started) and ordered_map pools not yet shut down (their workers hold the server open).
_scopes = 0
_active_pools = 0
_lock = threading.Lock()


@contextmanager
def parse_workers_scope() -> Iterator[None]:
    """A fork server first started inside the outermost such block is stopped when that block ends.

    Why: the server holds the parsers and the word frequencies (about 100 MB) and would
    otherwise idle for the rest of the process's life: in every Celery prefork child that once
    ran a DÖE poll. Blocks nest (a backfill's days, each a source run), so the server is reused
    until the outermost ends and a backfill imports the parsers once. The standard library stops
    its server only at exit; where its private stop is missing, the server stays, as before.
    While a pool is still open (a failed run's stream, kept alive by its traceback until the
    error is handled) the server is left running: stopping waits for it to exit, and it cannot
    while that pool's workers hold it open.
    """
    global _scopes
    with _lock:
        outermost = _scopes == 0
        _scopes += 1
    running_before = _fork_server_pid() is not None
    try:
        yield
    finally:
        with _lock:
            _scopes -= 1
            idle = _active_pools == 0
        if outermost and idle and not running_before and _fork_server_pid() is not None:
            _stop_fork_server()


def _stop_fork_server() -> None:
    from multiprocessing import forkserver

    stop = getattr(getattr(forkserver, "_forkserver", None), "_stop", None)
    if stop is not None:
        stop()


def ordered_map(
    func: Callable[[T], R],
    items: Iterable[T],
    *,
    workers: int,
    window: int | None = None,
    cost: Callable[[T], int] | None = None,
    budget: int | None = None,
) -> Iterator[R]:
    """``map(func, items)`` in order, computed by ``workers`` processes; ``func`` must be a module-level function.

    An exception raised by ``func`` propagates from the result it belongs to (callers catch
    per item inside ``func`` when one bad item must not cost the others).
    """
    global _active_pools
    if workers <= 1:
        yield from map(func, items)
        return
    window = window or workers + 1  # one task queued per worker beyond the ones running
    context = _forkserver_context()
    logger.info("parsing in %d worker processes", workers)
    pending: deque[tuple[Future[R], int]] = deque()
    in_flight = 0  # cost of the pending tasks
    with _lock:
        _active_pools += 1
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_exit_with_parent) as pool:
            try:
                for item in items:
                    weight = cost(item) if cost is not None else 0
                    while pending and (
                        len(pending) >= window
                        or (budget is not None and len(pending) >= workers and in_flight + weight > budget)
                    ):
                        future, done = pending.popleft()
                        in_flight -= done
                        yield future.result()
                    with _parent_process_state():  # a submit may start a worker
                        future = pool.submit(func, item)
                    pending.append((future, weight))
                    in_flight += weight
                while pending:
                    yield pending.popleft()[0].result()
            finally:
                for future, _ in pending:  # the consumer stopped early or failed: drop what it will never read
                    future.cancel()
    finally:
        with _lock:
            _active_pools -= 1
