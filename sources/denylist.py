"""Portals whose terms forbid automated access. Refused in code, not by convention.

The check runs when an adapter is registered, when a Source row is saved (the
admin included) and before every fetch; there is no switch to turn it off.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernel.urls import url_host


@dataclass(frozen=True)
class DeniedPortal:
    key: str
    name: str
    hosts: tuple[str, ...]
    reason: str


DENIED_PORTALS: tuple[DeniedPortal, ...] = (
    DeniedPortal(
        key="vergabe24",
        name="vergabe24",
        hosts=("vergabe24.de",),
        reason="Die Nutzungsbedingungen von vergabe24 untersagen automatisierten Zugriff (Crawler, Scraper).",
    ),
    DeniedPortal(
        key="aumass",
        name="auftragsboerse / aumass",
        hosts=("aumass.de",),
        reason="Die Nutzungsbedingungen von aumass untersagen automatisierten Zugriff (Crawler, Scraper).",
    ),
)


class SourceDenied(Exception):
    """Raised whenever something tries to configure or reach a denied portal."""

    def __init__(self, portal: DeniedPortal, what: str):
        self.portal = portal
        super().__init__(f"{what} refused: {portal.name} is on the denylist. {portal.reason}")


def _host_matches(host: str, denied_host: str) -> bool:
    host = host.lower().rstrip(".")
    return host == denied_host or host.endswith("." + denied_host)


def denied_portal_for(*, key: str = "", urls: tuple[str, ...] | list[str] = (), hosts=()) -> DeniedPortal | None:
    """The denied portal that a key, URL or host names, if any. Matches sub-domains and key variants."""
    lowered = key.lower()
    all_hosts = [h for h in hosts if h] + [url_host(u if "//" in u else f"https://{u}") for u in urls if u]
    for portal in DENIED_PORTALS:
        if portal.key in lowered:
            return portal
        if any(_host_matches(host, denied) for host in all_hosts for denied in portal.hosts):
            return portal
    return None


def ensure_not_denied(*, what: str, key: str = "", urls=(), hosts=()) -> None:
    portal = denied_portal_for(key=key, urls=tuple(urls), hosts=tuple(hosts))
    if portal is not None:
        raise SourceDenied(portal, what)
