"""Server-side request forgery guard.

Why: source URLs come from configuration and from redirects chosen by remote
servers. Without a guard a redirect (or a DNS answer) could make the worker
talk to the cloud metadata endpoint, the database, or anything on the LAN.

Two layers, one rule (``refusal_category``):

1. ``resolve_and_check`` runs before every request and every redirect hop, so a
   refused target fails fast with a clear error and no packet is sent.
2. ``GuardedBackend`` sits inside httpx's connection pool and re-resolves *at
   connect time*, checks every address again and connects to the checked IP
   itself. That closes the DNS-rebinding window between check and connect.
   TLS still verifies/uses SNI for the original host name (httpcore passes the
   URL host as ``server_hostname``).

Limits: the connect-time layer needs httpx's own transport; when a custom
``transport`` is injected (tests with ``httpx.MockTransport``) only layer 1
applies. Environment proxies are ignored on purpose (``trust_env=False``): with a
proxy we would be checking the proxy's address, not the target's.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import httpcore
import httpx

from kernel.network.errors import DisallowedHost, FetchError, ResolutionFailed, SsrfRefused
from kernel.network.policy import FetchPolicy
from kernel.urls import WEB_SCHEMES, UrlRefused, parse_url

__all__ = [
    "GuardedBackend",
    "Resolver",
    "check_target",
    "connect_checked",
    "guarded_transport",
    "refusal_category",
    "resolve_and_check",
    "system_resolver",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# (host, port) -> IP address strings. Injected in tests so no DNS is needed.
Resolver = Callable[[str, int], Iterable[str]]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix: the IPv4 in the last 32 bits
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # RFC 4291 §2.5.5.1 (deprecated): the IPv4 in the last 32 bits


def system_resolver(host: str, port: int) -> list[str]:
    """All addresses the OS resolver returns (A and AAAA), de-duplicated, in resolver order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: dict[str, None] = {}
    for _family, _type, _proto, _canon, sockaddr in infos:
        seen.setdefault(str(sockaddr[0]).split("%", 1)[0], None)
    return list(seen)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """Every IPv4 address an IPv6 address carries and a router, translator or tunnel would reach.

    IPv4-mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::a.b.c.d``, 6to4 ``2002:AABB:CCDD::/48``
    (RFC 3056), Teredo ``2001::/32`` (RFC 4380: the server and the de-obfuscated client) and the
    deprecated IPv4-compatible ``::a.b.c.d``. ``2002:7f00:1::1`` leads to 127.0.0.1 through any
    6to4 relay, so the IPv4 inside is what must be public.
    """
    if address.ipv4_mapped is not None:
        return (address.ipv4_mapped,)
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):  # "::" and "::1" are no IPv4
        return (ipaddress.IPv4Address(int(address) & 0xFFFFFFFF),)
    if address.sixtofour is not None:
        return (address.sixtofour,)
    if address.teredo is not None:
        return address.teredo
    return ()


def refusal_category(address: IPAddress, *, allow_loopback: bool) -> str | None:
    """Why ``address`` must not be contacted, or None if it is a public unicast address.

    An IPv6 address that carries an IPv4 one is refused for that IPv4's reason. The loopback
    allowance (test settings) covers plain and IPv4-mapped loopback only, the two a local test
    server listens on; loopback behind a translator or tunnel is never one.
    """
    if isinstance(address, ipaddress.IPv6Address) and (inner := _embedded_ipv4(address)):
        mapped = address.ipv4_mapped is not None
        for ipv4 in inner:
            category = refusal_category(ipv4, allow_loopback=allow_loopback and mapped)
            if category is not None:
                return category
        if mapped or address in _NAT64:
            return None  # the public IPv4 is what is contacted (Python lists ::ffff:0:0/96 as private)
        # 6to4, Teredo and IPv4-compatible addresses are checked as IPv6 addresses as well.
    if address.is_loopback:
        return None if allow_loopback else "loopback"
    checks = (
        ("unspecified", address.is_unspecified),
        ("link-local", address.is_link_local),  # includes 169.254.169.254 (cloud metadata)
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
        ("non-global", not address.is_global),  # CGNAT 100.64/10, documentation ranges, …
    )
    for category, hit in checks:
        if hit:
            return category
    return None


