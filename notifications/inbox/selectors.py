"""Reads for the inbox: the tenant's mailbox settings, mails already processed, who has a mailbox."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import urlsplit

from django.db import connection
from django.db.models import QuerySet

from accounts.secrets import SecretUnreadable
from accounts.selectors import tenant_schema_chunks
from kernel.links import safe_link
from notifications.inbox.imap import MailboxAddress, MailboxError
from notifications.mail_route import mailbox_settings_get
from notifications.models import MailboxSettings
from sources.adapters.mail.provenance import ApprovedSender, MailTrust
from sources.mail_runs import MAIL_SOURCE_KEY
from sources.models import ApprovedForwarder, InboundMail, InboundMailStatus, PortalPageRequest, PortalPageRequestStatus
from tenders.merging import record_from_json
from tenders.models import TenderSource


def mailbox_settings_active() -> MailboxSettings | None:
    """The current tenant's active mailbox, without decrypting the password (read it on purpose)."""
    mailbox = mailbox_settings_get(defer_password=True)
    return mailbox if mailbox is not None and mailbox.is_active else None


def mailbox_password(*, mailbox_id: int) -> str:
    """The decrypted password; raises ``accounts.secrets.SecretUnreadable`` when no key can read it."""
    return MailboxSettings.objects.values_list("password", flat=True).get(pk=mailbox_id)


def mailbox_address(*, mailbox: MailboxSettings) -> MailboxAddress:
    """Where and as whom to log in; raises ``MailboxError`` (German) when the password cannot be decrypted."""
    try:
        password = mailbox_password(mailbox_id=mailbox.pk)
    except SecretUnreadable as exc:
        raise MailboxError(
            "Das gespeicherte Passwort kann mit den konfigurierten Schlüsseln nicht entschlüsselt werden; "
            "bitte das Passwort neu eingeben."
        ) from exc
    return MailboxAddress(
        host=mailbox.host.strip(),
        port=mailbox.port,
        use_ssl=mailbox.use_ssl,
        username=mailbox.username,
        password=password,
        folder=mailbox.folder or "INBOX",
    )


def mailbox_trust(*, mailbox: MailboxSettings) -> MailTrust:
    """What the tenant admin configured about which alert mails to trust; of the forwarding senders they
    picked only those an operator still approves count (one query on the public list)."""
    stored = mailbox.forwarders if isinstance(mailbox.forwarders, list) else []
    picked = {key for key in stored if isinstance(key, str)}
    approved = ApprovedForwarder.objects.order_by("family", "sender_domain") if picked else ()
    return MailTrust(
        authserv_id=mailbox.authserv_id.strip(),
        several_headers=mailbox.several_authentication_results,
        forwarders=tuple(
            ApprovedSender(family=entry.family, domain=entry.sender_domain) for entry in approved if entry.key in picked
        ),
    )


def inbound_mail_known_keys(*, tenant_schema: str, message_ids: Iterable[str]) -> set[str]:
    """Which of ``message_ids`` this tenant's mailbox check has processed already (one query); such a
    Message-ID is no proof of the same mail (see ``sources.mail_runs``), only of a mail not new to the cap."""
    ids = list(dict.fromkeys(message_ids))
    if not ids:
        return set()
    rows = InboundMail.objects.filter(tenant_schema=tenant_schema, message_id__in=ids)
    return set(rows.values_list("message_id", flat=True))


def inbound_mail_list(*, tenant_schema: str, status: str | None = None) -> QuerySet[InboundMail]:
    """The tenant's processed mails, newest first (without the raw bytes)."""
    rows = InboundMail.objects.filter(tenant_schema=tenant_schema).defer("raw").order_by("-processed_at")
    return rows.filter(status=status) if status else rows


def tenant_schemas_with_active_mailbox(*, schemas: Iterable[str] | None = None) -> list[str]:
    """Those of ``schemas`` (default: every active tenant's) whose tenant has an active mailbox, in their order:
    one UNION ALL query per chunk of schemas."""
    table = connection.ops.quote_name(MailboxSettings._meta.db_table)
    found: list[str] = []
    for names in tenant_schema_chunks(schemas=schemas):
        parts = [
            f"SELECT %s AS schema_name WHERE EXISTS (SELECT 1 FROM {connection.ops.quote_name(name)}.{table} "  # noqa: S608 - quoted identifiers of existing tenant schemas
            "WHERE is_active)"
            for name in names
        ]
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(parts), names)
            present = {row[0] for row in cursor.fetchall()}
        found.extend(name for name in names if name in present)
    return found


