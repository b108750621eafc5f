"""Which portal sent an alert mail, and which links in it are notice links. Every selector lives here.

What is known (no real alert mail was available; see tests/data/portals/README.md):
NetServer (AI Vergabe@Net) and cosinex portals send one digest per saved search and day
with a link per project - a NetServer ``TenderOID`` link resp. a cosinex ``/notice/<CX…>``
link; service.bund.de links its ``/IMPORTE/Ausschreibungen/…/<id>.html`` pages; DTAD-style
services send "Suchprofilergebnisse" with "Treffer bei", Kategorie, Region, Frist,
Projektstand, Vergabestelle and a link per notice. Treat all of this as "last known".

Links are unwrapped one level: a tracking redirect whose query carries the real URL
(``…?url=https%3A%2F%2Fwww.dtvp.de%2F…``) is classified by that URL.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl

from kernel.urls import WEB_SCHEMES, UrlRefused, parse_url, url_host
from sources.adapters.cosinex import options as cosinex_options
from sources.adapters.netserver import options as netserver_options
from sources.parsers.eforms import portal_references_from_urls

__all__ = [
    "ALERT_WORDS",
    "DEFAULT_HOST_SOURCES",
    "PORTAL_DOMAINS",
    "NoticeLink",
    "classify_link",
    "in_domains",
    "is_portal_sender",
    "portal_of_sender",
    "source_for_host",
    "unwrap_link",
]

NETSERVER = "netserver"
COSINEX = "cosinex"
SERVICE_BUND = "service-bund"
DTAD = "dtad"


def bare_host(host: str) -> str:
    host = (host or "").strip().rstrip(".").lower()
    return host[4:] if host.startswith("www.") else host


def in_domains(host: str, domains: Iterable[str]) -> bool:
    host = bare_host(host)
    return any(host == domain or host.endswith("." + domain) for domain in domains)


def family_domains(hosts: Iterable[str], whole_domains: Iterable[str] = ()) -> tuple[str, ...]:
    """A portal family's domains: its hosts without "www.", and domains whose every host is the family's
    (hosts under those are covered by them)."""
    whole = tuple(dict.fromkeys(bare_host(domain) for domain in whole_domains))
    own = (bare_host(host) for host in hosts)
    return (*dict.fromkeys(host for host in own if not in_domains(host, whole)), *whole)


# Hosts (without "www.") whose mails and links belong to a portal family. NetServer and cosinex are
# derived from the hosts their adapters may crawl: one list per family, a portal added there counts here.
NETSERVER_DOMAINS = family_domains(netserver_options.KNOWN_HOSTS, netserver_options.FAMILY_DOMAINS)
COSINEX_DOMAINS = family_domains(cosinex_options.KNOWN_HOSTS, cosinex_options.FAMILY_DOMAINS)
SERVICE_BUND_DOMAINS = ("service.bund.de",)
DTAD_DOMAINS = ("dtad.de", "dtad.com")
# Every portal family and its domains: the senders and notice-link hosts a genuine alert of it can have.
PORTAL_DOMAINS: dict[str, tuple[str, ...]] = {
    NETSERVER: NETSERVER_DOMAINS,
    COSINEX: COSINEX_DOMAINS,
    SERVICE_BUND: SERVICE_BUND_DOMAINS,
    DTAD: DTAD_DOMAINS,
}

# Source keys of the portals this installation polls (sources migration 0004); the mailbox
# check extends this from the Source table (see ``sources.adapters.mail.hosts``).
DEFAULT_HOST_SOURCES: dict[str, str] = {
    "tender24.de": "tender24",
    "vergabe.landbw.de": "vergabe-landbw",
    "lhs-vpbw.vmstart.de": "lhs-vpbw",
    "dtvp.de": "dtvp",
    "service.bund.de": "service-bund",
}

# Subject/body words of alert digests (lower case); a portal mail without them and without notice links is no alert.
ALERT_WORDS = (
    "suchprofil",
    "suchagent",
    "suchauftrag",
    "treffer",
    "neue ausschreibung",
    "neue bekanntmachung",
    "neue veröffentlichung",
    "benachrichtigung",
)
DTAD_MARKERS = ("suchprofilergebnisse",)
DTAD_FIELD_MARKERS = ("treffer bei", "projektstand")

_SERVICE_BUND_LINK = re.compile(r"/IMPORTE/Ausschreibungen/[^/?#]+/\d{4}/\d{2}/([^/?#]+?)\.html?$", re.IGNORECASE)
_LONG_NUMBER = re.compile(r"(?<!\d)(\d{5,})(?!\d)")
# Links that are never a notice: unsubscribing, legal pages, settings, images.
_NON_NOTICE = re.compile(
    r"abmeld|abbestell|unsubscribe|impressum|datenschutz|privacy|agb|kontakt|einstellungen|settings|"
    r"profil/bearbeiten|newsletter|\.(?:png|jpe?g|gif|svg|css)(?:$|\?)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NoticeLink:
    """A link to one notice: ``portal`` family, the host, the portal's own id and the cross-portal reference."""

    url: str
    portal: str
    host: str
    notice_id: str
    reference: str = ""  # "netserver:<TenderOID>" / "cosinex:<CX id>" (see portal_references_from_urls)


