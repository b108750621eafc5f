"""Which Source polls which host: mail notices take that Source's key (read from the Source table).

Why from the table: an operator who adds a NetServer or cosinex portal as a Source gets its
alert mails attributed to it without code changes. Only ``base_url`` / ``feed_url`` settings
are read; the seeded defaults (``DEFAULT_HOST_SOURCES``) apply where no Source names a host.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from sources.adapters.mail.portals import DEFAULT_HOST_SOURCES, bare_host

__all__ = ["host_sources_from_rows", "host_sources_current"]

URL_SETTINGS = ("base_url", "feed_url")


def host_sources_from_rows(rows: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, str]:
    """(source key, settings) rows -> {bare host: key}; the first Source naming a host wins."""
    mapping: dict[str, str] = {}
    for key, settings in rows:
        for name in URL_SETTINGS:
            value = settings.get(name) if isinstance(settings, Mapping) else None
            if not isinstance(value, str):
                continue
            try:
                host = bare_host(urlsplit(value.strip()).hostname or "")
            except ValueError:
                continue
            if host:
                mapping.setdefault(host, key)
    return {**DEFAULT_HOST_SOURCES, **mapping}


def host_sources_current() -> dict[str, str]:
    """The mapping for this installation (one query over the Source table)."""
    from sources.models import Source

    rows = Source.objects.exclude(adapter="mail").order_by("key").values_list("key", "settings")
    return host_sources_from_rows(rows)
