"""What one delivery attempt means for the event: sent, try again later, or give up. Pure functions.

Rules: 2xx is delivered. 429, 5xx and network errors are retried with the capped
exponential backoff of the ``RetryRule`` (``WEBHOOKS_BACKOFF``; a Retry-After is honoured up
to ``WEBHOOKS_RETRY_AFTER_CAP_SECONDS``) until its attempts are used up. Every other answer
(3xx — redirects are not followed —, 4xx) is final: the receiver told us the request itself
is wrong, or the URL is gone (410).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from kernel.network import BackoffPolicy

ERROR_MAX_CHARS = 500

Verdict = Literal["sent", "retry", "failed"]


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    response_status: int | None = None
    retry_in_seconds: float = 0.0
    error: str = ""


@dataclass(frozen=True)
class RetryRule:
    """When webhooks retry: the backoff, and how long a receiver's Retry-After may make us wait."""

    backoff: BackoffPolicy
    retry_after_cap_seconds: float


def retry_delay(*, attempts: int, retry_after: float | None, rule: RetryRule, rng: random.Random) -> float:
    """Seconds until the next try after ``attempts`` tries (>= 1); never sooner than the backoff."""
    delay = rule.backoff.wait_seconds(attempts, rng=rng)
    if retry_after is not None:
        delay = max(delay, min(max(retry_after, 0.0), rule.retry_after_cap_seconds))
    return delay


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ERROR_MAX_CHARS else text[: ERROR_MAX_CHARS - 1] + "…"


def _retry_or_give_up(
    *, attempts: int, error: str, status: int | None, retry_after: float | None, rule: RetryRule, rng
) -> Outcome:
    if rule.backoff.exhausted(attempts):
        return Outcome("failed", status, error=_short(f"nach {attempts} Versuchen aufgegeben; zuletzt: {error}"))
    delay = retry_delay(attempts=attempts, retry_after=retry_after, rule=rule, rng=rng)
    return Outcome("retry", status, delay, _short(error))


def outcome_for_response(
    *, status: int, attempts: int, retry_after: float | None, body_excerpt: str, rule: RetryRule, rng: random.Random
) -> Outcome:
    """Classify an HTTP answer; ``attempts`` counts this attempt."""
    detail = f"HTTP {status}" + (f": {body_excerpt}" if body_excerpt.strip() else "")
    if 200 <= status <= 299:
        return Outcome("sent", status)
    if status == 429 or 500 <= status <= 599:
        return _retry_or_give_up(
            attempts=attempts, error=detail, status=status, retry_after=retry_after, rule=rule, rng=rng
        )
    if 300 <= status <= 399:
        return Outcome("failed", status, error=_short(f"{detail} (Weiterleitungen werden nicht verfolgt)"))
    return Outcome("failed", status, error=_short(detail))


def outcome_for_network_error(*, error: str, attempts: int, rule: RetryRule, rng: random.Random) -> Outcome:
    """Connection refused, timeouts, TLS errors, DNS: the receiver may be back later."""
    return _retry_or_give_up(attempts=attempts, error=error, status=None, retry_after=None, rule=rule, rng=rng)


def outcome_refused(*, error: str) -> Outcome:
    """We will not send to this URL (it now points to an internal address)."""
    return Outcome("failed", None, error=_short(error))
