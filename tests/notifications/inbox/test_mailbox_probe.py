"""The "Verbindung prüfen" button: a real Dovecot, the tenant admin's page, nothing read or recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from django_tenants.utils import schema_context

from notifications.inbox.imap import MailboxError
from notifications.inbox.probe import mailbox_connection_test
from notifications.models import MailboxSettings
from sources.models import InboundMail

MAIL = Path(__file__).resolve().parents[2] / "data" / "portals" / "mail"


def _saved_mailbox(imap_server, tenant, *, password=None, folder="INBOX", use_ssl=True) -> tuple[MailboxSettings, str]:
    user, real_password = imap_server.add_user(tenant.schema_name)
    imap_server.append(user, (MAIL / "dtvp_alert_html_only.eml").read_bytes())
    imap_server.append(user, (MAIL / "newsletter_not_an_alert.eml").read_bytes())
    with schema_context(tenant.schema_name):
        mailbox = MailboxSettings.objects.create(
            host=imap_server.host,
            port=imap_server.ssl_port if use_ssl else imap_server.port,
            use_ssl=use_ssl,
            username=user,
            password=real_password if password is None else password,
            folder=folder,
        )
    return mailbox, user


@pytest.mark.parametrize("use_ssl", [True, False], ids=["implicit-tls", "starttls"])
def test_probe_logs_in_and_counts_the_folder_without_reading_it(alpha, imap_server, use_ssl):
    mailbox, user = _saved_mailbox(imap_server, alpha.tenant, use_ssl=use_ssl)
    with schema_context(alpha.schema_name):
        probe = mailbox_connection_test(mailbox_id=mailbox.pk, ssl_context=imap_server.ssl_context(), timeout=10)
        mailbox.refresh_from_db()
    assert (probe.folder, probe.messages) == ("INBOX", 2)
    assert probe.where == f"{imap_server.host}:{mailbox.port}"
    assert mailbox.last_checked_at is None and mailbox.last_error == ""  # the check's bookkeeping is untouched
    assert not InboundMail.objects.exists()
    assert all(b"\\Seen" not in flags for flags in imap_server.flags(user))


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"password": "falsch"}, "Anmeldung"),
        ({"folder": "Gibt-es-nicht"}, "Ordner 'Gibt-es-nicht' kann nicht geöffnet werden"),
    ],
)
def test_probe_names_what_failed(alpha, imap_server, values, expected):
    mailbox, _ = _saved_mailbox(imap_server, alpha.tenant, **values)
    with schema_context(alpha.schema_name), pytest.raises(MailboxError, match=expected):
        mailbox_connection_test(mailbox_id=mailbox.pk, ssl_context=imap_server.ssl_context(), timeout=10)


def test_button_reports_success_on_the_settings_page(alpha, alpha_admin_client, imap_server, monkeypatch):
    # The view builds the default TLS context; OpenSSL honours SSL_CERT_FILE, as it would for a private CA.
    monkeypatch.setenv("SSL_CERT_FILE", str(imap_server.cert_path))
    _saved_mailbox(imap_server, alpha.tenant)
    page = alpha_admin_client.post("/einstellungen/postfach/pruefen/", follow=True).content.decode()
    assert "erfolgreich" in page and "„INBOX“ mit 2 Nachrichten" in page


def test_button_reports_a_certificate_it_cannot_trust(alpha, alpha_admin_client, imap_server):
    _saved_mailbox(imap_server, alpha.tenant)  # self-signed, and SSL_CERT_FILE does not name it
    page = alpha_admin_client.post("/einstellungen/postfach/pruefen/", follow=True).content.decode()
    assert "Verbindung fehlgeschlagen" in page and "TLS" in page
