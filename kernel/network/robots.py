"""robots.txt handling (RFC 9309) on top of protego.

Why: we only fetch what portals allow. robots.txt is fetched once per origin
(scheme + host + port, as RFC 9309 scopes it) per ``Fetcher`` instance, i.e. once
per run, through the same guarded path as every other request (allow-list, SSRF
guard, politeness, retries).

How answers map to rules (RFC 9309 §2.3.1 and Google's documented behaviour):

* 2xx            -> parse (first 512 KiB, the RFC's minimum parse limit);
* 4xx except 429 -> "unavailable": everything allowed (404/410 are the usual case);
* 429, 5xx, timeouts, connection/DNS errors, too many redirects
                 -> "unreachable": everything disallowed *for this run*; the next run
                    asks again. Crawling a site whose robots.txt we could not read
                    could ignore a Disallow that is really there.

Rules are matched with the policy's product token (``TenderRadar``), not the
full User-Agent string. ``Crawl-delay`` is honoured by raising the per-host delay.

Limits: no cross-run cache (no Django here); ``Request-rate``/``Visit-time`` ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx
from protego import Protego

__all__ = ["ROBOTS_MAX_BYTES", "RobotsCache", "RobotsRules", "robots_url_for", "rules_from_response"]

ROBOTS_MAX_BYTES = 512 * 1024


def _origin(url: httpx.URL) -> str:
    port = f":{url.port}" if url.port is not None else ""
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{url.scheme}://{host}{port}"


def robots_url_for(url: httpx.URL) -> str:
    return f"{_origin(url)}/robots.txt"


@dataclass(frozen=True)
class RobotsRules:
    robots_url: str
    parser: Protego | None = None
    # Set when robots.txt was unreachable: everything is disallowed, and this says why.
    unreachable: str | None = None

    def allows(self, url: str, token: str) -> bool:
        if self.unreachable is not None:
            return False
        if self.parser is None:
            return True
        return bool(self.parser.can_fetch(url, token))

    def crawl_delay(self, token: str) -> float | None:
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(token)
        return float(delay) if delay is not None else None

    def denial_detail(self, token: str) -> str:
        if self.unreachable is not None:
            return f"robots.txt unreachable ({self.unreachable}); treating the site as disallowed for this run"
        return f"disallowed for user-agent {token!r}"


def rules_from_response(robots_url: str, status: int, body: bytes) -> RobotsRules:
    """Map a robots.txt HTTP answer to rules (see module docstring)."""
    if 200 <= status <= 299:
        text = body[:ROBOTS_MAX_BYTES].decode("utf-8", errors="replace")
        return RobotsRules(robots_url, parser=Protego.parse(text))
    if 400 <= status <= 499 and status != 429:
        return RobotsRules(robots_url)
    return RobotsRules(robots_url, unreachable=f"HTTP {status}")


class RobotsCache:
    """Rules per origin, loaded lazily with ``loader(robots_url)`` and kept for the instance's life."""

    def __init__(self, loader: Callable[[str], RobotsRules]) -> None:
        self._loader = loader
        self._rules: dict[str, RobotsRules] = {}

    def cached(self, url: httpx.URL) -> RobotsRules | None:
        return self._rules.get(_origin(url))

    def rules_for(self, url: httpx.URL) -> RobotsRules:
        key = _origin(url)
        if key not in self._rules:
            self._rules[key] = self._loader(robots_url_for(url))
        return self._rules[key]
