"""The tenant's own mail route: its SMTP server (alerts, digests, mentions) and its IMAP mailbox (portal alert mails).

One row each at most, by constraint; every reader — the senders, the mailbox checks and the settings
pages — goes through here, so the engines below the settings pages never import a feature.
"""

from __future__ import annotations

from notifications.models import MailboxSettings, SmtpSettings


def smtp_settings_get() -> SmtpSettings | None:
    """The tenant's SMTP settings (one row at most, by constraint); every reader goes through here."""
    return SmtpSettings.objects.first()


def mailbox_settings_get(*, defer_password: bool = False) -> MailboxSettings | None:
    """The tenant's IMAP settings (one row at most, by constraint); every reader goes through here."""
    rows = MailboxSettings.objects.all()
    return (rows.defer("password") if defer_password else rows).first()
