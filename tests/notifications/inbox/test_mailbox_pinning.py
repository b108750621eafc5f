"""The mailbox reader connects to the addresses its SSRF check approved, never to a second lookup of the name.

A real Dovecot on loopback; only name resolution, which leaves the machine, is replaced: it answers the
check once and refuses any later lookup of the same name, as a DNS answer that changed in between would.
"""

from __future__ import annotations

import socket

import pytest

from notifications.inbox.imap import MailboxAddress, MailboxReader


@pytest.mark.parametrize("use_ssl", [True, False], ids=["implicit-tls", "starttls"])
def test_the_reader_connects_to_the_checked_address_without_a_second_lookup(imap_server, monkeypatch, use_ssl):
    user, password = imap_server.add_user()
    resolve = socket.getaddrinfo
    lookups = []

    def answer_once(host, *args, **kwargs):
        if host == "localhost":
            lookups.append(host)
            if len(lookups) > 1:
                raise socket.gaierror(socket.EAI_NONAME, "the checked name was looked up again")
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", answer_once)
    address = MailboxAddress(
        host="localhost",
        port=imap_server.ssl_port if use_ssl else imap_server.port,
        use_ssl=use_ssl,
        username=user,
        password=password,
        folder="INBOX",
    )
    with MailboxReader(address, ssl_context=imap_server.ssl_context(), timeout=10, allow_loopback=True) as reader:
        assert reader.message_count == 0
    assert lookups == ["localhost"]  # the check's lookup only
