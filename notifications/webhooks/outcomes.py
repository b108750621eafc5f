"""What one delivery attempt means for the event: sent, try again later, or give up. Pure functions.

Rules: 2xx is delivered. 429, 5xx and network errors are retried with capped
exponential backoff (a Retry-After is honoured up to ``RETRY_AFTER_CAP``) until
``MAX_ATTEMPTS``. Every other answer (3xx — redirects are not followed —, 4xx) is
final: the receiver told us the request itself is wrong, or the URL is gone (410).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

MAX_ATTEMPTS = 10
BACKOFF_BASE_SECONDS = 30.0
BACKOFF_CAP_SECONDS = 3 * 3600.0
RETRY_AFTER_CAP_SECONDS = 3600.0
ERROR_MAX_CHARS = 500

Verdict = Literal["sent", "retry", "failed"]


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    response_status: int | None = None
    retry_in_seconds: float = 0.0
    error: str = ""


def retry_delay(*, attempts: int, retry_after: float | None, rng: random.Random) -> float:
    """Seconds until the next try after ``attempts`` tries (>= 1).

    "Equal jitter": half of the exponential step is fixed, half random, so retries of
    many events spread out but never come back immediately.
    """
    step = min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2.0 ** min(max(attempts - 1, 0), 30))
    delay = step / 2 + rng.uniform(0.0, step / 2)
    if retry_after is not None:
        delay = max(delay, min(max(retry_after, 0.0), RETRY_AFTER_CAP_SECONDS))
    return delay


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ERROR_MAX_CHARS else text[: ERROR_MAX_CHARS - 1] + "…"


def _retry_or_give_up(*, attempts: int, error: str, status: int | None, retry_after: float | None, rng) -> Outcome:
    if attempts >= MAX_ATTEMPTS:
        return Outcome("failed", status, error=_short(f"nach {attempts} Versuchen aufgegeben; zuletzt: {error}"))
    return Outcome("retry", status, retry_delay(attempts=attempts, retry_after=retry_after, rng=rng), _short(error))


def outcome_for_response(
    *, status: int, attempts: int, retry_after: float | None, body_excerpt: str, rng: random.Random
) -> Outcome:
    """Classify an HTTP answer; ``attempts`` counts this attempt."""
    detail = f"HTTP {status}" + (f": {body_excerpt}" if body_excerpt.strip() else "")
    if 200 <= status <= 299:
        return Outcome("sent", status)
    if status == 429 or 500 <= status <= 599:
        return _retry_or_give_up(attempts=attempts, error=detail, status=status, retry_after=retry_after, rng=rng)
    if 300 <= status <= 399:
        return Outcome("failed", status, error=_short(f"{detail} (Weiterleitungen werden nicht verfolgt)"))
    return Outcome("failed", status, error=_short(detail))


def outcome_for_network_error(*, error: str, attempts: int, rng: random.Random) -> Outcome:
    """Connection refused, timeouts, TLS errors, DNS: the receiver may be back later."""
    return _retry_or_give_up(attempts=attempts, error=error, status=None, retry_after=None, rng=rng)


def outcome_refused(*, error: str) -> Outcome:
    """We will not send to this URL (it now points to an internal address)."""
    return Outcome("failed", None, error=_short(error))
