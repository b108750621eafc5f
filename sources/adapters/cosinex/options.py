"""cosinex settings and URLs: one adapter, any Vergabemarktplatz host (DTVP, evergabe-online, VMPs). Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode, urlsplit

from sources.adapters.settings import application_url, bounded_ints, endpoint_url

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
    "www.vergabe.metropoleruhr.de",
    "vergabe.stadt-koeln.de",
)
# Domains all of whose hosts are cosinex's (the vendor); with KNOWN_HOSTS the family's mail domains (mail.portals).
FAMILY_DOMAINS: tuple[str, ...] = ("cosinex.de",)
# Hosts that answer only under their www. name (public clients, 2026): the bare name fails TLS.
WWW_ONLY_HOSTS: dict[str, str] = {"vergabe.metropoleruhr.de": "www.vergabe.metropoleruhr.de"}
# The application prefixes seen on those hosts.
BASE_PATHS = ("/Satellite", "/Center", "/VMPSatellite", "/VMPCenter")
# max_details: project pages read per run for list rows that carry only a pid (0 = rows only).
DEFAULTS: dict[str, Any] = {"max_pages": 10, "max_bytes": 50 * 2**20, "max_details": 100}
INT_RANGES: dict[str, tuple[int, int]] = {
    "max_pages": (1, 200),
    "max_bytes": (10_000, 500 * 2**20),
    "max_details": (0, 5000),
}
KNOWN_SETTINGS = frozenset({"base_url", "allowed_hosts", "opendata_url", "cpv_codes", *DEFAULTS})
_CPV_CODE = re.compile(r"\d{8}-\d")


def check_cosinex_settings(settings: Mapping[str, Any], *, hosts: Sequence[str], errors: list[str]) -> dict[str, Any]:
    """The cosinex settings, defaults filled in; problems appended to ``errors``. URLs must be on one of ``hosts``.

    ``base_url`` is ``https://<host>/<Satellite|Center|VMPSatellite|VMPCenter>`` (no trailing
    slash, no query or fragment); ``opendata_url`` (optional) is the host's eForms export, on an
    allowed host; ``cpv_codes`` (optional) lists ``NNNNNNNN-N`` categories read instead of the
    newest list; ``max_details`` caps the project pages read per run for rows without a CX id.
    """
    base_host = (urlsplit(str(settings.get("base_url") or "")).hostname or "").lower()
    if base_host in WWW_ONLY_HOSTS:
        errors.append(
            f"base_url: {base_host} fails TLS without www.; use https://{WWW_ONLY_HOSTS[base_host]}/… instead."
        )
        return {}
    result: dict[str, Any] = {
        "base_url": application_url(
            settings.get("base_url"),
            hosts=hosts,
            errors=errors,
            paths=BASE_PATHS,
            application="cosinex",
            example="https://www.dtvp.de/Satellite",
        )
    }
    opendata = settings.get("opendata_url")
    if opendata not in (None, ""):
        url = endpoint_url(
            opendata,
            setting="opendata_url",
            hosts=hosts,
            errors=errors,
            example="https://vergabe.example.de/VMPSatellite/opendata?id=<uuid>",
            allow_fragment=False,
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
    result.update(bounded_ints(settings, ranges=INT_RANGES, defaults=DEFAULTS, errors=errors))
    return result


def list_url(base_url: str, page: int) -> str:
    if page <= 1:
        return f"{base_url}/{selectors.LIST_PATH}"
    return f"{base_url}/{selectors.LIST_PATH}?{urlencode({**selectors.PAGE_QUERY, selectors.PAGE_PARAM: page})}"


def category_url(base_url: str, cpv_code: str, page: int = 1) -> str:
    query = {**selectors.CATEGORY_QUERY, selectors.CPV_PARAM: cpv_code}
    if page > 1:
        query.update({**selectors.CATEGORY_PAGE_QUERY, selectors.PAGE_PARAM: str(page)})
    return f"{base_url}/{selectors.CATEGORY_LIST_PATH}?{urlencode(query)}"


def project_url(base_url: str, pid: str) -> str:
    """The page behind a list row's ``projectForwarding.do?pid=`` link, built on the source's own base."""
    return f"{base_url}/{selectors.FORWARD_PATH}?{urlencode({selectors.FORWARD_PARAM: pid})}"


def notice_url(base_url: str, project_id: str) -> str:
    return f"{base_url}/{selectors.NOTICE_PATH.format(project_id=project_id)}"
