"""Runs of the mail source: a tenant's mailbox check through the same run loop as every other source.

The schema boundary decides the split. The tenant side (``notifications.inbox``) owns the
mailbox credentials and reads the mailbox; this shared service owns everything after the bytes:
one ``FetchRun`` of the ``mail`` Source per check (``trigger="mailbox"``, ``scope`` = the
tenant's schema), parsing and the provenance verdict per mail
(``sources.adapters.mail.verdict``), one ``InboundMail`` row per mail and, for verified mails,
the requests of the portal pages their notices point at (``sources.tender_pages``) - each chunk
of mails in one transaction with its requests.

A mail is a pointer, the portal is the source: no mail, however well authenticated, writes a row
of the shared tender tables (the mailbox owner controls the mail, its receiving server and its
``Authentication-Results``). What the mail says stays on the tenant's ``InboundMail`` row
(``held_notices``: the tenant's leads); the tender reaches the shared tables, and every tenant's
matching, only when the portal's own page was read.

A mail is one mail per Message-ID *and* content: a second mail reusing a processed Message-ID with
other bytes is recorded as its own mail, flagged ``message_id_reused`` (both rows), and suppresses
neither (a spoof cannot hide the genuine alert by taking its Message-ID first).

Counts on the run: ``requests`` = mails read (without those recorded by earlier checks and read
again in the window's overlap), ``bytes`` = the size of all read, ``fetched`` = the notices the
mails named (their leads; ``new``/``changed`` stay 0, a mail ingests nothing); every mail not taken
(unparsed, quarantined) is a problem, so such a check ends ``partial``. Mails that are no portal
alert (newsletters, auto-replies) are recorded, not counted as problems. Checks of different
tenants run side by side; two checks of the same mailbox do not (the second is ``skipped``,
``fetchrun_one_running_per_mailbox``).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sources.adapters.base import FetchedBatch
from sources.adapters.mail.provenance import MailTrust
from sources.adapters.mail.verdict import IGNORED, PARSED, QUARANTINED, UNPARSED, MailMessage, MailVerdict, mail_judge
from sources.fetch_runs import fetch_run_execute, fetch_run_start
from sources.models import MAILBOX_TRIGGER, FetchRun, FetchRunStatus, InboundMail, Source
from sources.selectors import host_sources_current, portal_domains_current
from sources.tender_pages import portal_page_requests_record
from tenders.merging import record_from_json, record_to_json

__all__ = [
    "MAILBOX_TRIGGER",
    "MAIL_SOURCE_KEY",
    "MailboxRun",
    "mail_content_sha256",
    "mail_leads_follow",
    "mail_source_run",
]

MAIL_SOURCE_KEY = "mail"
RAW_KEEP_BYTES = 256 * 2**10
# The seeded row (sources migration 0004), recreated with these values if an operator deleted it.
_MAIL_SOURCE_DEFAULTS = {
    "name": "Portal-Alert-E-Mails (je Mandant per IMAP gelesen)",
    "adapter": "mail",
    "settings": {},
    "schedule_minutes": 30,
    "politeness_seconds": 0.0,
    "is_active": False,  # not polled: the tenants' mailbox checks feed it
}


@dataclass(frozen=True)
class MailboxRun:
    run: FetchRun
    mails: dict[str, int] = field(default_factory=dict)  # status -> mails of this check
    leads: int = 0  # notices the mails named, kept for this tenant alone
    page_requests: tuple[int, ...] = ()  # pending PortalPageRequests the verified mails pointed at
    reused_message_ids: int = 0  # mails recorded although their Message-ID was processed with other content


def mail_content_sha256(mail: MailMessage) -> str:
    """What makes a mail the same mail as another with its Message-ID: its bytes (and size, for a truncated read)."""
    digest = hashlib.sha256(f"{mail.size}:{int(mail.truncated)}:".encode())
    digest.update(mail.raw)
    return digest.hexdigest()


def mail_source_run(
    *,
    tenant_schema: str,
    trust: MailTrust,
    read: Callable[[], Iterable[Sequence[MailMessage]]],
    now: datetime,
) -> MailboxRun:
    """One check of ``tenant_schema``'s mailbox as a run of the mail source.

    ``read`` is called inside the run and yields chunks of new mails; it raises
    ``MailboxUnavailable`` when the mailbox cannot be read (the run fails with its message).
    Other exceptions are recorded on the run (``internal``) and propagate.
    """
    source, _ = Source.objects.get_or_create(key=MAIL_SOURCE_KEY, defaults=_MAIL_SOURCE_DEFAULTS)
    run = fetch_run_start(source, trigger=MAILBOX_TRIGGER, scope=tenant_schema)
    if run.status == FetchRunStatus.SKIPPED:
        return MailboxRun(run=run)
    chunks = _Chunks(tenant_schema=tenant_schema, trust=trust, now=now, run=run)
    outcome = fetch_run_execute(
        source, run, lambda: chunks.batches(read()), persist_cursor=False, within_batch=chunks.record
    )
    return MailboxRun(
        run=outcome.run,
        mails=dict(chunks.statuses),
        leads=chunks.leads,
        page_requests=tuple(chunks.page_requests),
        reused_message_ids=chunks.reused,
    )


def mail_leads_follow(*, mail_id: int, now: datetime) -> list[int]:
    """A released mail's leads point like a verified mail's: request the portal pages they name.

    Called by the tenant's release in its transaction; ingests nothing (the pages are the source).
    Returns the ids of the pending page requests.
    """
    documents = InboundMail.objects.values_list("held_notices", flat=True).get(pk=mail_id)
    records = []
    for document in documents if isinstance(documents, list) else ():
        try:
            records.append(record_from_json(document))
        except (TypeError, ValueError, KeyError):  # a document this code no longer reads: nothing to follow
            continue
    return [request.pk for request in portal_page_requests_record(records=records, now=now)]


class _Chunks:
    """Turns chunks of mails into (empty) batches for the run loop and records each chunk's mails with their
    page requests in the batch's transaction."""

    def __init__(self, *, tenant_schema: str, trust: MailTrust, now: datetime, run: FetchRun) -> None:
        self.tenant_schema = tenant_schema
        self.trust = trust
        self.now = now
        self.run = run
        self.statuses: Counter[str] = Counter({PARSED: 0, UNPARSED: 0, IGNORED: 0, QUARANTINED: 0})
        self.leads = 0
        self.reused = 0
        self.page_requests: list[int] = []
        self._rows: list[InboundMail] = []
        self._pointers: list = []
        self._seen: set[tuple[str, str]] = set()

    def _first_copies(self, mails: Sequence[MailMessage]) -> tuple[list[tuple[MailMessage, str]], int]:
        # A mailbox may hold one message twice (copied between folders, delivered twice, read again in the
        # overlap of two checks): one mail, recorded and counted once. One mail is one Message-ID *and*
        # content: a mail reusing a Message-ID with other bytes is a mail of its own, never a copy.
        hashed = [(mail, mail_content_sha256(mail)) for mail in mails]
        known = set(
            InboundMail.objects.filter(
                tenant_schema=self.tenant_schema, message_id__in={mail.key for mail, _ in hashed}
            ).values_list("message_id", "content_sha256")
        )
        first, recorded_before = [], 0
        for mail, digest in hashed:
            if (mail.key, digest) in self._seen:
                continue  # a copy of a mail of this check (its first copy may be recorded already)
            if (mail.key, digest) in known:
                recorded_before += 1
                continue
            self._seen.add((mail.key, digest))
            first.append((mail, digest))
        return first, recorded_before

    def batches(self, chunks: Iterable[Sequence[MailMessage]]) -> Iterable[FetchedBatch]:
        # Read inside the run (this generator runs in the run loop): a failure here fails the run.
        host_sources, portal_domains = host_sources_current(), portal_domains_current()
        for read in chunks:
            mails, recorded_before = self._first_copies(read)
            verdicts = [
                mail_judge(mail, host_sources=host_sources, trust=self.trust, portal_domains=portal_domains)
                for mail, _ in mails
            ]
            # The run loop calls ``record`` in the batch's transaction; the batch itself carries no records:
            # a mail never reaches the shared tender tables (see the module docstring).
            judged = zip(mails, verdicts, strict=True)
            self._rows = [self._row(mail, digest, verdict) for (mail, digest), verdict in judged]
            self._pointers = [record for verdict in verdicts for record in verdict.pointers]
            yield FetchedBatch(
                problems=tuple(
                    _problem(mail, verdict)
                    for (mail, _), verdict in zip(mails, verdicts, strict=True)
                    if verdict.status in (UNPARSED, QUARANTINED)
                ),
                bytes=sum(mail.size for mail in read),
                # Mails of earlier checks read again (the window's overlap) are no mail of this check: counted,
                # they would make every check without new mail look like a mailbox gone quiet (low yield).
                requests=len(read) - recorded_before,
                scope=self.tenant_schema,
            )

    def record(self, batch: FetchedBatch, _delta) -> None:
        self._flag_reused_message_ids()
        InboundMail.objects.bulk_create(self._rows, ignore_conflicts=True)
        requests = portal_page_requests_record(records=self._pointers, now=self.now)
        self.page_requests.extend(request.pk for request in requests if request.pk not in self.page_requests)
        self.statuses.update(row.status for row in self._rows)
        leads = sum(len(row.held_notices) for row in self._rows)
        self.leads += leads
        self.run.fetched += leads  # notices the mails named: what the low-yield alarm judges per mailbox
        self._rows, self._pointers = [], []

    def _flag_reused_message_ids(self) -> None:
        """Rows whose Message-ID another mail of this tenant carries with other content are flagged, both sides."""
        keys = {row.message_id for row in self._rows}
        earlier = InboundMail.objects.filter(tenant_schema=self.tenant_schema, message_id__in=keys)
        taken = set(earlier.values_list("message_id", flat=True))
        counts = Counter(row.message_id for row in self._rows)
        for row in self._rows:
            if row.message_id in taken or counts[row.message_id] > 1:
                row.message_id_reused = True
                self.reused += 1
        if taken:
            earlier.filter(message_id_reused=False).update(message_id_reused=True)

    def _row(self, mail: MailMessage, digest: str, verdict: MailVerdict) -> InboundMail:
        return InboundMail(
            tenant_schema=self.tenant_schema,
            message_id=mail.key,
            content_sha256=digest,
            portal=verdict.parse.portal[:40],
            subject=verdict.parse.subject[:998],
            sender=verdict.parse.sender[:998],
            received_at=mail.received_at or verdict.parse.date,
            processed_at=self.now,
            status=verdict.status,
            reason=verdict.reason[:10000],
            notices_found=len(verdict.parse.records),
            raw=mail.raw[:RAW_KEEP_BYTES],
            quarantine_reason=verdict.quarantine_reason,
            held_notices=[record_to_json(record) for record in verdict.leads],
        )


def _problem(mail: MailMessage, verdict: MailVerdict) -> str:
    return f"{mail.key[:200]}: {verdict.status}: {verdict.reason[:300]}"
