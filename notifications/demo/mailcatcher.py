"""The demo's mail catcher: a real SMTP server on 127.0.0.1 that files every message in a Maildir.

The demo tenant's alerts go out through the product's normal SMTP path to this server, and
the portal's "Postausgang (lokal)" page reads the Maildir back. Nothing leaves the machine.
"""

from __future__ import annotations

import logging
import mailbox
import threading
from pathlib import Path

from aiosmtpd.controller import Controller


class MaildirHandler:
    def __init__(self, maildir: Path):
        maildir.parent.mkdir(parents=True, exist_ok=True)
        self.maildir = mailbox.Maildir(str(maildir), create=True)
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self._lock:
            self.maildir.add(envelope.original_content)
        return "250 Message accepted for delivery"


def mail_catcher_start(*, maildir: Path, port: int, host: str = "127.0.0.1") -> Controller:
    """Start the catcher in a background thread; ``stop()`` the returned controller to end it."""
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs every connection at INFO
    controller = Controller(MaildirHandler(maildir), hostname=host, port=port)
    controller.start()
    return controller
