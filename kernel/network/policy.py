"""The knobs of the fetching layer, in one immutable value.

Why a dataclass and not Django settings: this package must run (and be tested)
without Django. The caller builds a ``FetchPolicy`` from settings and per-source
config and hands it to :class:`~kernel.network.client.Fetcher`.

Limits: ``allowed_hosts`` holds exact host names (no wildcards, no ports); an
empty set refuses every request (fail closed) rather than allowing everything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kernel.network.backoff import BackoffPolicy
from kernel.urls import host_normalised

__all__ = ["DEFAULT_BACKOFF", "DEFAULT_USER_AGENT", "FetchPolicy", "normalise_host"]

DEFAULT_BACKOFF = BackoffPolicy(base_seconds=1.0, cap_seconds=60.0, max_attempts=4)
DEFAULT_USER_AGENT = "TenderRadar/1.0 (+https://github.com/tender-radar/tender-radar; mailto:ops@tender-radar.example)"


def normalise_host(host: str) -> str:
    """Lower-case, IDNA (as the WHATWG URL parser maps hosts), no IPv6 brackets, no trailing root dot."""
    return host_normalised(host)


@dataclass(frozen=True)
class FetchPolicy:
    user_agent: str = DEFAULT_USER_AGENT
    # Exact host names we may talk to; every redirect hop is checked against it as well.
    allowed_hosts: frozenset[str] = frozenset()
    # Politeness: minimum pause between two requests to the same host, plus uniform jitter on top.
    min_delay_seconds: float = 2.0
    jitter_seconds: float = 1.0
    # httpx timeout per socket operation (connect / read / write / pool).
    timeout_seconds: float = 30.0
    # Wall-clock budget for one attempt incl. body download: a slow-drip server cannot stall us forever.
    total_timeout_seconds: float = 120.0
    max_body_bytes: int = 20 * 1024 * 1024
    # Attempts for 429 / 5xx / timeouts / connection errors and the waits between them: the one
    # formula of every retrying channel (callers build it from SOURCES_FETCH_BACKOFF).
    backoff: BackoffPolicy = DEFAULT_BACKOFF
    # A Retry-After longer than this raises RetryAfterTooLong instead of sleeping.
    max_retry_after_seconds: float = 300.0
    respect_robots: bool = True
    # Only tests against a local server set this; production never does.
    allow_loopback: bool = False
    max_redirects: int = 5

    def __post_init__(self) -> None:
        hosts: Iterable[str] = self.allowed_hosts
        if isinstance(hosts, str):
            raise TypeError("allowed_hosts must be a collection of host names, not a single string")
        object.__setattr__(self, "allowed_hosts", frozenset(normalise_host(h) for h in hosts))
        if not any(marker in self.user_agent for marker in ("@", "mailto:", "http://", "https://")):
            raise ValueError("user_agent must carry a contact (URL or e-mail address) so operators can reach us")
        for name in ("min_delay_seconds", "jitter_seconds", "max_retry_after_seconds"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        for name in ("timeout_seconds", "total_timeout_seconds", "max_body_bytes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0")
        if not isinstance(self.backoff, BackoffPolicy):
            raise TypeError("backoff must be a BackoffPolicy")
        if self.max_redirects < 0:
            raise ValueError("max_redirects must be >= 0")

    @property
    def max_retries(self) -> int:
        """Retries after the first attempt."""
        return self.backoff.max_attempts - 1

    @property
    def robots_token(self) -> str:
        """Product token matched against robots.txt ``User-agent`` lines (RFC 9309 §2.2.1).

        Matching the full UA string would let a group for e.g. ``tender-radar`` match via the
        contact URL, so only the leading product name is used.
        """
        return self.user_agent.split("/", 1)[0].split()[0]

    def host_allowed(self, host: str) -> bool:
        return normalise_host(host) in self.allowed_hosts
