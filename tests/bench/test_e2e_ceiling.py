"""bench.e2e's ceiling: the shipped path's rate with every core busy all run long at its runs' CPU a notice."""

from __future__ import annotations

import pytest

from bench.cpu import CpuSpan
from bench.e2e import IngestRun, _ceiling, _median_share


def _run(busy: float | None, *, wall: float = 4.0, cores: int = 2) -> IngestRun:
    span = None if busy is None else CpuSpan(busy=busy, wall=wall, cores=cores)
    return IngestRun(seconds=wall, wall=wall + 1, peak_mb=100, summary="", cpu=None, run_cpu=span)


def test_the_ceiling_is_the_cores_over_the_median_cpu_a_notice():
    # 5,000 notices at 6.0, 6.5 and 7.0 CPU-seconds: the median 1.3 ms a notice; two cores give 2 / 0.0013 a second.
    pairs = [(_run(5.0), _run(busy)) for busy in (7.0, 6.0, 6.5)]
    assert _ceiling(pairs, 5000) == pytest.approx(2 / 0.0013)


def test_the_single_runs_cpu_does_not_count():
    pairs = [(_run(1.0), _run(6.5))]
    assert _ceiling(pairs, 5000) == pytest.approx(2 / 0.0013)


def test_without_a_reading_there_is_no_ceiling():
    assert _ceiling([(_run(5.0), _run(None))], 5000) is None
    assert _median_share([None, None]) is None


def test_the_busy_share_is_the_median_of_the_runs():
    spans = [CpuSpan(busy=busy, wall=4.0, cores=2) for busy in (7.2, 6.4, 8.0)]
    assert _median_share([*spans, None]) == pytest.approx(7.2 / 8.0)
