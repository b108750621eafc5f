"""Reads for the inbox: the tenant's mailbox settings, mails already processed, who has a mailbox."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.db.models import QuerySet

from accounts.secrets import SecretUnreadable
from notifications.inbox.imap import MailboxAddress, MailboxError
from notifications.models import MailboxSettings
from notifications.preferences.selectors import mailbox_settings_get
from sources.models import InboundMail


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


def tenant_schemas_with_active_mailbox(*, schemas: Iterable[str]) -> list[str]:
    """Those of ``schemas`` whose tenant has an active mailbox: one UNION ALL query over all schemas."""
    names = list(dict.fromkeys(schemas))
    if not names:
        return []
    table = connection.ops.quote_name(MailboxSettings._meta.db_table)
    parts = [
        f"SELECT %s AS schema_name WHERE EXISTS (SELECT 1 FROM {connection.ops.quote_name(name)}.{table} "  # noqa: S608 - quoted identifiers of existing tenant schemas
        "WHERE is_active)"
        for name in names
    ]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), names)
        found = {row[0] for row in cursor.fetchall()}
    return [name for name in names if name in found]
