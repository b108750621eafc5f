"""Per-host request spacing.

Why: public procurement portals are run by small operators; hammering them gets
us blocked and is rude. Every request (robots.txt, redirect hops and retries
included) waits until ``min_delay`` plus a random jitter has passed since the
previous request to the same host *finished*.

Limits: state lives on one ``Fetcher`` instance, i.e. one process and one run;
concurrent workers hitting the same host are not coordinated (schedule sources so
that one portal is fetched by one worker at a time). Hosts are keyed by name, so
``localhost`` and ``127.0.0.1`` count as different hosts.
"""

from __future__ import annotations

import random
from collections.abc import Callable

__all__ = ["HostThrottle"]


class HostThrottle:
    def __init__(self, *, sleep: Callable[[float], object], clock: Callable[[], float], rng: random.Random) -> None:
        self._sleep = sleep
        self._clock = clock
        self._rng = rng
        self._last: dict[str, float] = {}

    def wait(self, host: str, *, min_delay: float, jitter: float) -> float:
        """Sleep as long as needed before talking to ``host``; returns the seconds slept."""
        last = self._last.get(host)
        if last is None:
            return 0.0
        target = last + min_delay + (self._rng.uniform(0.0, jitter) if jitter > 0 else 0.0)
        delay = target - self._clock()
        if delay <= 0:
            return 0.0
        self._sleep(delay)
        return delay

    def mark(self, host: str) -> None:
        """Record that a request to ``host`` just finished."""
        self._last[host] = self._clock()
