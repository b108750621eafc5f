"""NetServer settings and URLs: one adapter, any Vergabe@Net host, configured per Source.

Pure (no HTTP, no ORM): which hosts we may talk to, what a valid ``base_url`` is, and
how search, detail and document URLs are built from it.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from pydantic import BeforeValidator, Field

from sources.adapters.settings import AdapterSettings, TextDigits, Url, setting_problem

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
DEFAULT_CATEGORIES = ("InvitationToTender",)


def _categories(value: Any) -> list[str]:
    known = selectors.CATEGORIES
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        raise setting_problem(f"categories muss eine nicht leere Liste aus {', '.join(known)} sein, nicht {value!r}.")
    wrong = [v for v in value if v not in known]
    if wrong:
        raise setting_problem(f"Unbekannte NetServer-Kategorien {wrong!r}; bekannt: {', '.join(known)}.")
    return list(dict.fromkeys(value))


BaseUrl = Url(paths=(BASE_PATH,), application="öffentliche NetServer", example="https://www.tender24.de/NetServer/")


class NetServerSettings(AdapterSettings):
    """``base_url`` is ``https://<host>/NetServer/`` (trailing slash added; no query or fragment) on one of
    the hosts (``allowed_hosts`` if given, else :data:`KNOWN_HOSTS`); the rest have defaults."""

    base_url: BaseUrl = None
    categories: Annotated[list[str], BeforeValidator(_categories)] = list(DEFAULT_CATEGORIES)
    page_size: Annotated[int, TextDigits, Field(ge=1, le=100)] = 50
    max_pages: Annotated[int, TextDigits, Field(ge=1, le=200)] = 10
    max_bytes: Annotated[int, TextDigits, Field(ge=10_000, le=500 * 2**20)] = 50 * 2**20
    max_details: Annotated[int, TextDigits, Field(ge=0, le=5000)] = 100


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
