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
