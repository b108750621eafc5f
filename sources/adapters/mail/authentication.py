"""What the tenant's own receiving server says about a mail's origin (RFC 8601 Authentication-Results).

A mail's From line is whatever the sender typed; only the receiving server can tell whether
the sending domain vouched for it (a valid DKIM signature, an SPF-authorised sending host).
It writes that verdict into an ``Authentication-Results`` header named by its
*authserv-id* (RFC 8601 §2.5). Anyone can put such a header into a mail they send, so only
headers carrying the authserv-id the tenant admin configured as their own are read
(RFC 8601 §5 obliges that server to remove foreign headers claiming its id; §7.1) - every
other header, and every header that does not parse, is ignored.

Parsing follows the RFC 8601 grammar through ``authres`` (the parser of the dkimpy /
authheaders family). A result counts when it is ``pass`` and names the domain it vouches
for: ``dkim`` by ``header.d`` (or the domain of ``header.i``), ``spf`` by ``smtp.mailfrom``
(an address or a domain), ``dmarc`` by ``header.from`` (a DMARC pass implies an aligned
DKIM or SPF pass). Alignment is relaxed, as in DMARC (RFC 7489 §3.1): both domains have the
same organisational domain, read from the Public Suffix List (``publicsuffixlist``, which
ships the list; nothing is fetched).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import authres
from publicsuffixlist import PublicSuffixList

__all__ = ["AuthenticatedDomain", "aligned", "authenticated_domains", "organisational_domain"]

_VOUCHING_PROPERTIES = {
    "dkim": (("header", "d"), ("header", "i")),
    "spf": (("smtp", "mailfrom"),),
    "dmarc": (("header", "from"),),
}


@dataclass(frozen=True)
class AuthenticatedDomain:
    method: str  # "dkim", "spf" or "dmarc"
    domain: str  # lower case, without a trailing dot


@lru_cache(maxsize=1)
def _suffix_list() -> PublicSuffixList:
    return PublicSuffixList()


def organisational_domain(domain: str) -> str:
    """``mail.tender24.de`` -> ``tender24.de``; a bare public suffix or an empty name gives ""."""
    name = (domain or "").strip().rstrip(".").lower()
    if not name or "." not in name:
        return ""
    return _suffix_list().privatesuffix(name) or ""


def aligned(first: str, second: str) -> bool:
    """Relaxed alignment: the same organisational domain (and a real one)."""
    organisation = organisational_domain(first)
    return bool(organisation) and organisation == organisational_domain(second)


def authenticated_domains(headers: Iterable[str], *, authserv_id: str) -> tuple[AuthenticatedDomain, ...]:
    """Every domain a ``pass`` vouches for, in the headers of ``authserv_id`` only; unparsable headers are skipped."""
    wanted = authserv_id.strip().rstrip(".").lower()
    if not wanted:
        return ()
    found: list[AuthenticatedDomain] = []
    for value in headers:
        try:
            header = authres.AuthenticationResultsHeader.parse_value(value)
        except Exception:  # noqa: S112 - authres raises its own SyntaxError (and others) for hostile input: untrusted
            continue
        if str(header.authserv_id or "").strip().rstrip(".").lower() != wanted:
            continue
        for result in header.results:
            method = str(result.method or "").lower()
            if method not in _VOUCHING_PROPERTIES or str(result.result or "").lower() != "pass":
                continue
            properties = {(str(p.type).lower(), str(p.name).lower()): str(p.value or "") for p in result.properties}
            for key in _VOUCHING_PROPERTIES[method]:
                domain = _domain_of(properties.get(key, ""))
                if domain:
                    found.append(AuthenticatedDomain(method=method, domain=domain))
                    break
    return tuple(dict.fromkeys(found))


def _domain_of(value: str) -> str:
    """``bounce@Mail.Example.de`` / ``@example.de`` / ``example.de`` -> ``mail.example.de``."""
    return value.strip().strip("<>").rpartition("@")[2].strip().rstrip(".").lower()
