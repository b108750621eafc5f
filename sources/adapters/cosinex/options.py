"""cosinex settings and URLs: one adapter, any Vergabemarktplatz host (DTVP, evergabe-online, VMPs). Pure."""

from __future__ import annotations

import re
from typing import Annotated, Any
from urllib.parse import urlencode

from pydantic import BeforeValidator, Field

from kernel.urls import url_host
from sources.adapters.dtvp.options import PublicListSettings
from sources.adapters.settings import TextDigits, Url, setting_problem

from . import selectors

# cosinex hosts whose public announcement list is known (portal README, 2026).
KNOWN_HOSTS: tuple[str, ...] = (
    "www.dtvp.de",
    "dtvp.de",  # DTVP's public CPV list (WordPress), sources.adapters.dtvp
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
_CPV_CODE = re.compile(r"\d{8}-\d")


def _base_url_input(value: Any) -> Any:
    host = url_host(str(value or "").strip())
    if host in WWW_ONLY_HOSTS:
        raise setting_problem(
            f"base_url: {host} scheitert ohne www. an TLS; bitte https://{WWW_ONLY_HOSTS[host]}/… verwenden."
        )
    return value


def _cpv_codes(codes: Any) -> list[str]:
    if codes in (None, [], ()):
        return []
    if not isinstance(codes, (list, tuple)) or not all(isinstance(c, str) and _CPV_CODE.fullmatch(c) for c in codes):
        raise setting_problem(
            f"cpv_codes muss eine Liste von CPV-Codes mit Prüfziffer sein (z. B. 72000000-5), nicht {codes!r}."
        )
    return list(dict.fromkeys(codes))


BaseUrl = Annotated[
    Url(paths=BASE_PATHS, application="cosinex", example="https://www.dtvp.de/Satellite"),
    BeforeValidator(_base_url_input),
]
OpendataUrl = Url(
    optional=True, allow_fragment=False, example="https://vergabe.example.de/VMPSatellite/opendata?id=<uuid>"
)


class CosinexSettings(PublicListSettings):
    """The cosinex settings; URLs must be on an allowed host.

    ``base_url`` is ``https://<host>/<Satellite|Center|VMPSatellite|VMPCenter>`` (no trailing
    slash, no query or fragment); ``opendata_url`` (optional) is the host's eForms export;
    ``cpv_codes`` (optional) lists ``NNNNNNNN-N`` categories read instead of the newest list;
    ``max_details`` caps the project pages read per run for rows without a CX id (0 = rows only).
    ``list_source``, ``public_list_url``, ``public_categories``: DTVP's public list (:mod:`sources.adapters.dtvp`).
    """

    base_url: BaseUrl = None
    opendata_url: OpendataUrl = ""
    cpv_codes: Annotated[list[str], BeforeValidator(_cpv_codes)] = []
    max_pages: Annotated[int, TextDigits, Field(ge=1, le=200)] = 10
    max_bytes: Annotated[int, TextDigits, Field(ge=10_000, le=500 * 2**20)] = 50 * 2**20
    max_details: Annotated[int, TextDigits, Field(ge=0, le=5000)] = 100


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
