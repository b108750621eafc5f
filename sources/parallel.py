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
open files; the server imports only the parsing modules). A daemonic process (a Celery
prefork child) may not have children, and lifting that rule breaks on billiard's process
state: there the same stream runs in-process (``logging`` says so).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

from django.conf import settings

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

# Modules the fork server imports once, so each worker starts with the parsers and the word
# frequencies of compound splitting loaded (shared by every worker it forks).
_PRELOAD = ["sources.adapters.doe.stream", "sources.adapters.ted", "tenders.vocabulary.compound_frequencies"]


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


def _may_have_children() -> bool:
    return not multiprocessing.current_process().daemon


def effective_workers(workers: int) -> int:
    """The worker processes ``ordered_map`` will use for ``workers``: 1 (in-process) in a daemonic process."""
    return workers if workers <= 1 or _may_have_children() else 1


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
    if effective_workers(workers) > 1:
        from multiprocessing import forkserver

        _forkserver_context()
        forkserver.ensure_running()


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
    if effective_workers(workers) < workers:
        logger.info("parsing in-process: this is a daemonic worker process, which may not start children")
        workers = 1
    if workers <= 1:
        yield from map(func, items)
        return
    window = window or workers + 1  # one task queued per worker beyond the ones running
    context = _forkserver_context()
    pending: deque[tuple[Future[R], int]] = deque()
    in_flight = 0  # cost of the pending tasks
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
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
                pending.append((pool.submit(func, item), weight))
                in_flight += weight
            while pending:
                yield pending.popleft()[0].result()
        finally:
            for future, _ in pending:  # the consumer stopped early or failed: drop what it will never read
                future.cancel()