def unwrap_link(url: str) -> str:
    """The real target of a tracking redirect (one level), else ``url`` itself.

    Both are read as browsers read them (``kernel.urls``): a target such as ``https:\\\\host`` is one.
    """
    try:
        query = parse_qsl(parse_url(url).query)
    except (UrlRefused, ValueError):
        return url
    for _key, value in query:
        if url_host(value) and parse_url(value).scheme in WEB_SCHEMES:
            return value.strip()
    return url


def classify_link(url: str, *, dtad_mode: bool = False) -> NoticeLink | None:
    """The notice a link points to, or None for every other link.

    ``dtad_mode``: in a DTAD-style digest any remaining http(s) link that is not a legal,
    settings or image link is taken as the notice link (its id: the longest run of five or
    more digits, else a hash of the URL).
    """
    target = unwrap_link(url.strip().replace("&amp;", "&"))
    try:
        # The host a reader's browser goes to, which is not always urlsplit's: "https://evil.example\\@
        # www.tender24.de/…" leads to evil.example. A link with user:pass@ is kept here and dropped with
        # a problem by the record link check (kernel.links), so the mail shows why.
        parts = parse_url(target)
    except UrlRefused:
        return None
    host = bare_host(parts.host)
    if parts.scheme not in WEB_SCHEMES or not host:
        return None
    for reference in portal_references_from_urls([target]):
        portal, _, notice_id = reference.partition(":")
        return NoticeLink(url=target, portal=portal, host=host, notice_id=notice_id, reference=reference)
    if in_domains(host, SERVICE_BUND_DOMAINS):
        match = _SERVICE_BUND_LINK.search(parts.path)
        if match:
            return NoticeLink(url=target, portal=SERVICE_BUND, host=host, notice_id=match.group(1))
        return None
    if dtad_mode and parts.path.strip("/") and not _NON_NOTICE.search(target):
        numbers = _LONG_NUMBER.findall(f"{parts.path}?{parts.query}")
        notice_id = max(numbers, key=len) if numbers else hashlib.sha256(target.encode()).hexdigest()[:32]
        return NoticeLink(url=target, portal=DTAD, host=host, notice_id=notice_id)
    return None


def portal_of_sender(address: str) -> str:
    """Portal family of a sender address ("" when unknown)."""
    domain = address.rpartition("@")[2]
    for portal, domains in PORTAL_DOMAINS.items():
        if domain and in_domains(domain, domains):
            return portal
    return ""


def is_portal_sender(address: str) -> bool:
    return bool(portal_of_sender(address))


def looks_like_dtad(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in DTAD_MARKERS) or all(m in lowered for m in DTAD_FIELD_MARKERS)


def source_for_host(host: str, host_sources: Mapping[str, str]) -> str:
    """The Source key polling ``host`` (exact host, "www." ignored), or "" when none does."""
    return host_sources.get(bare_host(host), "")
