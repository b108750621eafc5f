"""Portal alert mails from each tenant's own mailbox -> tenders, every mail recorded once.

``mailbox_check`` works on the current tenant schema: it reads the tenant's active
``MailboxSettings`` (the password is decrypted on purpose, only here), connects
(:mod:`notifications.inbox.imap`), lists the messages that arrived since the last check
(minus an overlap of ``OVERLAP_DAYS``; on the first check the last ``FIRST_CHECK_DAYS``),
skips every Message-ID this tenant has processed already (``InboundMail`` in the public
schema, unique per tenant and Message-ID), parses the rest (``sources.adapters.mail``) and,
per chunk of mails in one transaction, records each as ``InboundMail`` (parsed / unparsed /
ignored / quarantined, reason, raw bytes capped at ``RAW_KEEP_BYTES``) and ingests the
notices of the *verified* mails through ``tenders.services.notices_ingest`` - which links
them to existing tenders (same source notice id, portal references) or creates new ones.
Matching is then handed on by task name, from the public schema, exactly like a source run.

Tenders are shared by every tenant, and anyone can write to a mailbox: a parsed mail reaches
the shared tables only when ``sources.adapters.mail.provenance`` verifies it (known portal
sender, authenticated by the tenant's own receiving server or named in a forwarding rule,
links only to that portal). Any other parsed mail is ``quarantined``: its notices are kept
on the ``InboundMail`` row (``held_notices``) for the tenant's mailbox page, never ingested.
``inbound_mail_release`` lets the tenant admin accept such a mail for their tenant alone: it
stays out of the shared tables (see docs/architecture.md, "Trust boundaries").

Idempotent: a mail is processed once per tenant whatever the flags in the mailbox say, and
the mailbox itself is never changed. Two checks of one tenant never overlap (advisory lock).
Failures of the mailbox (credentials, network, TLS, a key that cannot decrypt the password)
end up in ``MailboxSettings.last_error`` and are not raised; one tenant's broken mailbox
cannot affect another's (each check is its own task in its own schema). ``last_checked_at``
is the last *successful* check: the next window starts there, so an outage loses no mail.

``mailbox_check_fan_out`` (public schema) sends one ``notifications.check_mailbox`` task per
tenant with an active mailbox, spread over ``FAN_OUT_JITTER_SECONDS``.
"""

from __future__ import annotations

import contextlib
import logging
import random
import ssl
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django_tenants.utils import get_public_schema_name

from notifications.inbox.imap import FetchedMail, MailboxError, MailboxReader
from notifications.inbox.selectors import (
    inbound_mail_known_keys,
    mailbox_address,
    mailbox_settings_active,
    mailbox_trust,
    tenant_schemas_with_active_mailbox,
)
from notifications.models import MailboxSettings
from sources.adapters.mail import MailParse, parse_alert_mail
from sources.adapters.mail.provenance import MailTrust, mail_provenance
from sources.links import records_links_checked
from sources.models import InboundMail, InboundMailStatus
from sources.records import NoticeRecord
from sources.selectors import fingerprint_rule_enabled, host_sources_current, portal_domains_current
from tenders.handoff import delta_hand_off
from tenders.merging import record_to_json
from tenders.models import TenderSource
from tenders.services import IngestDelta, notices_ingest

logger = logging.getLogger(__name__)

FIRST_CHECK_DAYS = 14
OVERLAP_DAYS = 2  # IMAP SINCE has day precision in the server's time zone
MAX_MAILS_PER_CHECK = 1000  # the rest waits for the next check (oldest first)
MAX_MAIL_BYTES = 10 * 2**20
RAW_KEEP_BYTES = 256 * 2**10
FAN_OUT_JITTER_SECONDS = 300
CHECK_TASK_NAME = "notifications.check_mailbox"
_LOCK_NAMESPACE = 0x1B0C  # first key of pg_try_advisory_lock(int, int); the second is hashtext(schema)


