"""bench.cpu: the machine's busy CPU over a stretch of a bench run, read from /proc/stat."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bench.cpu import CpuSpan, CpuTimeline, MachineCpu, busy_and_idle_ticks

# The head of a real /proc/stat (two cores): user nice system idle iowait irq softirq steal guest guest_nice.
STAT = """cpu  374352 876 64975 234407 3353 0 2866 269 0 0
cpu0 176485 543 29437 131492 1042 0 1201 142 0 0
cpu1 197867 333 35538 102914 2310 0 1665 126 0 0
intr 3046828 0 0 0
ctxt 8028046
"""


def test_busy_is_user_nice_system_and_interrupts_idle_is_idle_and_iowait():
    busy, idle = busy_and_idle_ticks(STAT)
    assert busy == 374352 + 876 + 64975 + 0 + 2866  # steal (269) is the host's, guest is inside user
    assert idle == 234407 + 3353


def test_an_older_kernels_short_line_reads_as_zeros_for_the_missing_fields():
    assert busy_and_idle_ticks("cpu  10 2 3 40\n") == (15, 40)


def test_text_without_the_aggregate_line_is_refused():
    with pytest.raises(ValueError, match="cpu"):
        busy_and_idle_ticks("cpu0 1 2 3 4\nintr 5\n")


def test_share_is_busy_time_over_the_cores_wall_time():
    assert CpuSpan(busy=3.0, wall=2.0, cores=2).share == pytest.approx(0.75)
    assert CpuSpan(busy=1.0, wall=0.0, cores=2).share == 0.0


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="no /proc/stat on this system")
def test_work_done_inside_is_counted():
    before = time.process_time()
    with MachineCpu() as cpu:
        deadline = time.process_time() + 0.3
        while time.process_time() < deadline:
            pass
    spent = time.process_time() - before
    assert cpu.span is not None
    assert cpu.span.cores >= 1
    # The machine's busy time holds this process's own, to a clock tick or two.
    assert cpu.span.busy >= spent - 0.05
    assert cpu.span.share <= 1.05


def test_without_proc_stat_there_is_no_figure(monkeypatch, tmp_path):
    monkeypatch.setattr("bench.cpu.STAT", tmp_path / "missing")
    with MachineCpu() as cpu:
        pass
    assert cpu.span is None


def _spin(seconds: float) -> None:
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        pass


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="no /proc/stat on this system")
def test_a_timeline_counts_the_work_of_a_stretch():
    with CpuTimeline(interval=0.01) as timeline:
        time.sleep(0.2)
        started = time.time()
        _spin(0.4)
        finished = time.time()
        time.sleep(0.2)
    busy = timeline.between(started, finished)
    assert busy is not None
    assert busy.wall == pytest.approx(finished - started)
    # The stretch holds this process's 0.4 CPU-seconds, to a sample and a clock tick at either end; other
    # processes (a test running beside this one) may add theirs, but never more than the cores hold.
    assert busy.busy >= 0.4 - 0.06
    assert busy.share <= 1.1


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="no /proc/stat on this system")
def test_a_stretch_outside_the_samples_has_no_figure():
    with CpuTimeline(interval=0.01) as timeline:
        time.sleep(0.05)
    first, last = timeline._times[0], timeline._times[-1]
    assert timeline.between(first - 1, last) is None
    assert timeline.between(first, last + 1) is None
    assert timeline.between(last, first) is None
    assert timeline.between(first, last) is not None


def test_a_timeline_without_proc_stat_has_no_figure(monkeypatch, tmp_path):
    monkeypatch.setattr("bench.cpu.STAT", tmp_path / "missing")
    with CpuTimeline() as timeline:
        started = time.time()
    assert timeline.between(started, time.time()) is None


def test_ends_between_samples_are_interpolated(monkeypatch):
    timeline = CpuTimeline()
    timeline._times, timeline._busy, timeline._cores = [100.0, 101.0, 102.0], [0, 100, 300], 2
    monkeypatch.setattr("bench.cpu.os.sysconf", lambda name: 100)
    span = timeline.between(100.5, 101.5)
    # Half of the first second's 100 ticks and half of the second's 200: 150 ticks of a 100 Hz clock.
    assert span == CpuSpan(busy=1.5, wall=1.0, cores=2)
    assert span.share == pytest.approx(0.75)
