"""Shared helpers for the fetching tests.

Every test talks to the local pytest-httpserver (loopback) or to an
``httpx.MockTransport`` that fails if reached; nothing leaves the machine.
Time is faked: ``FakeClock.sleep`` records the wait and advances the clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import pytest
from pytest_httpserver import HTTPServer

from kernel.network import BackoffPolicy, Fetcher, FetchPolicy
from tests.fixtures.network import loopback_resolver


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class MaxRandom(random.Random):
    """Deterministic "worst case" jitter: uniform(a, b) always returns b."""

    def uniform(self, a: float, b: float) -> float:
        return b


def _policy(**overrides: object) -> FetchPolicy:
    values: dict[str, object] = {
        "allowed_hosts": frozenset({"localhost", "127.0.0.1"}),
        "allow_loopback": True,
        "min_delay_seconds": 0.0,
        "jitter_seconds": 0.0,
        "timeout_seconds": 5.0,
        "backoff": BackoffPolicy(base_seconds=1.0, cap_seconds=4.0, max_attempts=3),
        "max_retry_after_seconds": 60.0,
    }
    values.update(overrides)
    return FetchPolicy(**values)  # type: ignore[arg-type]


@pytest.fixture
def make_policy() -> Callable[..., FetchPolicy]:
    """Test policy: loopback allowed, no politeness delay unless overridden."""
    return _policy


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_fetcher(clock: FakeClock) -> Iterable[Callable[..., Fetcher]]:
    created: list[Fetcher] = []

    def factory(policy: FetchPolicy | None = None, **kwargs: object) -> Fetcher:
        kwargs.setdefault("resolver", loopback_resolver)
        kwargs.setdefault("rng", MaxRandom())
        fetcher = Fetcher(policy or _policy(), sleep=clock.sleep, clock=clock, **kwargs)  # type: ignore[arg-type]
        created.append(fetcher)
        return fetcher

    yield factory
    for fetcher in created:
        fetcher.close()


@pytest.fixture
def serve_robots(httpserver: HTTPServer) -> Callable[..., None]:
    """Install robots.txt on the test server; ``body=None`` answers 404 (everything allowed)."""

    def install(body: str | None = None, status: int = 200) -> None:
        if body is None:
            httpserver.expect_request("/robots.txt").respond_with_data("not found", status=404)
        else:
            httpserver.expect_request("/robots.txt").respond_with_data(body, status=status, content_type="text/plain")

    return install


@pytest.fixture
def server_paths(httpserver: HTTPServer) -> Callable[[], list[str]]:
    """Paths the server actually saw, in order."""
    return lambda: [request.path for request, _response in httpserver.log]