@dataclass(frozen=True)
class MailboxCheckOutcome:
    checked: bool  # False: no active mailbox, or another check of this tenant is running
    error: str = ""
    new_mails: int = 0
    parsed: int = 0
    unparsed: int = 0
    ignored: int = 0
    quarantined: int = 0
    notices: int = 0  # notices ingested into the shared tables (verified mails only)
    created: tuple[int, ...] = ()  # tenders the mails created
    linked: tuple[int, ...] = ()  # existing tenders the mails were attached to or changed

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
    with _tenant_lock(schema) as acquired:
        if not acquired:
            return MailboxCheckOutcome(checked=False, error="another check of this mailbox is running")
        try:
            outcome = _check(mailbox, schema=schema, now=now, ssl_context=ssl_context, timeout=timeout)
        except MailboxError as exc:
            _record_failure(mailbox, error=str(exc))
            return MailboxCheckOutcome(checked=True, error=str(exc))
        except Exception as exc:
            _record_failure(mailbox, error=f"Interner Fehler beim Lesen des Postfachs: {type(exc).__name__}")
            raise
    _record_success(mailbox, now=now)
    return outcome


def mailbox_check_fan_out(*, rng: random.Random | None = None) -> list[str]:
    """From the public schema: one check task per tenant with an active mailbox, at jittered times."""
    from accounts.selectors import tenant_list_active
    from config.celery import app

    rng = rng or random.Random()
    schemas = list(tenant_list_active().values_list("schema_name", flat=True))
    due = tenant_schemas_with_active_mailbox(schemas=schemas)
    for schema in due:
        app.send_task(
            CHECK_TASK_NAME,
            countdown=rng.uniform(0, FAN_OUT_JITTER_SECONDS),
            headers={"_schema_name": schema},
        )
    return due


# --- one check ----------------------------------------------------------------------------------


def _check(mailbox: MailboxSettings, *, schema: str, now: datetime, ssl_context, timeout: float):
    address = mailbox_address(mailbox=mailbox)
    since = _since(mailbox, now)
    host_sources = host_sources_current()
    checking = _Checking(
        host_sources=host_sources,
        trust=mailbox_trust(mailbox=mailbox),
        portal_domains=portal_domains_current(),
    )
    totals = _Totals()
    with MailboxReader(
        address,
        ssl_context=ssl_context,
        timeout=timeout,
        allow_loopback=settings.SOURCES_ALLOW_LOOPBACK,
        max_bytes=MAX_MAIL_BYTES,
    ) as reader:
        candidates = reader.candidates(since=since.date())
        known = inbound_mail_known_keys(tenant_schema=schema, message_ids=(c.key for c in candidates.values()))
        new = {uid: c for uid, c in candidates.items() if c.key not in known}
        new = dict(sorted(new.items())[:MAX_MAILS_PER_CHECK])
        for chunk in reader.fetch(new):
            totals.add(_process(chunk, schema=schema, now=now, checking=checking))
    return totals.outcome()


@dataclass
class _Totals:
    new_mails: int = 0
    parsed: int = 0
    unparsed: int = 0
    ignored: int = 0
    quarantined: int = 0
    notices: int = 0
    created: tuple[int, ...] = ()
    tenders: tuple[int, ...] = ()  # every tender a notice of these mails belongs to

    def add(self, part: _ChunkResult) -> None:
        self.new_mails += len(part.results)
        for result in part.results:
            setattr(self, str(result.status), getattr(self, str(result.status)) + 1)
        self.notices += part.ingested
        self.created = tuple(dict.fromkeys((*self.created, *part.delta.created)))
        self.tenders = tuple(dict.fromkeys((*self.tenders, *part.tenders)))

    def outcome(self) -> MailboxCheckOutcome:
        linked = tuple(t for t in self.tenders if t not in self.created)
        return MailboxCheckOutcome(
            checked=True,
            new_mails=self.new_mails,
            parsed=self.parsed,
            unparsed=self.unparsed,
            ignored=self.ignored,
            quarantined=self.quarantined,
            notices=self.notices,
            created=self.created,
            linked=linked,
        )


