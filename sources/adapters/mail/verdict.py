"""One mail from a tenant's mailbox -> its status, its reason, its leads and the references it may point at. Pure.

The tenant side reads the mailbox (its own credentials, IMAP) and hands the raw messages to the
mail source's run (``sources.mail_runs``); this module judges each one the same way wherever it
comes from: parse (``alerts``), drop unsafe links (``kernel.links``), then the provenance check
(``provenance``). No verdict ever lets a mail's records into the shared tenders: every parsed
mail's records are the tenant's ``leads``. A verified mail's records are also ``pointers``: their
portal references may make the platform read the portal's own page (``sources.tender_pages``).
A parsed mail whose sender or links cannot be verified is ``quarantined``: it points at nothing
until the tenant admin releases it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from kernel.links import records_links_checked
from kernel.records import NoticeRecord
from sources.adapters.base import AdapterError
from sources.adapters.mail.alerts import IGNORED, PARSED, UNPARSED, MailParse, parse_alert_mail
from sources.adapters.mail.provenance import MailTrust, mail_provenance

__all__ = ["IGNORED", "PARSED", "QUARANTINED", "UNPARSED", "MailMessage", "MailVerdict", "MailboxUnavailable"]

# The statuses of ``sources.models.InboundMailStatus`` a check can give (a test keeps them equal).
QUARANTINED = "quarantined"


class MailboxUnavailable(AdapterError):
    """The mailbox could not be read (credentials, network, TLS): the mail source's run fails with reason "mailbox"."""

    def __init__(self, message: str, *, reason: str = "mailbox"):
        super().__init__(message, reason=reason)


class MailMessage(Protocol):
    """One raw message as the tenant's mailbox reader hands it over."""

    key: str  # Message-ID, or a stand-in derived from the headers
    raw: bytes  # the whole message, or only its first bytes when ``truncated``
    size: int
    received_at: datetime | None
    truncated: bool


@dataclass(frozen=True)
class MailVerdict:
    status: str
    parse: MailParse
    reason: str
    quarantine_reason: str = ""
    held: tuple[NoticeRecord, ...] = ()

    @property
    def leads(self) -> tuple[NoticeRecord, ...]:
        """What the mail says, kept for the receiving tenant alone (verified or not)."""
        return self.parse.records if self.status in (PARSED, QUARANTINED) else ()

    @property
    def pointers(self) -> tuple[NoticeRecord, ...]:
        """The records whose portal references may be fetched from the portal (verified mails only)."""
        return self.parse.records if self.status == PARSED else ()


def mail_judge(
    mail: MailMessage,
    *,
    host_sources: Mapping[str, str],
    trust: MailTrust,
    portal_domains: Mapping[str, tuple[str, ...]],
) -> MailVerdict:
    parse = _parse(mail, host_sources)
    checked = records_links_checked(parse.records)
    parse = replace(parse, records=checked.records, problems=(*parse.problems, *checked.problems))
    reason = "; ".join(filter(None, [parse.reason, *parse.problems]))
    if parse.status != PARSED:
        return MailVerdict(status=parse.status, parse=parse, reason=reason)
    if not parse.records:  # every notice link was dropped as unsafe: nothing to ingest, nothing to hold
        return MailVerdict(status=UNPARSED, parse=parse, reason=reason)
    provenance = mail_provenance(parse, trust=trust, portal_domains=portal_domains)
    if provenance.verified:
        detail = f"verified {provenance.family} sender ({provenance.via})"
        return MailVerdict(status=PARSED, parse=parse, reason="; ".join(filter(None, [detail, reason])))
    return MailVerdict(
        status=QUARANTINED,
        parse=parse,
        reason="; ".join(filter(None, [provenance.detail, reason])),
        quarantine_reason=provenance.reason,
        held=parse.records,
    )


def _parse(mail: MailMessage, host_sources: Mapping[str, str]) -> MailParse:
    if mail.truncated:
        # The reader kept only the first bytes of a mail over its limit: that many bytes is the limit.
        return MailParse(
            status=UNPARSED,
            reason=f"mail of {mail.size} bytes is larger than {len(mail.raw)} bytes; not read",
            message_id=mail.key,
        )
    return parse_alert_mail(mail.raw, host_sources=host_sources)
