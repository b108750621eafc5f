"""Portal alert mails from each tenant's own mailbox -> a run of the mail source, every mail recorded once.

``mailbox_check`` works on the current tenant schema: it reads the tenant's active
``MailboxSettings`` (the password is decrypted on purpose, only here), connects
(:mod:`notifications.inbox.imap`), lists the messages that arrived since the last check
(minus an overlap of ``OVERLAP_DAYS``; on the first check the last ``FIRST_CHECK_DAYS``) and
hands them, chunk by chunk, to the shared run loop (``sources.mail_runs.mail_source_run``).
New Message-IDs come first (at most ``MAX_MAILS_PER_CHECK``); messages whose Message-ID this
tenant has processed already are read again too, because one mail is one Message-ID *and*
content: a spoof that took a genuine alert's Message-ID first must not make the genuine one
look processed (the run drops exact copies by content hash before judging them).
That service owns everything after the bytes, as for every other source: one ``FetchRun`` of
the ``mail`` Source per check (scope: this tenant's schema; counts, problems, failures, the
low-yield alarm, source health), parsing, the provenance verdict and the ``InboundMail`` rows
(parsed / unparsed / ignored / quarantined).

A mail is a pointer, the portal is the source. Tenders are shared by every tenant, and the
mailbox - its server, its ``Authentication-Results``, its mails - is the tenant's to forge, so
no mail writes shared tender data. Every parsed mail's notices stay on its ``InboundMail`` row
(``held_notices``): the tenant's leads, shown on its mailbox page only. A mail that
``sources.adapters.mail.provenance`` verifies (known portal sender, authenticated by the
tenant's receiving server or named in a forwarding rule, links only to that portal) makes the
platform read the pages its notices name from the portal itself (``sources.tender_pages``);
what the portal's page says becomes a platform tender for everyone, like a crawl. Any other
parsed mail is ``quarantined``; ``inbound_mail_release`` lets the tenant admin vouch for it,
which again only requests the portal's pages (see docs/architecture.md, "Trust boundaries").

Idempotent: a mail is processed once per tenant whatever the flags in the mailbox say, and
the mailbox itself is never changed. Two checks of one tenant never overlap (one running run
per mailbox; the second is recorded as ``skipped``). Failures of the mailbox (credentials,
network, TLS, a key that cannot decrypt the password) fail the run and end up in
``MailboxSettings.last_error``; they are not raised, and one tenant's broken mailbox cannot
affect another's (each check is its own task in its own schema). ``last_checked_at`` is the
last *successful* check: the next window starts there, so an outage loses no mail.

``mailbox_check_fan_out`` (public schema) sends one ``notifications.check_mailbox`` task per
tenant with an active mailbox, spread over ``FAN_OUT_JITTER_SECONDS``.
"""

from __future__ import annotations

import logging
import random
import ssl
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django_tenants.utils import get_public_schema_name

from accounts.fanout import tenants_fan_out
from accounts.selectors import internal_relay_grants
from notifications.inbox.imap import Candidate, FetchedMail, MailboxReader
from notifications.inbox.selectors import (
    inbound_mail_known_keys,
    mailbox_address,
    mailbox_settings_active,
    mailbox_trust,
    tenant_schemas_with_active_mailbox,
)
from notifications.models import MailboxSettings
from sources.mail_runs import MailboxRun, mail_source_run
from sources.models import FetchRunStatus

logger = logging.getLogger(__name__)

FIRST_CHECK_DAYS = 14
OVERLAP_DAYS = 2  # IMAP SINCE has day precision in the server's time zone
MAX_MAILS_PER_CHECK = 1000  # the rest waits for the next check (oldest first)
MAX_MAIL_BYTES = 10 * 2**20
FAN_OUT_JITTER_SECONDS = 300
CHECK_TASK_NAME = "notifications.check_mailbox"


@dataclass(frozen=True)
class MailboxCheckOutcome:
    checked: bool  # False: no active mailbox, or another check of this tenant is running
    error: str = ""
    new_mails: int = 0
    parsed: int = 0
    unparsed: int = 0
    ignored: int = 0
    quarantined: int = 0
    leads: int = 0  # notices the mails named, kept for this tenant (never in the shared tables)
    page_requests: tuple[int, ...] = ()  # portal pages requested because verified mails pointed at them
    reused_message_ids: int = 0  # mails recorded although another mail had their Message-ID
    run_id: int | None = None  # the mail source's FetchRun of this check

    def as_dict(self) -> dict:
        return asdict(self)


