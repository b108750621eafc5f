"""Exceptions raised by the fetching layer.

Why a hierarchy: adapters and the FetchRun bookkeeping need to tell "the portal
said no" (robots, wall, 4xx) from "the portal is flaky" (retries exhausted) and
from "we refused" (host allow-list, SSRF, size). Every error carries the URL in
its message for humans and a short ``reason`` code for FetchRun records.

All errors pickle cleanly (task queues ship exceptions between processes).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "Blocked",
    "BlockedByRobots",
    "DisallowedHost",
    "FetchError",
    "HttpStatusError",
    "ResolutionFailed",
    "RetriesExhausted",
    "RetryAfterTooLong",
    "SsrfRefused",
    "TooLarge",
    "TooManyRedirects",
]


def _restore(cls: type[FetchError], args: tuple[Any, ...], state: dict[str, Any]) -> FetchError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class FetchError(Exception):
    """Base class. ``url`` is the URL the problem is about, ``reason`` a short machine code."""

    reason: str = "fetch_error"

    def __init__(self, url: str, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.message = message
        if reason is not None:
            self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (type(self), self.args, dict(self.__dict__)))


class BlockedByRobots(FetchError):
    """``reason`` is "robots" for a real Disallow, "robots_unreachable" when robots.txt could not be read."""

    reason = "robots"

    def __init__(self, url: str, *, robots_url: str, detail: str, reason: str | None = None) -> None:
        super().__init__(url, f"robots.txt ({robots_url}) forbids fetching {url}: {detail}", reason=reason)
        self.robots_url = robots_url


class DisallowedHost(FetchError):
    """The target (or a redirect hop) is outside the policy: host not allowed or scheme not http(s)."""

    reason = "disallowed_host"

    def __init__(self, url: str, *, host: str, detail: str, reason: str | None = None) -> None:
        super().__init__(url, f"refusing to fetch {url}: {detail}", reason=reason)
        self.host = host


class SsrfRefused(DisallowedHost):
    """The host resolves to an address we must never talk to (private, loopback, metadata, …)."""

    reason = "ssrf"

    def __init__(self, url: str, *, host: str, address: str, category: str) -> None:
        super().__init__(url, host=host, detail=f"host {host!r} resolves to {category} address {address}")
        self.address = address
        self.category = category


class ResolutionFailed(FetchError):
    reason = "dns"

    def __init__(self, url: str, *, host: str, detail: str) -> None:
        super().__init__(url, f"cannot resolve host {host!r} for {url}: {detail}")
        self.host = host


class TooLarge(FetchError):
    reason = "too_large"

    def __init__(self, url: str, *, limit: int, declared: int | None = None) -> None:
        size = f"Content-Length {declared}" if declared is not None else "streamed body"
        super().__init__(url, f"response from {url} exceeds max_body_bytes={limit} ({size})")
        self.limit = limit
        self.declared = declared


class HttpStatusError(FetchError):
    def __init__(self, url: str, status: int) -> None:
        super().__init__(url, f"HTTP {status} for {url}", reason=f"http_{status}")
        self.status = status


class TooManyRedirects(FetchError):
    reason = "too_many_redirects"

    def __init__(self, url: str, *, limit: int) -> None:
        super().__init__(url, f"more than {limit} redirects starting at {url}")
        self.limit = limit


class RetryAfterTooLong(FetchError):
    reason = "retry_after_too_long"

    def __init__(self, url: str, *, status: int, retry_after: float, limit: float) -> None:
        super().__init__(
            url,
            f"HTTP {status} from {url} asks us to wait {retry_after:.0f}s (Retry-After), "
            f"more than max_retry_after_seconds={limit:.0f}; giving up for this run",
        )
        self.status = status
        self.retry_after = retry_after
        self.limit = limit


class RetriesExhausted(FetchError):
    reason = "retries_exhausted"

    def __init__(self, url: str, *, attempts: int, last_status: int | None, last_error: str | None) -> None:
        last = f"HTTP {last_status}" if last_status is not None else (last_error or "unknown error")
        super().__init__(url, f"giving up on {url} after {attempts} attempts (last: {last})")
        self.attempts = attempts
        self.last_status = last_status
        self.last_error = last_error


class Blocked(FetchError):
    """The portal answered, but with a wall (login, consent, error page) instead of results.

    ``wall`` is the kind reported by :func:`kernel.network.walls.detect_wall`; ``reason`` stays
    ``"blocked"`` so FetchRun statistics group all walls together.
    """

    reason = "blocked"

    def __init__(self, final_url: str, reason: str) -> None:
        super().__init__(final_url, f"blocked by a {reason} wall at {final_url}; this is not an empty result")
        self.final_url = final_url
        self.wall = reason