@dataclass(frozen=True)
class _Checking:
    """What every mail of one check is parsed and judged against."""

    host_sources: dict[str, str]
    trust: MailTrust
    portal_domains: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class _Judged:
    """One mail after parsing and the provenance check: its status and the records it may ingest."""

    status: str
    parse: MailParse
    reason: str
    quarantine_reason: str = ""
    held: tuple[NoticeRecord, ...] = ()

    @property
    def ingestable(self) -> tuple[NoticeRecord, ...]:
        return self.parse.records if self.status == InboundMailStatus.PARSED else ()


@dataclass(frozen=True)
class _ChunkResult:
    results: list[_Judged]
    delta: IngestDelta
    tenders: tuple[int, ...]
    ingested: int


def _judge(mail: FetchedMail, checking: _Checking) -> _Judged:
    parse = _parse(mail, checking.host_sources)
    checked = records_links_checked(parse.records)
    parse = replace(parse, records=checked.records, problems=(*parse.problems, *checked.problems))
    reason = "; ".join(filter(None, [parse.reason, *parse.problems]))
    if parse.status != InboundMailStatus.PARSED:
        return _Judged(status=parse.status, parse=parse, reason=reason)
    if not parse.records:  # every notice link was dropped as unsafe: nothing to ingest, nothing to hold
        return _Judged(status=InboundMailStatus.UNPARSED, parse=parse, reason=reason)
    provenance = mail_provenance(parse, trust=checking.trust, portal_domains=checking.portal_domains)
    if provenance.verified:
        detail = f"verified {provenance.family} sender ({provenance.via})"
        return _Judged(status=InboundMailStatus.PARSED, parse=parse, reason="; ".join(filter(None, [detail, reason])))
    return _Judged(
        status=InboundMailStatus.QUARANTINED,
        parse=parse,
        reason="; ".join(filter(None, [provenance.detail, reason])),
        quarantine_reason=provenance.reason,
        held=parse.records,
    )


def _process(mails: list[FetchedMail], *, schema: str, now: datetime, checking: _Checking) -> _ChunkResult:
    """Parse, then record and ingest one chunk in one transaction: a mail counts as done only with its notices."""
    results = [_judge(mail, checking) for mail in mails]
    rows = [
        InboundMail(
            tenant_schema=schema,
            message_id=mail.key,
            portal=judged.parse.portal[:40],
            subject=judged.parse.subject[:998],
            sender=judged.parse.sender[:998],
            received_at=mail.received_at or judged.parse.date,
            processed_at=now,
            status=judged.status,
            reason=judged.reason[:10000],
            notices_found=len(judged.parse.records),
            raw=mail.raw[:RAW_KEEP_BYTES],
            quarantine_reason=judged.quarantine_reason,
            held_notices=[record_to_json(record) for record in judged.held],
        )
        for mail, judged in zip(mails, results, strict=True)
    ]
    records = [record for judged in results for record in judged.ingestable]
    with transaction.atomic():
        InboundMail.objects.bulk_create(rows, ignore_conflicts=True)
        delta = notices_ingest(records=records, now=now, use_fingerprint=fingerprint_rule_enabled())
        delta_hand_off(delta)
    return _ChunkResult(results=results, delta=delta, tenders=_tenders_of(records), ingested=len(records))


def _tenders_of(records) -> tuple[int, ...]:
    """The tenders the records landed in (one query)."""
    keys = {(record.source, record.source_notice_id) for record in records}
    if not keys:
        return ()
    rows = TenderSource.objects.filter(
        source__in={source for source, _ in keys}, source_notice_id__in={notice for _, notice in keys}
    ).values_list("source", "source_notice_id", "tender_id")
    return tuple(dict.fromkeys(tender for source, notice, tender in rows if (source, notice) in keys))


def _parse(mail: FetchedMail, host_sources) -> MailParse:
    if mail.truncated:
        return MailParse(
            status="unparsed",
            reason=f"mail of {mail.size} bytes is larger than {MAX_MAIL_BYTES} bytes; not read",
            message_id=mail.key,
        )
    return parse_alert_mail(mail.raw, host_sources=host_sources)


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


@contextlib.contextmanager
def _tenant_lock(schema: str) -> Iterator[bool]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", [_LOCK_NAMESPACE, schema])
        acquired = bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", [_LOCK_NAMESPACE, schema])
