"""The single HTTP path for all source adapters (see ``client.py`` for the pipeline).

Import from here; the submodules are split by concern:

* ``policy``     - ``FetchPolicy``: every knob, built by the caller from settings;
* ``client``     - ``Fetcher``: allow-list, SSRF guard, robots, politeness, redirects, retries;
* ``result``     - ``FetchResult`` / ``ConditionalState`` value objects;
* ``errors``     - ``FetchError`` hierarchy with ``.reason`` codes for FetchRun records;
* ``ssrf``, ``robots``, ``retry``, ``politeness``, ``body`` - the individual guards;
* ``walls``      - ``detect_wall`` / ``raise_for_wall``: a wall is never "zero results".

No Django imports anywhere in this package.
"""

from sources.fetching.client import Fetcher
from sources.fetching.errors import (
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
from sources.fetching.policy import DEFAULT_USER_AGENT, FetchPolicy
from sources.fetching.result import ConditionalState, FetchResult
from sources.fetching.ssrf import Resolver, system_resolver
from sources.fetching.walls import detect_wall, raise_for_wall

__all__ = [
    "DEFAULT_USER_AGENT",
    "Blocked",
    "BlockedByRobots",
    "ConditionalState",
    "DisallowedHost",
    "FetchError",
    "FetchPolicy",
    "FetchResult",
    "Fetcher",
    "HttpStatusError",
    "ResolutionFailed",
    "Resolver",
    "RetriesExhausted",
    "RetryAfterTooLong",
    "SsrfRefused",
    "TooLarge",
    "TooManyRedirects",
    "detect_wall",
    "raise_for_wall",
    "system_resolver",
]
