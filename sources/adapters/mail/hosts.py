"""Which Source polls which host: mail notices take that Source's key (rows of the Source table).

Pure: the rows come from ``sources.selectors`` (adapters never touch the ORM). Why from the
table: an operator who adds a NetServer or cosinex portal as a Source gets its
alert mails attributed to it without code changes. Only ``base_url`` / ``feed_url`` settings
are read; the seeded defaults (``DEFAULT_HOST_SOURCES``) apply where no Source names a host.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kernel.urls import url_host
from sources.adapters.mail.portals import COSINEX, DEFAULT_HOST_SOURCES, NETSERVER, PORTAL_DOMAINS, bare_host

__all__ = ["ADAPTER_FAMILIES", "host_sources_from_rows", "portal_domains_from_rows"]

URL_SETTINGS = ("base_url", "feed_url")
# Adapter types whose Sources are portals of a mail family: their hosts send and are linked by its alerts.
ADAPTER_FAMILIES = {"netserver": NETSERVER, "cosinex": COSINEX}


def host_sources_from_rows(rows: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, str]:
    """(source key, settings) rows -> {bare host: key}; the first Source naming a host wins."""
    mapping: dict[str, str] = {}
    for key, settings in rows:
        for name in URL_SETTINGS:
            value = settings.get(name) if isinstance(settings, Mapping) else None
            if not isinstance(value, str):
                continue
            host = bare_host(url_host(value.strip()))  # as browsers and the fetcher read it (kernel.urls)
            if host:
                mapping.setdefault(host, key)
    return {**DEFAULT_HOST_SOURCES, **mapping}


def portal_domains_from_rows(rows: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, tuple[str, ...]]:
    """(adapter type, settings) rows -> the known domains of each portal family, Sources' hosts added."""
    domains = {family: list(known) for family, known in PORTAL_DOMAINS.items()}
    for adapter, settings in rows:
        family = ADAPTER_FAMILIES.get(adapter)
        if family is None or not isinstance(settings, Mapping):
            continue
        for name in URL_SETTINGS:
            value = settings.get(name)
            host = bare_host(url_host(value.strip())) if isinstance(value, str) else ""
            if host and host not in domains[family]:
                domains[family].append(host)
    return {family: tuple(hosts) for family, hosts in domains.items()}
