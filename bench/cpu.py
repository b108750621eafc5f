"""The machine's busy CPU time over a stretch of a bench run, from ``/proc/stat``.

Why: on two cores the ingest and the pages under load are CPU-bound, so their rates follow the CPU a notice or a
request costs, and that cost is what a change has to cut. Wall time alone cannot tell a process that works less
from one that waits more, and a neighbour's load moves it. Everything that runs is counted (PostgreSQL, parse
workers, the load generator, anything else on the machine), so the figures are those of an otherwise idle machine.
Where ``/proc/stat`` cannot be read (not Linux), the figures are missing, not made up.
"""

from __future__ import annotations

import bisect
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

STAT = Path("/proc/stat")
# The "cpu" line's fields: user nice system idle iowait irq softirq steal guest guest_nice. guest and guest_nice
# are already counted in user and nice; steal is time the host gave to others, neither ours nor idle.
_BUSY_FIELDS = (0, 1, 2, 5, 6)
_IDLE_FIELDS = (3, 4)


@dataclass(frozen=True)
class CpuSpan:
    """Busy CPU-seconds of every core over ``wall`` seconds, and the share of the cores they filled."""

    busy: float
    wall: float
    cores: int

    @property
    def share(self) -> float:
        return self.busy / (self.wall * self.cores) if self.wall > 0 and self.cores else 0.0


def busy_and_idle_ticks(stat: str) -> tuple[int, int]:
    """(busy, idle) clock ticks summed over every core, from the text of ``/proc/stat``."""
    for line in stat.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            values = [int(value) for value in fields[1:]]
            values += [0] * (8 - len(values))
            return sum(values[i] for i in _BUSY_FIELDS), sum(values[i] for i in _IDLE_FIELDS)
    raise ValueError("no aggregate 'cpu' line in /proc/stat")


def _cores(stat: str) -> int:
    return sum(1 for line in stat.splitlines() if line.startswith("cpu") and line[3:4].isdigit())


class MachineCpu:
    """``with MachineCpu() as cpu: …`` then ``cpu.span`` (``None`` where ``/proc/stat`` is not readable)."""

    def __init__(self) -> None:
        self.span: CpuSpan | None = None
        self._start: tuple[int, float] | None = None

    def __enter__(self) -> MachineCpu:
        stat = _read()
        if stat is not None:
            self._start = (busy_and_idle_ticks(stat)[0], time.perf_counter())
        return self

    def __exit__(self, *exc) -> None:
        stat = _read()
        if stat is None or self._start is None:
            return
        busy, started = self._start
        ticks = os.sysconf("SC_CLK_TCK")
        self.span = CpuSpan(
            busy=(busy_and_idle_ticks(stat)[0] - busy) / ticks,
            wall=time.perf_counter() - started,
            cores=_cores(stat),
        )


class CpuTimeline:
    """``with CpuTimeline() as timeline: …`` then ``timeline.between(start, end)``: the machine's busy CPU over any
    stretch inside, given in epoch seconds (``time.time()``, or a timestamp a process wrote to the database).

    Why: a run's own start and end are known only afterwards and inside another process (a FetchRun's
    ``started_at`` and ``finished_at``); the CPU of that stretch alone leaves out the interpreter's and Django's
    start, which ``MachineCpu`` over the whole process includes. ``/proc/stat`` is read every ``interval`` seconds
    by a thread of this process (a read costs a few microseconds); a stretch's ends are placed between samples
    by linear interpolation, so a figure is good to about a sample and a clock tick at either end.
    """

    def __init__(self, *, interval: float = 0.02) -> None:
        self.interval = interval
        self._times: list[float] = []
        self._busy: list[int] = []
        self._cores = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> CpuTimeline:
        stat = _read()
        if stat is not None:
            self._cores = _cores(stat)
            self._sample(stat)
            self._thread = threading.Thread(target=self._run, name="cpu-timeline", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        stat = _read()
        if stat is not None:
            self._sample(stat)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            stat = _read()
            if stat is not None:
                self._sample(stat)

    def _sample(self, stat: str) -> None:
        self._times.append(time.time())
        self._busy.append(busy_and_idle_ticks(stat)[0])

    def between(self, start: float, end: float) -> CpuSpan | None:
        """Busy CPU-seconds from ``start`` to ``end``; None without samples on both sides of the stretch."""
        if len(self._times) < 2 or end <= start or start < self._times[0] or end > self._times[-1]:
            return None
        ticks = os.sysconf("SC_CLK_TCK")
        return CpuSpan(busy=(self._busy_at(end) - self._busy_at(start)) / ticks, wall=end - start, cores=self._cores)

    def _busy_at(self, moment: float) -> float:
        right = min(max(bisect.bisect_left(self._times, moment), 1), len(self._times) - 1)
        left = right - 1
        t0, t1 = self._times[left], self._times[right]
        b0, b1 = self._busy[left], self._busy[right]
        return b0 if t1 <= t0 else b0 + (b1 - b0) * (moment - t0) / (t1 - t0)


def _read() -> str | None:
    try:
        return STAT.read_text()
    except OSError:
        return None