def mailbox_check(
    *,
    now: datetime | None = None,
    ssl_context: ssl.SSLContext | None = None,
    timeout: float = 30.0,
) -> MailboxCheckOutcome:
    """Check the current tenant's mailbox once (see the module docstring). ``ssl_context``: for private CAs."""
    schema = connection.schema_name
    if schema == get_public_schema_name():
        raise ValueError("mailbox_check runs in a tenant schema (send the task from the tenant, see the fan-out)")
    now = now or timezone.now()
    mailbox = mailbox_settings_active()
    if mailbox is None:
        return MailboxCheckOutcome(checked=False)
    try:
        result = mail_source_run(
            tenant_schema=schema,
            trust=mailbox_trust(mailbox=mailbox),
            read=lambda: _new_mails(mailbox, schema=schema, now=now, ssl_context=ssl_context, timeout=timeout),
            now=now,
        )
    except Exception as exc:
        _record_failure(mailbox, error=f"Interner Fehler beim Lesen des Postfachs: {type(exc).__name__}")
        raise
    if result.run.status == FetchRunStatus.SKIPPED:
        return MailboxCheckOutcome(
            checked=False, error="another check of this mailbox is running", run_id=result.run.pk
        )
    if result.run.status == FetchRunStatus.FAILED:
        _record_failure(mailbox, error=result.run.error)
        return MailboxCheckOutcome(checked=True, error=result.run.error, run_id=result.run.pk)
    _record_success(mailbox, now=now)
    return _outcome(result)


def mailbox_check_fan_out(*, rng: random.Random | None = None) -> list[str]:
    """From the public schema: one check task per tenant with an active mailbox, at jittered times."""
    schemas = tenant_schemas_with_active_mailbox()
    return tenants_fan_out(
        task_name=CHECK_TASK_NAME, schemas=schemas, jitter_seconds=FAN_OUT_JITTER_SECONDS, rng=rng
    ).sent


# --- one check ----------------------------------------------------------------------------------


def _new_mails(mailbox: MailboxSettings, *, schema: str, now: datetime, ssl_context, timeout: float):
    """The mails not processed yet, in chunks, oldest first; ``MailboxError`` when the mailbox cannot be read."""
    address = mailbox_address(mailbox=mailbox)
    since = _since(mailbox, now)
    with MailboxReader(
        address,
        ssl_context=ssl_context,
        timeout=timeout,
        allow_loopback=settings.SOURCES_ALLOW_LOOPBACK,
        grants=internal_relay_grants(protocol="imap"),
        max_bytes=MAX_MAIL_BYTES,
    ) as reader:
        candidates = reader.candidates(since=since.date())
        known = inbound_mail_known_keys(tenant_schema=schema, message_ids=(c.key for c in candidates.values()))
        chunks: Iterator[list[FetchedMail]] = reader.fetch(_to_read(candidates, known=known))
        yield from chunks


def _to_read(candidates: dict[int, Candidate], *, known: set[str]) -> dict[int, Candidate]:
    """Every candidate of the window, oldest first, with at most ``MAX_MAILS_PER_CHECK`` new Message-IDs.

    Known Message-IDs and second copies are read too: only their bytes tell a copy (dropped by the run)
    from another mail that reuses the Message-ID - a spoof of the same size included.
    """
    chosen, new = {}, set()
    for uid, candidate in sorted(candidates.items()):
        if candidate.key not in known and candidate.key not in new:
            if len(new) >= MAX_MAILS_PER_CHECK:
                continue
            new.add(candidate.key)
        chosen[uid] = candidate
    return chosen


def _outcome(result: MailboxRun) -> MailboxCheckOutcome:
    return MailboxCheckOutcome(
        checked=True,
        new_mails=sum(result.mails.values()),
        parsed=result.mails.get("parsed", 0),
        unparsed=result.mails.get("unparsed", 0),
        ignored=result.mails.get("ignored", 0),
        quarantined=result.mails.get("quarantined", 0),
        leads=result.leads,
        page_requests=result.page_requests,
        reused_message_ids=result.reused_message_ids,
        run_id=result.run.pk,
    )


# update(), not save(): saving would re-encrypt (and need to decrypt) the password, and would bump
# updated_at, which marks a changed mailbox (see _since).
def _record_success(mailbox: MailboxSettings, *, now: datetime) -> None:
    MailboxSettings.objects.filter(pk=mailbox.pk).update(last_checked_at=now, last_error="")


def _record_failure(mailbox: MailboxSettings, *, error: str) -> None:
    """Only the error: ``last_checked_at`` stays the last successful check, so no mail of an outage is skipped."""
    MailboxSettings.objects.filter(pk=mailbox.pk).update(last_error=error[:4000])
    logger.info("mailbox check of %s failed: %s", connection.schema_name, error)


def _since(mailbox: MailboxSettings, now: datetime) -> datetime:
    """Start of the SINCE window: the last successful check, or - first check, or settings changed since - 14 days."""
    last = mailbox.last_checked_at
    if last is None or (mailbox.updated_at and mailbox.updated_at > last):
        last = now - timedelta(days=FIRST_CHECK_DAYS)
    return last - timedelta(days=OVERLAP_DAYS)
