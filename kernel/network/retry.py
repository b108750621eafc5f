"""Retry decisions: which answers are worth another try, and how long to wait.

Why hand-written instead of ``stamina``: stamina (via tenacity) sleeps with its
own ``time.sleep``; its only test hook, ``stamina.set_testing``, is process-wide
and drops the waits altogether. We need the injected ``sleep`` (tests assert
"slept >= Retry-After"), must give up *before* sleeping when Retry-After is too
long, and mix Retry-After with backoff per response. That is a ten-line loop in
``client.py`` around the pure helpers below and the one backoff formula
(``kernel.network.backoff``), easier to read than stamina hooks.

Limits: Retry-After is honoured only on 429/503 (RFC 9110 also allows it on 3xx,
where it is meaningless for us); an HTTP-date is measured against the response's
own ``Date`` header when present (immune to our clock skew), else against ``now``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

__all__ = ["RETRY_AFTER_STATUSES", "is_retryable_status", "parse_retry_after"]

RETRY_AFTER_STATUSES = frozenset({429, 503})


def is_retryable_status(status: int) -> bool:
    """429 and every 5xx; other 4xx are our fault or final and must not be hammered."""
    return status == 429 or 500 <= status <= 599


def _parse_http_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if parsed is None:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def parse_retry_after(
    value: str | None, *, date_header: str | None = None, now: datetime | None = None
) -> float | None:
    """Seconds to wait from a Retry-After value (delta-seconds or HTTP-date); None if absent/invalid.

    A date in the past yields 0.0.
    """
    if value is None:
        return None
    value = value.strip()
    # ASCII only: headers arrive as latin-1, where "²" passes ``isdigit`` and then fails ``int``.
    if value.isascii() and value.isdigit():
        return float(int(value))
    when = _parse_http_date(value)
    if when is None:
        return None
    reference = _parse_http_date(date_header) or now or datetime.now(UTC)
    if reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    return max(0.0, (when - reference).total_seconds())
