"""May a parsed alert mail from a tenant's mailbox write into the shared tender tables?

Anyone can send mail to a tenant's alert mailbox, and tenders are shared by every tenant:
an unchecked mail would let a stranger create tenders that all tenants are alerted about.
A mail counts as a portal alert only if all three hold:

(a) its From domain belongs to a known portal of the family that parses it (NetServer,
    cosinex, service.bund.de, DTAD-style; ``PORTAL_DOMAINS`` plus the hosts of the
    installation's NetServer/cosinex Sources). From is what DMARC protects and what the
    reader sees; the envelope sender (Return-Path) only enters through SPF below;
(b) an Authentication-Results header of the tenant's own receiving server (the authserv-id
    the tenant admin configured) shows a DKIM, SPF or DMARC pass aligned with that From
    domain (same organisational domain) - or the tenant admin has named that domain as one
    whose alerts reach the mailbox by forwarding (then no authentication survives the hop);
(c) every notice link points to a known host of that same family.

Everything else is quarantined with a reason code (``SENDER_UNVERIFIED``, ``FOREIGN_LINK``);
the German labels live in ``sources.models.QuarantineReason``. Pure: no ORM, no network.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from sources.adapters.mail.alerts import MailParse
from sources.adapters.mail.authentication import aligned, authenticated_domains
from sources.adapters.mail.portals import PORTAL_DOMAINS, bare_host, in_domains

__all__ = ["FOREIGN_LINK", "SENDER_UNVERIFIED", "MailTrust", "Provenance", "mail_provenance"]

SENDER_UNVERIFIED = "sender"
FOREIGN_LINK = "link"


@dataclass(frozen=True)
class MailTrust:
    """What the tenant admin configured: their receiving server's authserv-id, and forwarded portal domains."""

    authserv_id: str = ""
    forwarded_domains: tuple[str, ...] = ()


@dataclass(frozen=True)
class Provenance:
    verified: bool
    reason: str = ""  # SENDER_UNVERIFIED or FOREIGN_LINK when not verified
    detail: str = ""  # what exactly failed (for the mailbox view and operators)
    family: str = ""
    via: str = ""  # how the sender was verified: "dkim", "spf", "dmarc" or "forwarding rule"


def mail_provenance(
    parse: MailParse,
    *,
    trust: MailTrust,
    portal_domains: Mapping[str, tuple[str, ...]] = PORTAL_DOMAINS,
) -> Provenance:
    """The verdict for a parsed mail; sender checks (a, b) come before the link check (c)."""
    sender_domain = parse.sender_address.rpartition("@")[2].strip().rstrip(".").lower()
    family = _family_of(sender_domain, portal_domains)
    if not family:
        envelope = f" (Return-Path {parse.return_path})" if parse.return_path else ""
        return Provenance(
            verified=False,
            reason=SENDER_UNVERIFIED,
            detail=f"sender {parse.sender_address or '(none)'!r}{envelope} is no known portal address",
        )
    via = _verified_by(parse, sender_domain, trust)
    if not via:
        return Provenance(
            verified=False,
            reason=SENDER_UNVERIFIED,
            family=family,
            detail=_unverified_detail(parse, sender_domain, trust),
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


def _family_of(domain: str, portal_domains: Mapping[str, tuple[str, ...]]) -> str:
    if not domain:
        return ""
    return next((family for family, domains in portal_domains.items() if in_domains(domain, domains)), "")


def _verified_by(parse: MailParse, sender_domain: str, trust: MailTrust) -> str:
    for passed in authenticated_domains(parse.authentication_results, authserv_id=trust.authserv_id):
        if aligned(passed.domain, sender_domain):
            return passed.method
    if any(in_domains(sender_domain, (bare_host(domain),)) for domain in trust.forwarded_domains if domain.strip()):
        return "forwarding rule"
    return ""


def _unverified_detail(parse: MailParse, sender_domain: str, trust: MailTrust) -> str:
    if not trust.authserv_id.strip():
        return (
            f"sender domain {sender_domain} cannot be verified: no authserv-id of the receiving server is configured "
            "and no forwarding rule names it"
        )
    if not authenticated_domains(parse.authentication_results, authserv_id=trust.authserv_id):
        return f"no DKIM/SPF pass in an Authentication-Results header of {trust.authserv_id!r}"
    return f"no DKIM/SPF pass of {trust.authserv_id!r} is aligned with the sender domain {sender_domain}"


def _link_hosts(records: Iterable) -> list[str]:
    hosts = []
    for record in records:
        try:
            hosts.append(bare_host(urlsplit(record.url).hostname or "") or record.url[:100] or "(no link)")
        except ValueError:
            hosts.append(record.url[:100])
    return hosts
