"""cosinex settings and URLs: one adapter, any Vergabemarktplatz host (DTVP, evergabe-online, VMPs). Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

from sources.adapters.html import bounded_int, host_list, portal_url
from sources.fetching.policy import normalise_host

from . import selectors

# cosinex hosts whose public announcement list is known (portal README, 2026).
KNOWN_HOSTS: tuple[str, ...] = (
    "www.dtvp.de",
    "evergabe-online.de",
    "www.evergabe-online.de",
    "vergabe.niedersachsen.de",
    "vergabemarktplatz.brandenburg.de",
    "evergabe.nrw.de",
    "www.evergabe.nrw.de",
    "vergabe-westfalen.de",
    "www.vergabe-westfalen.de",
    "vmp-rheinland.de",
    "www.vmp-rheinland.de",
    "vergabe.metropoleruhr.de",
    "vergabe.stadt-koeln.de",
)
# The application prefixes seen on those hosts.
BASE_PATHS = ("/Satellite", "/Center", "/VMPSatellite", "/VMPCenter")
DEFAULTS: dict[str, Any] = {"max_pages": 10, "max_bytes": 50 * 2**20}
INT_RANGES: dict[str, tuple[int, int]] = {"max_pages": (1, 200), "max_bytes": (10_000, 500 * 2**20)}
KNOWN_SETTINGS = frozenset({"base_url", "allowed_hosts", "opendata_url", "cpv_codes", *DEFAULTS})
_CPV_CODE = re.compile(r"\d{8}-\d")


def validate_cosinex_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Normalised settings, or ``ValueError(list of messages)`` naming every bad setting at once.

    ``base_url`` is ``https://<host>/<Satellite|Center|VMPSatellite|VMPCenter>`` (no trailing
    slash); ``opendata_url`` (optional) is the host's eForms export, on an allowed host;
    ``cpv_codes`` (optional) lists ``NNNNNNNN-N`` categories read instead of the newest list.
    """
    errors: list[str] = []
    unknown = sorted(str(key) for key in settings if key not in KNOWN_SETTINGS)
    if unknown:
        errors.append(f"Unknown cosinex setting(s): {', '.join(unknown)}; known: {', '.join(sorted(KNOWN_SETTINGS))}.")
    result: dict[str, Any] = {}
    hosts = host_list(settings.get("allowed_hosts"), errors)
    if hosts:
        result["allowed_hosts"] = hosts
    allowed = hosts or list(KNOWN_HOSTS)
    result["base_url"] = _base_url(settings.get("base_url"), allowed, errors)
    opendata = settings.get("opendata_url")
    if opendata not in (None, ""):
        url = portal_url(
            opendata,
            name="opendata_url",
            hosts=allowed,
            errors=errors,
            example="https://vergabe.example.de/VMPSatellite/opendata?id=<uuid>",
        )
        if url:
            result["opendata_url"] = url
    codes = settings.get("cpv_codes")
    if codes not in (None, [], ()):
        valid = isinstance(codes, (list, tuple)) and all(isinstance(c, str) and _CPV_CODE.fullmatch(c) for c in codes)
        if not valid:
            errors.append(f"cpv_codes must be a list of CPV codes with check digit (e.g. 72000000-5), got {codes!r}.")
        else:
            result["cpv_codes"] = list(dict.fromkeys(codes))
    for name, (low, high) in INT_RANGES.items():
        result[name] = bounded_int(settings, name, DEFAULTS[name], low, high, errors)
    if errors:
        raise ValueError(errors)
    return result


def _base_url(value: Any, hosts: list[str], errors: list[str]) -> str:
    url = portal_url(value, name="base_url", hosts=hosts, errors=errors, example="https://www.dtvp.de/Satellite")
    if not url:
        return ""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if parts.query:
        errors.append(f"base_url must not carry a query, got {url!r}.")
        return ""
    if path not in BASE_PATHS:
        errors.append(f"base_url must end in one of {', '.join(BASE_PATHS)} (the cosinex application), got {url!r}.")
        return ""
    return f"{parts.scheme}://{parts.netloc}{path}"


def fetch_hosts(settings: Mapping[str, Any]) -> frozenset[str]:
    """The hosts of ``base_url`` and ``opendata_url``: the only ones a run talks to."""
    urls = (settings.get("base_url"), settings.get("opendata_url"))
    return frozenset(normalise_host(urlsplit(str(u)).hostname or "") for u in urls if u) - {""}


def list_url(base_url: str, page: int) -> str:
    if page <= 1:
        return f"{base_url}/{selectors.LIST_PATH}"
    return f"{base_url}/{selectors.LIST_PATH}?{urlencode({**selectors.PAGE_QUERY, selectors.PAGE_PARAM: page})}"


def category_url(base_url: str, cpv_code: str) -> str:
    query = {**selectors.CATEGORY_QUERY, selectors.CPV_PARAM: cpv_code}
    return f"{base_url}/{selectors.CATEGORY_LIST_PATH}?{urlencode(query)}"


def notice_url(base_url: str, project_id: str) -> str:
    return f"{base_url}/{selectors.NOTICE_PATH.format(project_id=project_id)}"
