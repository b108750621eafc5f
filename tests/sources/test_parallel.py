"""ordered_map: results in input order from worker processes, with bounded input in flight."""

from __future__ import annotations

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
