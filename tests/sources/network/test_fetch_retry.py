"""Pure retry helpers: Retry-After parsing and capped full-jitter backoff."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from sources.network.retry import backoff_delay, is_retryable_status, parse_retry_after


@pytest.mark.parametrize(("status", "retry"), [(429, True), (500, True), (503, True), (599, True), (404, False)])
def test_retryable_statuses(status: int, retry: bool) -> None:
    assert is_retryable_status(status) is retry


def test_retry_after_seconds() -> None:
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after(" 0 ") == 0.0


def test_retry_after_http_date_against_response_date_header() -> None:
    seconds = parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", date_header="Wed, 21 Oct 2015 07:28:00 GMT")
    assert seconds == 30.0


def test_retry_after_http_date_against_now_and_in_the_past() -> None:
    now = datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert parse_retry_after("Wed, 21 Oct 2015 07:29:00 GMT", now=now) == 60.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now=now) == 0.0


@pytest.mark.parametrize("value", [None, "", "soon", "-5", "1.5"])
def test_retry_after_invalid(value: str | None) -> None:
    assert parse_retry_after(value) is None


def test_backoff_is_exponential_then_capped() -> None:
    class Top(random.Random):
        def uniform(self, a: float, b: float) -> float:
            return b

    delays = [backoff_delay(n, base=0.5, cap=3.0, rng=Top()) for n in range(6)]
    assert delays == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
    assert backoff_delay(10_000, base=1.0, cap=7.0, rng=Top()) == 7.0  # no overflow


def test_backoff_full_jitter_stays_within_bounds() -> None:
    rng = random.Random(42)
    samples = [backoff_delay(3, base=1.0, cap=100.0, rng=rng) for _ in range(200)]
    assert all(0.0 <= s <= 8.0 for s in samples)
    assert min(samples) < 2.0 < max(samples)  # really jittered over the whole range
