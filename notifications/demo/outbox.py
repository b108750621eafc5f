"""Reading the local mail catcher's Maildir back, for the portal's "Postausgang (lokal)" page.

Only local settings name a Maildir (``LOCAL_OUTBOX_DIR``); production sets none, so the page
does not exist there. A tenant sees only mails addressed to its own users.
"""

from __future__ import annotations

import email
import email.policy
import mailbox
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import Path

from django.conf import settings


@dataclass(frozen=True)
class OutboxMail:
    key: str
    subject: str
    sender: str
    recipients: tuple[str, ...]
    sent_at: datetime | None
    text: str
    html: str


def local_outbox_dir() -> Path | None:
    value = getattr(settings, "LOCAL_OUTBOX_DIR", None)
    return Path(value) if value else None


def _parse(key: str, raw: bytes) -> OutboxMail:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    text_part = message.get_body(preferencelist=("plain",))
    html_part = message.get_body(preferencelist=("html",))
    try:
        sent_at = parsedate_to_datetime(message["Date"]) if message["Date"] else None
    except (TypeError, ValueError):
        sent_at = None
    if sent_at is not None and sent_at.tzinfo is None:
        # "-0000" (what Django writes unless EMAIL_USE_LOCALTIME) is UTC with no local offset given (RFC 5322 3.3);
        # left naive, the page would show it as local time, an hour or two early.
        sent_at = sent_at.replace(tzinfo=UTC)
    recipients = tuple(address.lower() for _name, address in getaddresses(message.get_all("To", [])) if address)
    return OutboxMail(
        key=key,
        subject=str(message["Subject"] or ""),
        sender=str(message["From"] or ""),
        recipients=recipients,
        sent_at=sent_at,
        text=text_part.get_content() if text_part is not None else "",
        html=html_part.get_content() if html_part is not None else "",
    )


def outbox_mails(*, recipients: Iterable[str]) -> list[OutboxMail]:
    """Mails in the catcher addressed to any of ``recipients``, newest first ([] when there is no outbox)."""
    folder = local_outbox_dir()
    if folder is None or not folder.exists():
        return []
    wanted = {address.lower() for address in recipients}
    box = mailbox.Maildir(str(folder), create=False)
    mails = []
    for key in box.iterkeys():
        try:
            raw = box.get_bytes(key)
        except (KeyError, OSError):  # removed meanwhile
            continue
        mail = _parse(key, raw)
        if wanted & set(mail.recipients):
            mails.append(mail)
    epoch = datetime.min.replace(tzinfo=UTC)
    mails.sort(key=lambda m: (m.sent_at or epoch, m.key), reverse=True)
    return mails
