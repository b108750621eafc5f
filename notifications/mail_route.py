"""The tenant's own mail route: its SMTP server (alerts, digests, mentions) and its IMAP mailbox (portal alert mails).

One row each at most, by constraint; every reader — the senders, the mailbox checks and the settings
pages — goes through here, so the engines below the settings pages never import a feature.
The SMTP connection's own address check (``SmtpAddressGuard``) lives here for the same reason.
"""

from __future__ import annotations

import socket

from django.conf import settings

from accounts.selectors import internal_relay_grants
from kernel.network import relay_exemption, resolve_and_check, system_resolver
from notifications.models import MailboxSettings, SmtpSettings


def smtp_settings_get() -> SmtpSettings | None:
    """The tenant's SMTP settings (one row at most, by constraint); every reader goes through here."""
    return SmtpSettings.objects.first()


def mailbox_settings_get(*, defer_password: bool = False) -> MailboxSettings | None:
    """The tenant's IMAP settings (one row at most, by constraint); every reader goes through here."""
    rows = MailboxSettings.objects.all()
    return (rows.defer("password") if defer_password else rows).first()


class SmtpAddressGuard:
    """Mixin for ``smtplib.SMTP`` / ``SMTP_SSL``: connect only to an address the SSRF rule allows, resolved once.

    smtplib resolves the host name itself when it connects; checking the name before would leave a
    window for a DNS answer that changes in between. Here the name is resolved and checked (public,
    or an internal server the operator approved for SMTP on this port) and the socket goes to that
    address; ``self._host`` stays the name, so STARTTLS and implicit TLS verify the certificate for it.
    Put it before the smtplib class in the bases: ``SMTP_SSL`` wraps the socket this returns.
    """

    def _get_socket(self, host, port, timeout):
        grants = internal_relay_grants(protocol="smtp")
        addresses = resolve_and_check(
            f"smtp://{host}:{port}",
            host,
            port,
            resolver=system_resolver,
            allow_loopback=settings.MAIL_ALLOW_LOOPBACK,
            exempt=relay_exemption(grants, protocol="smtp", host=host, port=port),
        )
        last_error: OSError | None = None
        for address in addresses:
            try:
                return super()._get_socket(address, port, timeout)
            except OSError as exc:
                last_error = exc
        raise last_error if last_error is not None else socket.gaierror(f"no address for {host}")
