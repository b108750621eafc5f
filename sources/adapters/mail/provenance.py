"""Is a parsed alert mail from a tenant's mailbox what it claims to be: a portal's alert?

Anyone can send mail to a tenant's alert mailbox. A mail counts as a verified portal alert
(for that tenant's view; mails never write the shared tender tables) only if all hold:

(a) its From domain is an exact sender host of the family that parses it (NetServer, cosinex,
    service.bund.de, DTAD-style; ``PORTAL_DOMAINS`` plus the hosts of the installation's
    NetServer/cosinex Sources and the operator-approved forwarding senders of the family).
    Exact: no real alert mail is documented (tests/data/portals/README.md, "Portal alert
    e-mails"; ../shared/fixtures/portals/README.md names no sender address either), so only
    hosts the family is known to serve count - a subdomain of a portal or of a shared-hosting
    domain (``<name>.vmstart.de``) is a different host and is not assumed to be the portal's;
(b) the tenant's own receiving server vouches for exactly that domain: a DKIM, SPF or DMARC
    pass in the one Authentication-Results header of the configured authserv-id above the
    first ``Received:`` field (``authentication.receiving_server_verdict``; a mail with such a
    header below a ``Received:`` or more than once is refused outright, ``AUTHENTICATION_FORGED``)
    - or the tenant admin picked an operator-approved forwarding sender of that family for
    exactly that domain (then no authentication survives the hop; ``sources.models.ApprovedForwarder``);
(c) every notice link points to a known host of that same family.

Everything else is quarantined with a reason code (``SENDER_UNVERIFIED``, ``FOREIGN_LINK``,
``AUTHENTICATION_FORGED``); the German labels live in ``sources.models.QuarantineReason``.
Pure: no ORM, no network.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kernel.urls import url_host
from sources.adapters.mail.alerts import MailParse
from sources.adapters.mail.authentication import domains_equal, receiving_server_verdict
from sources.adapters.mail.portals import PORTAL_DOMAINS, bare_host, in_domains

__all__ = [
    "AUTHENTICATION_FORGED",
    "FOREIGN_LINK",
    "SENDER_UNVERIFIED",
    "ApprovedSender",
    "MailTrust",
    "Provenance",
    "mail_provenance",
]

SENDER_UNVERIFIED = "sender"
FOREIGN_LINK = "link"
AUTHENTICATION_FORGED = "authres"
FORWARDING_RULE = "forwarding rule"


@dataclass(frozen=True)
class ApprovedSender:
    """An operator-approved forwarding sender a tenant admin picked: mails of ``family`` From exactly ``domain``."""

    family: str
    domain: str


@dataclass(frozen=True)
class MailTrust:
    """What the tenant admin configured: their receiving server's authserv-id, and approved forwarding senders."""

    authserv_id: str = ""
    forwarders: tuple[ApprovedSender, ...] = ()
    several_headers: bool = False  # the receiving server writes one Authentication-Results header per milter


@dataclass(frozen=True)
class Provenance:
    verified: bool
    reason: str = ""  # SENDER_UNVERIFIED, FOREIGN_LINK or AUTHENTICATION_FORGED when not verified
    detail: str = ""  # what exactly failed (for the mailbox view and operators)
    family: str = ""
    via: str = ""  # how the sender was verified: "dkim", "spf", "dmarc" or "forwarding rule"


def mail_provenance(
    parse: MailParse,
    *,
    trust: MailTrust,
    portal_domains: Mapping[str, tuple[str, ...]] = PORTAL_DOMAINS,
) -> Provenance:
    """The verdict for a parsed mail: forged results first, then the sender checks (a, b), then the links (c)."""
    sender_domain = parse.sender_address.rpartition("@")[2].strip().rstrip(".").lower()
    family = _family_of(sender_domain, portal_domains, trust.forwarders)
    server = receiving_server_verdict(
        parse.trace_fields, authserv_id=trust.authserv_id, several_headers=trust.several_headers
    )
    if server.refusal:
        return Provenance(verified=False, reason=AUTHENTICATION_FORGED, family=family, detail=server.refusal)
    if not family:
        envelope = f" (Return-Path {parse.return_path})" if parse.return_path else ""
        return Provenance(
            verified=False,
            reason=SENDER_UNVERIFIED,
            detail=f"sender {parse.sender_address or '(none)'!r}{envelope} is no known portal address",
        )
    via = next((passed.method for passed in server.passed if domains_equal(passed.domain, sender_domain)), "")
    if not via and any(f.family == family and domains_equal(f.domain, sender_domain) for f in trust.forwarders):
        via = FORWARDING_RULE
    if not via:
        return Provenance(
            verified=False,
            reason=SENDER_UNVERIFIED,
            family=family,
            detail=_unverified_detail(server.passed, sender_domain, trust),
        )
    foreign = sorted({host for host in _link_hosts(parse.records) if not in_domains(host, portal_domains[family])})
    if foreign:
        return Provenance(
            verified=False,
            reason=FOREIGN_LINK,
            family=family,
            via=via,
            detail=f"notice links to hosts that are no {family} portal: {', '.join(foreign)}",
        )
    return Provenance(verified=True, family=family, via=via)


def _family_of(domain: str, portal_domains: Mapping[str, tuple[str, ...]], forwarders: Iterable[ApprovedSender]) -> str:
    """The family one of whose exact sender hosts ``domain`` is ("www." aside), else ""."""
    host = bare_host(domain)
    if not host:
        return ""
    family = next((family for family, hosts in portal_domains.items() if host in map(bare_host, hosts)), "")
    return family or next((f.family for f in forwarders if bare_host(f.domain) == host), "")


def _unverified_detail(passed, sender_domain: str, trust: MailTrust) -> str:
    if not trust.authserv_id.strip():
        return (
            f"sender domain {sender_domain} cannot be verified: no authserv-id of the receiving server is configured "
            "and no approved forwarding sender names it"
        )
    if not passed:
        return (
            f"no DKIM/SPF pass in the Authentication-Results header of {trust.authserv_id!r} "
            "above the first Received: field"
        )
    vouched = ", ".join(sorted({p.domain for p in passed}))
    return (
        f"the DKIM/SPF pass of {trust.authserv_id!r} is for {vouched}, not for the sender domain {sender_domain} "
        "itself (alignment is exact)"
    )


def _link_hosts(records: Iterable) -> list[str]:
    hosts = []
    for record in records:
        # The host a browser would open (kernel.urls), the one the reader would land on.
        hosts.append(bare_host(url_host(record.url)) or record.url[:100] or "(no link)")
    return hosts
