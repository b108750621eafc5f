"""Reads for the inbox: the tenant's mailbox settings, mails already processed, who has a mailbox."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
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
from sources.models import ApprovedForwarder, InboundMail, InboundMailStatus
from tenders.merging import record_from_json


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
        forwarders=tuple(
            ApprovedSender(family=entry.family, domain=entry.sender_domain) for entry in approved if entry.key in picked
        ),
    )


def inbound_mail_known_keys(*, tenant_schema: str, message_ids: Iterable[str]) -> set[str]:
    """Which of ``message_ids`` this tenant's mailbox check has processed already (one query)."""
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


@dataclass(frozen=True)
class HeldNotice:
    title: str
    buyer_name: str
    submission_deadline: datetime | None
    url: str  # a safe http(s) link, "" when there is none
    host: str


@dataclass(frozen=True)
class InboundMailRow:
    mail: InboundMail
    notices: tuple[HeldNotice, ...]

    @property
    def released(self) -> bool:
        return self.mail.status == InboundMailStatus.RELEASED


def inbound_mail_rows(*, tenant_schema: str, limit: int) -> list[InboundMailRow]:
    """The tenant's latest processed mails for the mailbox page, quarantined and released ones with their notices."""
    rows = inbound_mail_list(tenant_schema=tenant_schema)[:limit]
    return [InboundMailRow(mail=mail, notices=_held_notices(mail.held_notices)) for mail in rows]


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
            )
        )
    return tuple(notices)
