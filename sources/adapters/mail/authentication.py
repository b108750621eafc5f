"""What the tenant's own receiving server says about a mail's origin (RFC 8601 Authentication-Results).

A mail's From line is whatever the sender typed; only the receiving server can tell whether
the sending domain vouched for it (a valid DKIM signature, an SPF-authorised sending host).
It writes that verdict into an ``Authentication-Results`` header named by its
*authserv-id* (RFC 8601 §2.5) and prepends it like a trace field (§4), above the
``Received:`` field it adds for the hop it accepted. Everything below that ``Received:``
came with the mail, so anyone can put a header claiming the tenant's authserv-id there -
and Postfix with OpenDKIM/OpenDMARC or Dovecot LMTP do not remove such headers by default,
although §5 asks the receiving server to. So only the block above the first ``Received:``
field counts (in header order, top first), and a mail whose headers claim the tenant's
authserv-id anywhere below a ``Received:`` is refused as a whole: that header is someone
else's. Two exceptions keep genuine mail from being refused, because the sender can reach
neither: a ``Received:`` at the very top that records the local delivery by LMTP (``with
LMTP``/``LMTPS``/``LMTPA``/``LMTPSA``, RFC 3848 - Dovecot's LMTP server adds one by default,
``lmtp_add_received_header``) belongs to the receiving side and does not end the block; and
a tenant whose server writes several headers of its id in the block (OpenDKIM, OpenDMARC and
an SPF policy daemon each write their own) says so in the mailbox settings; then they are read
together - unless they contradict each other on a method (one says ``pass``, another a different
result), which only a confused or subverted receiving side writes. Without that setting a mail
with more than one header of the tenant's id is refused: one of them is then someone else's.

Parsing follows the RFC 8601 grammar through ``authres`` (the parser of the dkimpy /
authheaders family): it reads the authserv-id without the optional version (``mx.id 1;``)
and without CFWS comments (``(x) mx.id (y);``), so such spellings claim the id like the
plain one. A header whose version is not 1 is ignored (§2.2). A result counts when it is
``pass`` and names the domain it vouches for: ``dkim`` by ``header.d`` (or the domain of
``header.i``), ``spf`` by ``smtp.mailfrom`` (an address or a domain), ``dmarc`` by
``header.from``. Alignment is exact (``domains_equal``): the vouched-for domain must be the
From domain itself, never merely in the same organisational domain - a pass for
``polizei.hessen.de`` says nothing about ``vergabe.hessen.de``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import authres

__all__ = [
    "AuthenticatedDomain",
    "ReceivingServerVerdict",
    "authenticated_domains",
    "domains_equal",
    "receiving_server_verdict",
]

_VOUCHING_PROPERTIES = {
    "dkim": (("header", "d"), ("header", "i")),
    "spf": (("smtp", "mailfrom"),),
    "dmarc": (("header", "from"),),
}
RECEIVED = "received"
AUTHENTICATION_RESULTS = "authentication-results"
# RFC 3848 protocol types of a local delivery hop; the receiving side's own last step.
_LOCAL_DELIVERY = re.compile(r"\bwith\s+LMTPS?A?\b", re.IGNORECASE)


@dataclass(frozen=True)
class AuthenticatedDomain:
    method: str  # "dkim", "spf" or "dmarc"
    domain: str  # lower case, without a trailing dot


@dataclass(frozen=True)
class ReceivingServerVerdict:
    """The receiving server's results, or why the mail's headers cannot be believed at all."""

    passed: tuple[AuthenticatedDomain, ...] = ()
    headers: int = 0  # Authentication-Results headers claiming the tenant's authserv-id, wherever they stand
    refusal: str = ""  # set when a header claiming the id is misplaced or contradicts another (English detail)


def receiving_server_verdict(
    fields: Iterable[tuple[str, str]], *, authserv_id: str, several_headers: bool = False
) -> ReceivingServerVerdict:
    """``fields``: (lower-case name, value) of the Received / Authentication-Results fields in header order.

    ``several_headers``: the tenant's receiving server writes more than one header of its id (one per milter).
    """
    wanted = _normalised_id(authserv_id)
    if not wanted:
        return ReceivingServerVerdict()
    above_received = True
    claims: list[tuple[bool, authres.AuthenticationResultsHeader]] = []
    for name, value in fields:
        if name == RECEIVED:
            if not (above_received and _LOCAL_DELIVERY.search(value or "")):
                above_received = False
        elif name == AUTHENTICATION_RESULTS:
            header = _parsed(value)
            if header is not None and _normalised_id(header.authserv_id) == wanted:
                claims.append((above_received, header))
    if not claims:
        return ReceivingServerVerdict()
    below = sum(1 for above, _header in claims if not above)
    if below:
        return ReceivingServerVerdict(
            headers=len(claims),
            refusal=f"{below} Authentication-Results header(s) claiming {wanted!r} below a Received: field "
            "(added before the mail reached the receiving server: forged)",
        )
    if len(claims) > 1 and not several_headers:
        return ReceivingServerVerdict(
            headers=len(claims),
            refusal=f"{len(claims)} Authentication-Results headers claim {wanted!r}; the receiving server is set to "
            "write one (mailbox settings: several headers)",
        )
    headers = [header for _above, header in claims]
    contradicted = _contradicted_methods(headers)
    if contradicted:
        return ReceivingServerVerdict(
            headers=len(claims),
            refusal=f"{len(claims)} Authentication-Results headers claiming {wanted!r} contradict each other on "
            f"{', '.join(contradicted)}",
        )
    passed = tuple(dict.fromkeys(found for header in headers for found in _passes(header)))
    return ReceivingServerVerdict(passed=passed, headers=len(claims))


def _contradicted_methods(headers) -> list[str]:
    """Methods one header reports as ``pass`` and another header of the same server reports without a pass."""
    verdicts: dict[str, set[bool]] = {}
    for header in headers:
        per_header: dict[str, bool] = {}
        for result in header.results:
            method = str(result.method or "").lower()
            if method in _VOUCHING_PROPERTIES:
                passed = str(result.result or "").lower() == "pass"
                per_header[method] = per_header.get(method, False) or passed
        for method, passed in per_header.items():
            verdicts.setdefault(method, set()).add(passed)
    return sorted(method for method, seen in verdicts.items() if len(seen) > 1)


def authenticated_domains(headers: Iterable[str], *, authserv_id: str) -> tuple[AuthenticatedDomain, ...]:
    """Every domain a ``pass`` vouches for in the given header values of ``authserv_id``, position not considered.

    Only for reading one header the caller already placed; ``receiving_server_verdict`` decides which one that is.
    """
    wanted = _normalised_id(authserv_id)
    found: list[AuthenticatedDomain] = []
    for value in headers if wanted else ():
        header = _parsed(value)
        if header is not None and _normalised_id(header.authserv_id) == wanted:
            found.extend(_passes(header))
    return tuple(dict.fromkeys(found))


def domains_equal(first: str, second: str) -> bool:
    """Strict alignment (RFC 7489 §3.1's "strict" mode): the same host name, case and trailing dot aside."""
    first, second = _domain_of(first), _domain_of(second)
    return bool(first) and "." in first and first == second


def _parsed(value: str):
    try:
        header = authres.AuthenticationResultsHeader.parse_value(value)
    except Exception:  # noqa: BLE001 - authres raises its own SyntaxError (and others) for hostile input: untrusted
        return None
    version = getattr(header, "version", None)
    return header if version in (None, 1, "1") else None  # RFC 8601 §2.2: only version 1 is defined


def _passes(header) -> tuple[AuthenticatedDomain, ...]:
    found: list[AuthenticatedDomain] = []
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


def _normalised_id(value) -> str:
    return str(value or "").strip().rstrip(".").lower()


def _domain_of(value: str) -> str:
    """``bounce@Mail.Example.de`` / ``@example.de`` / ``example.de`` -> ``mail.example.de``."""
    return value.strip().strip("<>").rpartition("@")[2].strip().rstrip(".").lower()
