"""NetServer settings and URLs: one adapter, any Vergabe@Net host, configured per Source.

Pure (no HTTP, no ORM): which hosts we may talk to, what a valid ``base_url`` is, and
how search, detail and document URLs are built from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

from sources.adapters.html import bounded_int, host_list, portal_url
from sources.fetching.policy import normalise_host

from . import selectors

# Vergabe@Net portals known to publish the public search under /NetServer/ (portal README, 2026).
KNOWN_HOSTS: tuple[str, ...] = (
    "www.tender24.de",
    "vergabe.landbw.de",
    "lhs-vpbw.vmstart.de",
    "vergabe.vmstart.de",
    "vergabe.muenchen.de",
    "vergabe.autobahn.de",
    "vergabe.hessen.de",
    "vergabekooperation.berlin",
    "evergabe.sachsen.de",
    "vergabe.bremen.de",
    "ausschreibungen.ls.brandenburg.de",
    "vergabe.lvr.de",
    "vergabe.stadt-frankfurt.de",
    "vergabe.duesseldorf.de",
)
BASE_PATH = "/NetServer/"
DEFAULTS: dict[str, Any] = {
    "categories": ["InvitationToTender"],
    "page_size": 50,
    "max_pages": 10,
    "max_bytes": 50 * 2**20,
    "max_details": 100,
}
# (minimum, maximum) of the integer settings
INT_RANGES: dict[str, tuple[int, int]] = {
    "page_size": (1, 100),
    "max_pages": (1, 200),
    "max_bytes": (10_000, 500 * 2**20),
    "max_details": (0, 5000),
}
KNOWN_SETTINGS = frozenset({"base_url", "allowed_hosts", *DEFAULTS})


def validate_netserver_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Normalised settings, or ``ValueError(list of messages)`` naming every bad setting at once.

    ``base_url`` must be ``https://<host>/NetServer/`` (trailing slash added) on a host of
    ``allowed_hosts`` if given, else of :data:`KNOWN_HOSTS`.
    """
    errors: list[str] = []
    unknown = sorted(str(key) for key in settings if key not in KNOWN_SETTINGS)
    if unknown:
        errors.append(
            f"Unknown NetServer setting(s): {', '.join(unknown)}; known: {', '.join(sorted(KNOWN_SETTINGS))}."
        )
    result: dict[str, Any] = {}
    hosts = host_list(settings.get("allowed_hosts"), errors)
    if hosts:
        result["allowed_hosts"] = hosts
    result["base_url"] = _base_url(settings.get("base_url"), hosts or KNOWN_HOSTS, errors)
    result["categories"] = _categories(settings.get("categories", DEFAULTS["categories"]), errors)
    for name, (low, high) in INT_RANGES.items():
        result[name] = bounded_int(settings, name, DEFAULTS[name], low, high, errors)
    if errors:
        raise ValueError(errors)
    return result


def _base_url(value: Any, hosts: tuple[str, ...] | list[str], errors: list[str]) -> str:
    url = portal_url(value, name="base_url", hosts=hosts, errors=errors, example="https://www.tender24.de/NetServer/")
    if not url:
        return ""
    parts = urlsplit(url)
    if parts.query:
        errors.append(f"base_url must not carry a query, got {url!r}.")
        return ""
    path = parts.path.rstrip("/") + "/"
    if path.lower() != BASE_PATH.lower():
        errors.append(f"base_url must end in {BASE_PATH} (the public NetServer application), got {url!r}.")
        return ""
    return f"{parts.scheme}://{parts.netloc}{path}"


def _categories(value: Any, errors: list[str]) -> list[str]:
    known = selectors.CATEGORIES
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        errors.append(f"categories must be a non-empty list of {', '.join(known)}, got {value!r}.")
        return list(DEFAULTS["categories"])
    wrong = [v for v in value if v not in known]
    if wrong:
        errors.append(f"Unknown NetServer categories {wrong!r}; known: {', '.join(known)}.")
        return list(DEFAULTS["categories"])
    return list(dict.fromkeys(value))


def fetch_hosts(settings: Mapping[str, Any]) -> frozenset[str]:
    """The one host a run talks to: the base URL's (redirects elsewhere are refused by the Fetcher)."""
    host = normalise_host(urlsplit(str(settings.get("base_url") or "")).hostname or "")
    return frozenset({host}) if host else frozenset()


def search_url(base_url: str, *, category: str, start: int, page_size: int) -> str:
    query = {
        **selectors.SEARCH_QUERY,
        selectors.CATEGORY_PARAM: category,
        selectors.CONTEXT_PARAM: selectors.CATEGORIES[category],
        selectors.START_PARAM: str(start),
        selectors.MAX_PARAM: str(page_size),
    }
    return f"{base_url}{selectors.SEARCH_PATH}?{urlencode(query)}"


def detail_url(base_url: str, *, oid: str, category: str) -> str:
    query = {**selectors.DETAIL_QUERY, selectors.DETAIL_ID_PARAM: oid, selectors.CATEGORY_PARAM: category}
    return f"{base_url}{selectors.DETAIL_PATH}?{urlencode(query)}"


def documents_url(base_url: str, *, oid: str) -> str:
    query = {**selectors.DOCUMENTS_QUERY, selectors.DOCUMENTS_ID_PARAM: oid}
    return f"{base_url}{selectors.DOCUMENTS_PATH}?{urlencode(query)}"
