"""The mailbox check honours the operator's list of internal IMAP servers (real Dovecot on loopback, refused as in production)."""

from __future__ import annotations

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from accounts.services import internal_relay_save
from notifications.inbox.imap import MailboxError
from notifications.inbox.probe import mailbox_connection_test
from notifications.models import MailboxSettings


@pytest.fixture
def production_loopback(settings):
    settings.MAIL_ALLOW_LOOPBACK = False
    settings.SOURCES_ALLOW_LOOPBACK = False


def _relay(target, *, protocol, port=None):
    connection.set_schema_to_public()
    internal_relay_save(relay_id=None, target=target, protocol=protocol, port=port, note="", operator="ops")


def test_the_mailbox_check_connects_only_with_an_imap_entry(alpha, imap_server, production_loopback):
    user, password = imap_server.add_user(alpha.schema_name)
    with schema_context(alpha.schema_name):
        mailbox = MailboxSettings.objects.create(
            host=imap_server.host, port=imap_server.ssl_port, use_ssl=True, username=user, password=password
        )
        with pytest.raises(MailboxError, match="nicht öffentliche Adresse"):
            mailbox_connection_test(mailbox_id=mailbox.pk, ssl_context=imap_server.ssl_context(), timeout=10)
    _relay("127.0.0.1", protocol="smtp")  # SMTP only: the mailbox stays refused
    with schema_context(alpha.schema_name), pytest.raises(MailboxError, match="nicht öffentliche Adresse"):
        mailbox_connection_test(mailbox_id=mailbox.pk, ssl_context=imap_server.ssl_context(), timeout=10)
    _relay("127.0.0.1", protocol="imap", port=imap_server.ssl_port)
    with schema_context(alpha.schema_name):
        probe = mailbox_connection_test(mailbox_id=mailbox.pk, ssl_context=imap_server.ssl_context(), timeout=10)
    assert probe.folder == "INBOX"
