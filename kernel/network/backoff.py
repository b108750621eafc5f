"""The one retry backoff: how long to wait after a failed attempt, and when to give up. Pure.

Every channel that retries - the fetcher within one request, the mail outbox and webhook
events across worker rounds - uses this formula with its own values from settings
(``SOURCES_FETCH_BACKOFF``, ``ALERTS_MAIL_BACKOFF``, ``WEBHOOKS_BACKOFF``; defaults and
meaning in ``config/settings/base.py``). After the n-th failed attempt the wait is
``min(cap_seconds, base_seconds * factor ** (n - 1))``, then jittered:

- ``none``: exactly that (the outbox: one tenant's mails, a predictable schedule to show);
- ``equal``: half fixed, half random - spread out, but never back at once (webhooks);
- ``full``: uniform between 0 and it - spreads many workers best (the fetcher; AWS
  architecture blog, "Exponential Backoff And Jitter").

``Retry-After`` is the channel's business (the fetcher gives up on a long one, webhooks
wait at least that long), so it is not part of the policy.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["JITTERS", "BackoffPolicy"]

Jitter = Literal["none", "equal", "full"]
JITTERS: tuple[str, ...] = ("none", "equal", "full")
_MAX_EXPONENT = 60  # beyond this every sane cap is reached; keeps factor ** n finite


@dataclass(frozen=True)
class BackoffPolicy:
    base_seconds: float
    cap_seconds: float
    max_attempts: int  # attempts in all, the first included
    factor: float = 2.0
    jitter: Jitter = "full"

    def __post_init__(self) -> None:
        if self.base_seconds < 0 or self.cap_seconds < 0:
            raise ValueError("base_seconds and cap_seconds must be >= 0")
        if self.factor < 1:
            raise ValueError("factor must be >= 1 (waits never shrink)")
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be >= 1 (the first attempt counts)")
        if self.jitter not in JITTERS:
            raise ValueError(f"jitter must be one of {', '.join(JITTERS)}, got {self.jitter!r}")

    @classmethod
    def from_setting(cls, values: Mapping[str, Any]) -> BackoffPolicy:
        """A channel's setting (a dict of the fields) as a policy; unknown or missing keys raise."""
        return cls(**values)

    def ceiling(self, attempts: int) -> float:
        """The un-jittered wait after ``attempts`` failed attempts (>= 1)."""
        exponent = min(max(attempts - 1, 0), _MAX_EXPONENT)
        return min(self.cap_seconds, self.base_seconds * self.factor**exponent)

    def wait_seconds(self, attempts: int, *, rng: random.Random | None = None) -> float:
        """Seconds to wait after ``attempts`` failed attempts, jittered."""
        ceiling = self.ceiling(attempts)
        if self.jitter == "none":
            return ceiling
        rng = rng or random.Random()  # noqa: S311 - spreading load, not security
        if self.jitter == "equal":
            return ceiling / 2 + rng.uniform(0.0, ceiling / 2)
        return rng.uniform(0.0, ceiling)

    def exhausted(self, attempts: int) -> bool:
        """No attempt is left after ``attempts`` attempts."""
        return attempts >= self.max_attempts
