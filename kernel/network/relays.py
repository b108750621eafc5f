"""Internal mail servers an operator approved for tenants: the one exception to the SSRF guard.

Why: a company's SMTP relay or IMAP server often sits on the platform's own network (a relay
in the same data centre, a VPN-reachable mail gateway). The guard refuses such addresses for
every tenant, since a tenant's host would otherwise let it probe the internal network. An
operator may list known hosts or networks; only the address a host resolves to *at connect
time* is compared, so a name that later points elsewhere is refused again (DNS rebinding).

An entry names a host (the name the tenant types, compared exactly) or a network in CIDR
notation (compared with the resolved address), a protocol and optionally a port. A host entry
trusts that name's DNS (whatever internal address it answers); for a name whose DNS the
operator does not run, a network entry keeps the answer inside the approved network. Addresses
that are never a mail server stay refused whatever the list says: link-local (cloud metadata
at 169.254.169.254), multicast and unspecified.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = [
    "NEVER_GRANTED",
    "RelayGrant",
    "relay_exemption",
    "relay_target_parse",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

PROTOCOLS = ("smtp", "imap", "both")
NEVER_GRANTED = frozenset({"link-local", "multicast", "unspecified"})
_HOST = re.compile(r"^(?=.{1,253}$)[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?)*$")


@dataclass(frozen=True)
class RelayGrant:
    """One approved entry: ``host`` (lower case) or ``network``, for ``protocol``, on ``port`` or any port."""

    protocol: str
    host: str = ""
    network: IPNetwork | None = None
    port: int | None = None

    def covers(self, *, protocol: str, host: str, port: int, address: IPAddress) -> bool:
        if self.protocol not in ("both", protocol):
            return False
        if self.port is not None and self.port != port:
            return False
        if self.network is not None:
            return address.version == self.network.version and address in self.network
        return bool(self.host) and self.host == host.strip().rstrip(".").lower()


def relay_target_parse(text: str) -> tuple[str, IPNetwork | None]:
    """``(host, None)`` for a host name, ``("", network)`` for an address or CIDR; ValueError otherwise.

    A single address becomes a /32 (/128) network, so it matches the address whatever name led there.
    """
    value = (text or "").strip().rstrip(".").lower()
    if not value:
        raise ValueError("empty")
    if "/" in value or _looks_like_address(value):
        try:
            return "", ipaddress.ip_network(value.strip("[]"), strict=True)
        except ValueError as exc:
            raise ValueError(f"not a network: {exc}") from exc
    if not _HOST.match(value):
        raise ValueError("not a host name")
    return value, None


def _looks_like_address(value: str) -> bool:
    try:
        ipaddress.ip_address(value.strip("[]"))
    except ValueError:
        return False
    return True


def relay_exemption(
    grants: Iterable[RelayGrant], *, protocol: str, host: str, port: int
) -> Callable[[IPAddress, str], bool] | None:
    """The guard's exemption for one connection: does an entry cover this refused address? None without entries."""
    relevant = tuple(grants)
    if not relevant:
        return None

    def exempt(address: IPAddress, category: str) -> bool:
        if category in NEVER_GRANTED:
            return False
        return any(grant.covers(protocol=protocol, host=host, port=port, address=address) for grant in relevant)

    return exempt
