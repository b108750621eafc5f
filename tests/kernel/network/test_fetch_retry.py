"""Pure retry helpers: which answers are retried, Retry-After parsing (the backoff: test_backoff.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kernel.network.retry import is_retryable_status, parse_retry_after


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


@pytest.mark.parametrize("value", [None, "", "soon", "-5", "1.5", "\u00b2", "1\u00b3"])
def test_retry_after_invalid(value: str | None) -> None:
    assert parse_retry_after(value) is None
