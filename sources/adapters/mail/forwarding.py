"""Which sender domains an operator may approve as forwarding senders of a portal family. Pure.

A forwarding sender waives the receiving server's authentication for mails From exactly that
domain (a forwarded alert carries no DKIM/SPF pass of the tenant's server), so it must name one
portal's own host, never a domain many portals share: approving ``vmstart.de`` (the shared
hosting of municipal NetServer portals) or a vendor's domain would vouch for every portal and
every customer there. Shared is: a family's whole-domain list (``FAMILY_DOMAINS`` of the NetServer
and cosinex adapters), or the registrable domain (Public Suffix List, ``publicsuffixlist``, which
ships the list; nothing is fetched) of two or more known portal hosts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from publicsuffixlist import PublicSuffixList

from sources.adapters.cosinex import options as cosinex_options
from sources.adapters.mail.portals import bare_host
from sources.adapters.netserver import options as netserver_options

__all__ = ["SHARED_DOMAINS", "forwarder_domain_normalised", "forwarder_domain_problem", "organisational_domain"]

SHARED_DOMAINS: tuple[str, ...] = (*netserver_options.FAMILY_DOMAINS, *cosinex_options.FAMILY_DOMAINS)
_HOST = re.compile(r"^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$")


@lru_cache(maxsize=1)
def _suffix_list() -> PublicSuffixList:
    return PublicSuffixList()


def organisational_domain(domain: str) -> str:
    """``mail.tender24.de`` -> ``tender24.de``; a bare public suffix or an empty name gives ""."""
    name = (domain or "").strip().rstrip(".").lower()
    if not name or "." not in name:
        return ""
    return _suffix_list().privatesuffix(name) or ""


def forwarder_domain_normalised(domain: str) -> str:
    return (domain or "").strip().rstrip(".").lower()


def forwarder_domain_problem(domain: str, *, portal_domains: Mapping[str, tuple[str, ...]]) -> str:
    """Why ``domain`` cannot be approved as a forwarding sender (German, for the console), or ""."""
    name = forwarder_domain_normalised(domain)
    if not _HOST.match(name):
        return "Bitte genau einen Hostnamen angeben (z. B. tender24.de), ohne @, Pfad oder Leerzeichen."
    if not organisational_domain(name):
        return f"{name} ist eine öffentliche Endung (Public Suffix), keine Domain eines Portals."
    if name in SHARED_DOMAINS:
        return (
            f"{name} ist die gemeinsame Domain vieler Portale (Hosting bzw. Hersteller) und kann nicht als Ganzes "
            "freigegeben werden; bitte den Host des einzelnen Portals angeben."
        )
    hosts = {bare_host(host) for hosts in portal_domains.values() for host in hosts}
    under = sorted(host for host in hosts if host != name and organisational_domain(host) == name)
    if organisational_domain(name) == name and len(under) >= 2:
        return (
            f"{name} ist die registrierbare Domain mehrerer Portale ({', '.join(under)}) und kann nicht als Ganzes "
            "freigegeben werden; bitte den Host des einzelnen Portals angeben."
        )
    return ""
