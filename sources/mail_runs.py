"""Runs of the mail source: a tenant's mailbox check through the same run loop as every other source.

The schema boundary decides the split. The tenant side (``notifications.inbox``) owns the
mailbox credentials and reads the mailbox; this shared service owns everything after the bytes:
one ``FetchRun`` of the ``mail`` Source per check (``trigger="mailbox"``, ``scope`` = the
tenant's schema), parsing and the provenance verdict per mail
(``sources.adapters.mail.verdict``), one ``InboundMail`` row per mail, the ingest of verified
notices and the hand-off to matching - each chunk of mails in one transaction with its notices.
So a mailbox that cannot be read is a failed run (reason ``mailbox``) in source health, and the
low-yield alarm judges each mailbox against its own recent checks.

Counts on the run: ``requests`` = mails read, ``bytes`` = their size, ``fetched``/``new``/
``changed``/``unchanged`` = the notices of verified mails and what the ingest made of them;
every mail not taken (unparsed, quarantined) is a problem, so such a check ends ``partial``.
Mails that are no portal alert (newsletters, auto-replies) are recorded, not counted as problems.
Checks of different tenants run side by side; two checks of the same mailbox do not (the second
is ``skipped``, ``fetchrun_one_running_per_mailbox``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sources.adapters.base import FetchedBatch
from sources.adapters.mail.provenance import MailTrust
from sources.adapters.mail.verdict import IGNORED, PARSED, QUARANTINED, UNPARSED, MailMessage, MailVerdict, mail_judge
from sources.models import MAILBOX_TRIGGER, FetchRun, FetchRunStatus, InboundMail, Source
from sources.selectors import host_sources_current, portal_domains_current
from sources.services import _execute, _start_run
from tenders.merging import record_to_json
from tenders.models import TenderSource

__all__ = ["MAILBOX_TRIGGER", "MAIL_SOURCE_KEY", "MailboxRun", "mail_source_run"]

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
    notices: int = 0  # notices ingested into the shared tables (verified mails only)
    created: tuple[int, ...] = ()  # tenders the mails created
    linked: tuple[int, ...] = ()  # existing tenders the mails were attached to or changed


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
    run = _start_run(source, trigger=MAILBOX_TRIGGER, scope=tenant_schema)
    if run.status == FetchRunStatus.SKIPPED:
        return MailboxRun(run=run)
    chunks = _Chunks(tenant_schema=tenant_schema, trust=trust, now=now)
    outcome = _execute(source, run, lambda: chunks.batches(read()), persist_cursor=False, within_batch=chunks.record)
    created = tuple(outcome.delta.created)
    new = set(created)
    return MailboxRun(
        run=outcome.run,
        mails=dict(chunks.statuses),
        notices=chunks.notices,
        created=created,
        linked=tuple(t for t in chunks.tenders if t not in new),
    )


class _Chunks:
    """Turns chunks of mails into batches for the run loop and records each chunk's mails with its notices."""

    def __init__(self, *, tenant_schema: str, trust: MailTrust, now: datetime) -> None:
        self.tenant_schema = tenant_schema
        self.trust = trust
        self.now = now
        self.statuses: Counter[str] = Counter({PARSED: 0, UNPARSED: 0, IGNORED: 0, QUARANTINED: 0})
        self.notices = 0
        self.tenders: tuple[int, ...] = ()
        self._rows: list[InboundMail] = []
        self._keys: set[str] = set()

    def _first_copies(self, mails: Sequence[MailMessage]) -> list[MailMessage]:
        # A mailbox may hold one message twice (copied between folders, delivered twice): it is one
        # mail, recorded, counted and ingested once.
        first = []
        for mail in mails:
            if mail.key not in self._keys:
                self._keys.add(mail.key)
                first.append(mail)
        return first

    def batches(self, chunks: Iterable[Sequence[MailMessage]]) -> Iterable[FetchedBatch]:
        # Read inside the run (this generator runs in the run loop): a failure here fails the run.
        host_sources, portal_domains = host_sources_current(), portal_domains_current()
        for read in chunks:
            mails = self._first_copies(read)
            verdicts = [
                mail_judge(mail, host_sources=host_sources, trust=self.trust, portal_domains=portal_domains)
                for mail in mails
            ]
            # The run loop ingests the batch and then calls ``record`` in the same transaction.
            self._rows = [self._row(mail, verdict) for mail, verdict in zip(mails, verdicts, strict=True)]
            yield FetchedBatch(
                records=tuple(record for verdict in verdicts for record in verdict.ingestable),
                problems=tuple(
                    _problem(mail, verdict)
                    for mail, verdict in zip(mails, verdicts, strict=True)
                    if verdict.status in (UNPARSED, QUARANTINED)
                ),
                bytes=sum(mail.size for mail in read),
                requests=len(read),
                scope=self.tenant_schema,
            )

    def record(self, batch: FetchedBatch, _delta) -> None:
        InboundMail.objects.bulk_create(self._rows, ignore_conflicts=True)
        self.statuses.update(row.status for row in self._rows)
        self._rows = []
        self.notices += len(batch.records)
        self.tenders = tuple(dict.fromkeys((*self.tenders, *_tenders_of(batch.records))))

    def _row(self, mail: MailMessage, verdict: MailVerdict) -> InboundMail:
        return InboundMail(
            tenant_schema=self.tenant_schema,
            message_id=mail.key,
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
            held_notices=[record_to_json(record) for record in verdict.held],
        )


def _problem(mail: MailMessage, verdict: MailVerdict) -> str:
    return f"{mail.key[:200]}: {verdict.status}: {verdict.reason[:300]}"


def _tenders_of(records) -> tuple[int, ...]:
    """The tenders the records landed in (one query)."""
    keys = {(record.source, record.source_notice_id) for record in records}
    if not keys:
        return ()
    rows = TenderSource.objects.filter(
        source__in={source for source, _ in keys}, source_notice_id__in={notice for _, notice in keys}
    ).values_list("source", "source_notice_id", "tender_id")
    return tuple(dict.fromkeys(tender for source, notice, tender in rows if (source, notice) in keys))
