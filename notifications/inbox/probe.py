"""The "Verbindung prüfen" button: log in to the saved mailbox once and report what was found.

Same connection path as the periodic check (SSRF guard, TLS or STARTTLS, login, folder
opened read-only), so a successful test means the check will get in; no mail is read,
nothing is recorded, and the check's own bookkeeping (``last_checked_at``) is untouched.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass

from django.conf import settings

from accounts.selectors import internal_relay_grants
from notifications.inbox.imap import MailboxReader
from notifications.inbox.selectors import mailbox_address
from notifications.models import MailboxSettings


@dataclass(frozen=True)
class MailboxProbe:
    where: str  # host:port
    folder: str
    messages: int


def mailbox_connection_test(
    *, mailbox_id: int, ssl_context: ssl.SSLContext | None = None, timeout: float = 15.0
) -> MailboxProbe:
    """Connect, log in and open the folder of this tenant's saved mailbox; raise ``MailboxError`` (German)."""
    mailbox = MailboxSettings.objects.defer("password").get(pk=mailbox_id)
    address = mailbox_address(mailbox=mailbox)
    with MailboxReader(
        address,
        ssl_context=ssl_context,
        timeout=timeout,
        allow_loopback=settings.SOURCES_ALLOW_LOOPBACK,
        grants=internal_relay_grants(protocol="imap"),
    ) as reader:
        return MailboxProbe(
            where=f"{address.host}:{address.port}", folder=address.folder, messages=reader.message_count
        )
