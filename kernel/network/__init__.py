"""Outbound network: the one way this code reaches another host.

Source adapters fetch through ``Fetcher``; the tenant side's SMTP, IMAP and webhook code
checks its targets with the same SSRF guard (``resolve_and_check``, ``guarded_transport``)
and decodes foreign bytes with the same ``decode_bytes``. Import from here, never from a
submodule (contract ``network-public-surface`` in ``.importlinter``); the submodules are
split by concern:

* ``policy``     - ``FetchPolicy``: every knob, built by the caller from settings;
* ``client``     - ``Fetcher``: allow-list, SSRF guard, robots, politeness, redirects, retries;
* ``result``     - ``FetchResult`` / ``ConditionalState`` value objects;
* ``errors``     - ``FetchError`` hierarchy with ``.reason`` codes for FetchRun records;
* ``relays``     - ``RelayGrant``: internal mail servers an operator approved (the guard's one exception);
* ``ssrf``, ``robots``, ``retry``, ``politeness``, ``body`` - the individual guards;
* ``backoff``    - ``BackoffPolicy``: the one retry formula of every channel (fetcher, outbox, webhooks);
* ``walls``      - ``detect_wall`` / ``raise_for_wall``: a wall is never "zero results";
* ``decoding``   - ``decode_bytes``: BOM > Content-Type > ``<meta>``/XML declaration > UTF-8 > windows-1252.

No Django imports anywhere in this package, and nothing from the apps that use it.
"""

from kernel.network.backoff import BackoffPolicy
from kernel.network.body import read_limited
from kernel.network.client import Fetcher
from kernel.network.decoding import Decoded, decode_bytes
from kernel.network.errors import (
    Blocked,
    BlockedByRobots,
    DisallowedHost,
    FetchError,
    HttpStatusError,
    ResolutionFailed,
    RetriesExhausted,
    RetryAfterTooLong,
    SsrfRefused,
    TooLarge,
    TooManyRedirects,
)
from kernel.network.policy import DEFAULT_USER_AGENT, FetchPolicy, normalise_host
from kernel.network.relays import RelayGrant, relay_exemption, relay_target_parse
from kernel.network.result import ConditionalState, FetchResult
from kernel.network.retry import parse_retry_after
from kernel.network.ssrf import Resolver, connect_checked, guarded_transport, resolve_and_check, system_resolver
from kernel.network.walls import detect_wall, raise_for_wall

__all__ = [
    "DEFAULT_USER_AGENT",
    "BackoffPolicy",
    "Blocked",
    "BlockedByRobots",
    "ConditionalState",
    "Decoded",
    "DisallowedHost",
    "FetchError",
    "FetchPolicy",
    "FetchResult",
    "Fetcher",
    "HttpStatusError",
    "ResolutionFailed",
    "Resolver",
    "RelayGrant",
    "RetriesExhausted",
    "RetryAfterTooLong",
    "SsrfRefused",
    "TooLarge",
    "TooManyRedirects",
    "connect_checked",
    "decode_bytes",
    "detect_wall",
    "guarded_transport",
    "normalise_host",
    "parse_retry_after",
    "raise_for_wall",
    "read_limited",
    "relay_exemption",
    "relay_target_parse",
    "resolve_and_check",
    "system_resolver",
]
