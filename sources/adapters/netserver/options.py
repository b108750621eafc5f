"""NetServer settings and URLs: one adapter, any Vergabe@Net host, configured per Source.

Pure (no HTTP, no ORM): which hosts we may talk to, what a valid ``base_url`` is, and
how search, detail and document URLs are built from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from sources.adapters.settings import application_url, bounded_ints

from . import selectors

# Vergabe@Net portals known to publish the public search under /NetServer/ (portal README, 2026),
# with the ``www.`` forms hosts really serve (Brandenburg is reported as www.ausschreibungen…).
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
    "www.ausschreibungen.ls.brandenburg.de",
    "vergabe.lvr.de",
    "vergabe.stadt-frankfurt.de",
    "vergabe.duesseldorf.de",
)
# Domains all of whose hosts are NetServer's: the vendor (AI AG) and the shared hosting of municipal
# portals (<name>.vmstart.de). With KNOWN_HOSTS they are the family's mail domains (mail.portals).
FAMILY_DOMAINS: tuple[str, ...] = ("vmstart.de", "ai-ag.de")
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


def check_netserver_settings(settings: Mapping[str, Any], *, hosts: Sequence[str], errors: list[str]) -> dict[str, Any]:
    """The NetServer settings, defaults filled in; problems appended to ``errors``.

    ``base_url`` must be ``https://<host>/NetServer/`` (trailing slash added; no query or
    fragment) on one of ``hosts`` (``allowed_hosts`` if given, else :data:`KNOWN_HOSTS`).
    """
    result: dict[str, Any] = {
        "base_url": application_url(
            settings.get("base_url"),
            hosts=hosts,
            errors=errors,
            paths=(BASE_PATH,),
            application="public NetServer",
            example="https://www.tender24.de/NetServer/",
        )
    }
    result["categories"] = _categories(settings.get("categories", DEFAULTS["categories"]), errors)
    result.update(bounded_ints(settings, ranges=INT_RANGES, defaults=DEFAULTS, errors=errors))
    return result


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