def _parse_ip(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def resolve_and_check(
    url: str,
    host: str,
    port: int,
    *,
    resolver: Resolver,
    allow_loopback: bool,
    exempt: Callable[[IPAddress, str], bool] | None = None,
) -> tuple[str, ...]:
    """Resolve ``host`` and refuse if ANY address is forbidden; return the checked addresses.

    Every address is checked (not just the first) because the connection may use any of them.
    ``exempt(address, category)`` lets an operator-approved internal mail server through
    (``kernel.network.relays``); whoever connects must then use the returned addresses, not the name.
    """
    literal = _parse_ip(host)
    if literal is not None:
        addresses: Sequence[str] = [str(literal)]
    else:
        try:
            addresses = [str(a) for a in resolver(host, port)]
        except (OSError, UnicodeError) as exc:
            raise ResolutionFailed(url, host=host, detail=str(exc)) from exc
        if not addresses:
            raise ResolutionFailed(url, host=host, detail="no addresses")
    for text in addresses:
        address = _parse_ip(text)
        if address is None:
            raise ResolutionFailed(url, host=host, detail=f"resolver returned non-IP {text!r}")
        category = refusal_category(address, allow_loopback=allow_loopback)
        if category is not None and not (exempt is not None and exempt(address, category)):
            raise SsrfRefused(url, host=host, address=str(address), category=category)
    return tuple(addresses)


def connect_checked(addresses: Sequence[str], port: int, *, timeout: float | None) -> socket.socket:
    """A TCP connection to the first of ``addresses`` (from ``resolve_and_check``) that answers.

    Mail clients (smtplib, imaplib) resolve the name again when they connect; connecting to the
    checked address instead leaves no window for a DNS answer that changed in between.
    """
    last_error: OSError | None = None
    for address in addresses:
        try:
            return socket.create_connection((address, port), timeout=timeout)
        except OSError as exc:
            last_error = exc
    raise last_error if last_error is not None else OSError("no address to connect to")


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore network backend that connects only to addresses that pass the guard."""

    def __init__(self, *, resolver: Resolver, allow_loopback: bool) -> None:
        self._resolver = resolver
        self._allow_loopback = allow_loopback
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        target = f"//{host}:{port}"
        try:
            addresses = resolve_and_check(
                target, host, port, resolver=self._resolver, allow_loopback=self._allow_loopback
            )
        except ResolutionFailed as exc:
            raise httpcore.ConnectError(exc.message) from exc
        last_error: Exception | None = None
        for address in addresses:  # like happy-eyeballs-less create_connection: try each in turn
            try:
                return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last_error = exc
        assert last_error is not None
        raise last_error

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        raise httpcore.ConnectError("unix sockets are not allowed by the fetch guard")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def guarded_transport(*, resolver: Resolver, allow_loopback: bool) -> httpx.HTTPTransport:
    """An ``httpx.HTTPTransport`` whose connection pool uses :class:`GuardedBackend`.

    httpx does not expose ``network_backend``; we swap it on the pool it built. If a future
    httpx changes that internal, this raises at construction instead of silently losing the guard.
    """
    transport = httpx.HTTPTransport(trust_env=False, retries=0)
    pool = getattr(transport, "_pool", None)
    if not isinstance(pool, httpcore.ConnectionPool) or not hasattr(pool, "_network_backend"):
        raise RuntimeError("httpx internals changed: cannot install the SSRF-guarded network backend")
    pool._network_backend = GuardedBackend(resolver=resolver, allow_loopback=allow_loopback)
    return transport


def check_target(url: str, policy: FetchPolicy, *, resolver: Resolver) -> httpx.URL:
    """Validate one URL (the request or a redirect hop): http(s), host allowed, every address public.

    The URL is read by the WHATWG rules (``kernel.urls``), as a browser reads it, and the request
    goes to its serialisation: httpx never reads the text itself, so ``https://evil.example\\@allowed/``
    is checked (and sent) as host ``evil.example``, the host it names.
    """
    try:
        target = parse_url(url)
    except UrlRefused as exc:
        raise FetchError(url, f"invalid URL {url!r}: {exc.sentence}", reason="invalid_url") from exc
    if target.scheme not in WEB_SCHEMES:
        raise DisallowedHost(
            url, host=target.host, detail=f"scheme {target.scheme!r} is not http/https", reason="disallowed_scheme"
        )
    if not target.host:
        raise FetchError(url, f"URL {url!r} has no host", reason="invalid_url")
    if target.has_userinfo:
        # httpx would send them as Basic credentials to whatever host the URL really names.
        raise FetchError(url, f"URL {url!r} carries a user name or password; refused", reason="invalid_url")
    if not policy.host_allowed(target.host):
        allowed = ", ".join(sorted(policy.allowed_hosts)) or "none configured"
        raise DisallowedHost(url, host=target.host, detail=f"host {target.host!r} is not in allowed_hosts ({allowed})")
    resolve_and_check(url, target.host, target.effective_port, resolver=resolver, allow_loopback=policy.allow_loopback)
    try:
        return httpx.URL(target.href)
    except (httpx.InvalidURL, ValueError) as exc:  # a WHATWG URL httpx cannot send
        raise FetchError(url, f"invalid URL {url!r}: {exc}", reason="invalid_url") from exc