# The state of a lead: what the platform made of the portal page the mail pointed at.
LEAD_MAIL_ONLY = ""  # nothing requested (mail quarantined, or no configured portal Source serves the link)
LEAD_REQUESTED = "requested"
LEAD_CONFIRMED = "confirmed"
LEAD_UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class HeldNotice:
    """A lead: a notice only the tenant's alert mail names, with what became of its portal page."""

    title: str
    buyer_name: str
    submission_deadline: datetime | None
    url: str  # a safe http(s) link, "" when there is none
    host: str
    references: tuple[str, ...] = ()
    state: str = LEAD_MAIL_ONLY
    reason: str = ""  # why the portal page could not be read (state "unavailable")
    tender_id: int | None = None  # the platform tender once a platform source has it


@dataclass(frozen=True)
class InboundMailRow:
    mail: InboundMail
    notices: tuple[HeldNotice, ...]

    @property
    def released(self) -> bool:
        return self.mail.status == InboundMailStatus.RELEASED


def inbound_mail_rows(*, tenant_schema: str, limit: int) -> list[InboundMailRow]:
    """The tenant's latest processed mails for the mailbox page, each with its leads and their state (3 queries)."""
    rows = list(inbound_mail_list(tenant_schema=tenant_schema)[:limit])
    leads = {mail.pk: _held_notices(mail.held_notices) for mail in rows}
    references = {ref for notices in leads.values() for notice in notices for ref in notice.references}
    tenders = tender_ids_by_portal_reference(references=references)
    requests = portal_page_requests_latest(references=references)
    return [
        InboundMailRow(mail=mail, notices=tuple(_with_state(n, tenders, requests) for n in leads[mail.pk]))
        for mail in rows
    ]


def tender_ids_by_portal_reference(*, references: Iterable[str]) -> dict[str, int]:
    """Portal reference -> the platform tender a platform source (never an alert mail) published it as."""
    refs = sorted(set(references))
    if not refs:
        return {}
    rows = (
        TenderSource.objects.filter(tender__portal_references__overlap=refs)
        .exclude(source=MAIL_SOURCE_KEY)
        .order_by("tender_id")
        .values_list("tender_id", "tender__portal_references")
    )
    found: dict[str, int] = {}
    for tender_id, tender_refs in rows:
        for ref in tender_refs or ():
            if ref in refs:
                found.setdefault(ref, tender_id)
    return found


def portal_page_requests_latest(*, references: Iterable[str]) -> dict[str, PortalPageRequest]:
    """Portal reference -> its latest page request (one query)."""
    refs = sorted(set(references))
    if not refs:
        return {}
    rows = (
        PortalPageRequest.objects.filter(portal_reference__in=refs)
        .order_by("portal_reference", "-requested_at", "-pk")
        .distinct("portal_reference")
    )
    return {row.portal_reference: row for row in rows}


def _with_state(notice: HeldNotice, tenders: dict[str, int], requests: dict[str, PortalPageRequest]) -> HeldNotice:
    for ref in notice.references:
        if ref in tenders:
            return replace(notice, state=LEAD_CONFIRMED, tender_id=tenders[ref])
    latest = [requests[ref] for ref in notice.references if ref in requests]
    if any(r.status == PortalPageRequestStatus.PENDING for r in latest):
        return replace(notice, state=LEAD_REQUESTED)
    failed = [r for r in latest if r.status in (PortalPageRequestStatus.BLOCKED, PortalPageRequestStatus.FAILED)]
    if failed:
        return replace(notice, state=LEAD_UNAVAILABLE, reason=failed[0].reason or failed[0].get_status_display())
    return notice


def _held_notices(documents) -> tuple[HeldNotice, ...]:
    notices = []
    for document in documents if isinstance(documents, list) else ():
        try:
            record = record_from_json(document)
        except (TypeError, ValueError, KeyError):  # a document this code no longer reads: skip, never a 500
            continue
        url = safe_link(record.url)
        try:
            host = urlsplit(url).hostname or "" if url else ""
        except ValueError:
            host = ""
        notices.append(
            HeldNotice(
                title=record.title,
                buyer_name=record.buyer_name,
                submission_deadline=record.submission_deadline,
                url=url,
                host=host,
                references=tuple(record.portal_references),
            )
        )
    return tuple(notices)
