"""The one HTTP path every source adapter uses.

Why one path: politeness, robots.txt, the SSRF guard, size limits and retries
are easy to forget in one adapter out of twenty. ``Fetcher`` applies all of
them to every request, including robots.txt itself and every redirect hop.

Per request: validate target (scheme http/https, host in ``allowed_hosts``, every
resolved address public) -> robots.txt -> politeness wait -> send (redirects are
*not* followed by httpx) -> on 3xx validate the Location and repeat -> retries
for 429/5xx/timeouts/connection errors -> stream the body up to
``max_body_bytes``.

Limits: synchronous, one request at a time per instance; state (robots, host
timestamps) is per instance, so create one ``Fetcher`` per run. ``post_json`` is
for read-only search APIs (e.g. TED search): it is retried like a GET. Cookies a
server sets are kept for the run (portals such as Vergabe@Net hold the search in a
session), scoped to their host as a browser would, and forgotten with the instance.
The User-Agent always comes from the policy.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from kernel.network.body import read_limited
from kernel.network.errors import (
    BlockedByRobots,
    DisallowedHost,
    FetchError,
    HttpStatusError,
    RetriesExhausted,
    RetryAfterTooLong,
    SsrfRefused,
    TooManyRedirects,
)
from kernel.network.policy import FetchPolicy, normalise_host
from kernel.network.politeness import HostThrottle
from kernel.network.result import ConditionalState, FetchResult, headers_to_dict
from kernel.network.retry import RETRY_AFTER_STATUSES, is_retryable_status, parse_retry_after
from kernel.network.robots import ROBOTS_MAX_BYTES, RobotsCache, RobotsRules, rules_from_response
from kernel.network.ssrf import Resolver, check_target, guarded_transport, system_resolver
from kernel.urls import UrlRefused, parse_url

__all__ = ["Fetcher"]

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
ROBOTS_MAX_REDIRECTS = 5  # RFC 9309 §2.3.1.2


@dataclass(frozen=True)
class _Outcome:
    status: int
    headers: dict[str, str]
    body: bytes
    final_url: str
    redirects: tuple[str, ...]


class Fetcher:
    """Guarded, polite HTTP client. Use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        policy: FetchPolicy,
        *,
        sleep: Callable[[float], object] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
        resolver: Resolver | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.policy = policy
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._resolver = resolver or system_resolver
        if transport is None:
            transport = guarded_transport(resolver=self._resolver, allow_loopback=policy.allow_loopback)
        self._client = httpx.Client(
            transport=transport,
            follow_redirects=False,
            timeout=httpx.Timeout(policy.timeout_seconds),
            headers={"User-Agent": policy.user_agent},
            trust_env=False,
        )
        self._throttle = HostThrottle(sleep=sleep, clock=clock, rng=self._rng)
        self._robots = RobotsCache(self._load_robots)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- public API ---------------------------------------------------------------------------

    def get(
        self, url: str, *, conditional: ConditionalState | None = None, headers: Mapping[str, str] | None = None
    ) -> FetchResult:
        """GET ``url``; with ``conditional`` a 304 yields ``not_modified=True`` and an empty body."""
        request_headers = dict(headers or {})
        if conditional is not None:
            request_headers.update(conditional.request_headers())
        return self._fetch("GET", url, None, request_headers, conditional)

    def post_json(self, url: str, json_body: Any, *, headers: Mapping[str, str] | None = None) -> FetchResult:
        """POST ``json_body`` as UTF-8 JSON (for search APIs; see module limits on retries)."""
        request_headers = {"Content-Type": "application/json", "Accept": "application/json", **(headers or {})}
        content = json.dumps(json_body, ensure_ascii=False).encode("utf-8")
        return self._fetch("POST", url, content, request_headers, None)

    # -- internals ----------------------------------------------------------------------------

    def _fetch(
        self,
        method: str,
        url: str,
        content: bytes | None,
        headers: dict[str, str],
        conditional: ConditionalState | None,
    ) -> FetchResult:
        started = self._clock()
        outcome = self._follow(
            method, url, content, headers,
            check_robots=self.policy.respect_robots,
            max_redirects=self.policy.max_redirects,
            body_limit=self.policy.max_body_bytes,
            truncate=False,
        )  # fmt: skip
        if outcome.status == 304 or 200 <= outcome.status <= 299:
            return FetchResult(
                url=url,
                final_url=outcome.final_url,
                status=outcome.status,
                headers=outcome.headers,
                body=outcome.body,
                not_modified=outcome.status == 304,
                conditional=ConditionalState.from_headers(outcome.headers, previous=conditional),
                elapsed=self._clock() - started,
                redirects=outcome.redirects,
            )
        raise HttpStatusError(outcome.final_url, outcome.status)

    def _follow(
        self,
        method: str,
        url: str,
        content: bytes | None,
        headers: dict[str, str],
        *,
        check_robots: bool,
        max_redirects: int,
        body_limit: int,
        truncate: bool,
    ) -> _Outcome:
        """Send with retries and follow redirects hop by hop, validating every hop."""
        hops: list[str] = []
        current = url
        while True:
            parsed = check_target(current, self.policy, resolver=self._resolver)
            if check_robots:
                self._check_robots(str(parsed), parsed)
            status, response_headers, body = self._send_with_retries(
                method, current, parsed, content, headers, body_limit=body_limit, truncate=truncate
            )
            location = response_headers.get("location")
            if status not in REDIRECT_STATUSES or not location:
                return _Outcome(status, response_headers, body, current, tuple(hops))
            if len(hops) >= max_redirects:
                raise TooManyRedirects(url, limit=max_redirects)
            hops.append(current)
            try:
                # Resolved as browsers resolve a Location (WHATWG), so the hop checked is the hop taken.
                current = parse_url(location, base=current).href
            except UrlRefused as exc:
                raise FetchError(
                    current, f"invalid redirect Location {location!r} from {current}", reason="invalid_url"
                ) from exc
            if status in (301, 302, 303) and method == "POST":
                # Browser behaviour: the follow-up is a GET without body.
                method, content = "GET", None
                headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}

    def _check_robots(self, url: str, parsed: httpx.URL) -> None:
        rules = self._robots.rules_for(parsed)
        token = self.policy.robots_token
        if not rules.allows(url, token):
            reason = "robots_unreachable" if rules.unreachable is not None else "robots"
            raise BlockedByRobots(url, robots_url=rules.robots_url, detail=rules.denial_detail(token), reason=reason)

    def _load_robots(self, robots_url: str) -> RobotsRules:
        """Fetch robots.txt through the guarded path; see :mod:`.robots` for the status mapping.

        Policy refusals (host not allowed, SSRF) propagate: they are configuration problems and
        clearer than a robots error. Every other failure means "unreachable".
        """
        try:
            outcome = self._follow(
                "GET", robots_url, None, {},
                check_robots=False,
                max_redirects=ROBOTS_MAX_REDIRECTS,
                body_limit=ROBOTS_MAX_BYTES,
                truncate=True,
            )  # fmt: skip
        except DisallowedHost:
            raise
        except FetchError as exc:
            return RobotsRules(robots_url, unreachable=exc.reason)
        return rules_from_response(robots_url, outcome.status, outcome.body)

    def _send_with_retries(
        self,
        method: str,
        url: str,
        parsed: httpx.URL,
        content: bytes | None,
        headers: dict[str, str],
        *,
        body_limit: int,
        truncate: bool,
    ) -> tuple[int, dict[str, str], bytes]:
        """One hop: retry 429/5xx/transport errors with Retry-After or capped full-jitter backoff."""
        policy = self.policy
        last_status: int | None = None
        last_error: str | None = None
        for retry_number in range(policy.max_retries + 1):
            try:
                status, response_headers, body = self._send_once(
                    method, url, parsed, content, headers, body_limit=body_limit, truncate=truncate
                )
            except httpx.TransportError as exc:  # timeouts, connection refused/reset, protocol errors
                last_status, last_error = None, f"{type(exc).__name__}: {exc}"
                delay = policy.backoff.wait_seconds(retry_number + 1, rng=self._rng)
            else:
                if not is_retryable_status(status):
                    return status, response_headers, body
                last_status, last_error = status, None
                retry_after = None
                if status in RETRY_AFTER_STATUSES:
                    retry_after = parse_retry_after(
                        response_headers.get("retry-after"), date_header=response_headers.get("date")
                    )
                if retry_after is not None and retry_after > policy.max_retry_after_seconds:
                    raise RetryAfterTooLong(
                        url, status=status, retry_after=retry_after, limit=policy.max_retry_after_seconds
                    )
                if retry_after is not None:
                    delay = retry_after
                else:
                    delay = policy.backoff.wait_seconds(retry_number + 1, rng=self._rng)
            if retry_number < policy.max_retries:
                self._sleep(delay)
        raise RetriesExhausted(url, attempts=policy.max_retries + 1, last_status=last_status, last_error=last_error)

    def _host_delay(self, parsed: httpx.URL) -> float:
        delay = self.policy.min_delay_seconds
        rules = self._robots.cached(parsed)  # never load here: we may be fetching robots.txt itself
        if self.policy.respect_robots and rules is not None:
            crawl_delay = rules.crawl_delay(self.policy.robots_token)
            if crawl_delay is not None:
                # Honour Crawl-delay, but never beyond the longest wait we accept at all.
                delay = max(delay, min(crawl_delay, self.policy.max_retry_after_seconds))
        return delay

    def _send_once(
        self,
        method: str,
        url: str,
        parsed: httpx.URL,
        content: bytes | None,
        headers: dict[str, str],
        *,
        body_limit: int,
        truncate: bool,
    ) -> tuple[int, dict[str, str], bytes]:
        host = normalise_host(parsed.host)
        self._throttle.wait(host, min_delay=self._host_delay(parsed), jitter=self.policy.jitter_seconds)
        headers = {k: v for k, v in headers.items() if k.lower() != "user-agent"}
        headers["User-Agent"] = self.policy.user_agent
        # ``parsed`` (the checked WHATWG serialisation), never ``url``: httpx would read the text its own way.
        request = self._client.build_request(method, parsed, content=content, headers=headers)
        deadline = self._clock() + self.policy.total_timeout_seconds
        try:
            response = self._client.send(request, stream=True)
            try:
                response_headers = headers_to_dict(response.headers.multi_items())
                body = b""
                if 200 <= response.status_code <= 299:
                    body = read_limited(
                        response, url, limit=body_limit, truncate=truncate, deadline=deadline, clock=self._clock
                    )
            finally:
                response.close()
        except SsrfRefused as exc:  # raised by the connect-time guard (DNS rebinding); attach the real URL
            raise SsrfRefused(url, host=exc.host, address=exc.address, category=exc.category) from exc
        except httpx.DecodingError as exc:  # broken gzip/brotli: retrying will not help
            raise FetchError(url, f"cannot decode the body of {url}: {exc}", reason="bad_content_encoding") from exc
        finally:
            self._throttle.mark(host)
        return response.status_code, response_headers, body
