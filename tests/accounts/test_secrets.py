"""Secrets at rest: key rotation across the public and every tenant schema, and unreadable values."""

from __future__ import annotations

from io import StringIO

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.db import connection
from django_tenants.utils import schema_context

from accounts.secret_rotation import secrets_rotate
from accounts.secrets import SecretUnreadable, decrypt_secret, models_with_secrets
from notifications.models import MailboxSettings, SmtpSettings

KEY_A = Fernet.generate_key().decode()
KEY_B = Fernet.generate_key().decode()
KEY_C = Fernet.generate_key().decode()


def _raw(schema: str, table: str, pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT password FROM "{schema}"."{table}" WHERE id = %s', [pk])  # noqa: S608 - test constants
        return cursor.fetchone()[0]


@pytest.fixture
def stored(alpha, beta, settings):
    """An SMTP password in alpha and an IMAP password in beta, both encrypted with key A."""
    settings.SECRETS_ENCRYPTION_KEYS = [KEY_A]
    with schema_context("alpha"):
        smtp = SmtpSettings.objects.create(
            host="smtp.alpha.example", from_email="radar@alpha.example", password="smtp-α"
        )
    with schema_context("beta"):
        imap = MailboxSettings.objects.create(host="imap.beta.example", username="alerts", password="imap-β")
    return smtp, imap


def test_every_encrypted_field_is_found_through_the_app_registry():
    found = {(model._meta.label, tuple(names)) for model, names in models_with_secrets()}
    assert ("notifications.SmtpSettings", ("password",)) in found
    assert ("notifications.MailboxSettings", ("password",)) in found
    assert ("notifications.Webhook", ("secret",)) in found


def test_rotate_then_drop_the_old_key(stored, settings):
    smtp, imap = stored
    old_smtp = _raw("alpha", "notifications_smtpsettings", smtp.pk)
    old_imap = _raw("beta", "notifications_mailboxsettings", imap.pk)
    assert Fernet(KEY_A.encode()).decrypt(old_smtp.encode()) == "smtp-α".encode()

    settings.SECRETS_ENCRYPTION_KEYS = [KEY_B, KEY_A]
    report = secrets_rotate()
    assert report.schemas[0] == "public" and {"alpha", "beta"} <= set(report.schemas)
    assert report.rotated["alpha.notifications_smtpsettings.password"] == 1
    assert report.rotated["beta.notifications_mailboxsettings.password"] == 1
    assert report.total_rotated == 2 and report.unreadable == ()
    assert _raw("beta", "notifications_mailboxsettings", imap.pk) != old_imap
    new_smtp = _raw("alpha", "notifications_smtpsettings", smtp.pk)
    assert new_smtp != old_smtp and Fernet(KEY_B.encode()).decrypt(new_smtp.encode()) == "smtp-α".encode()

    settings.SECRETS_ENCRYPTION_KEYS = [KEY_B]
    with schema_context("alpha"):
        assert SmtpSettings.objects.get().password == "smtp-α"
    with schema_context("beta"):
        assert MailboxSettings.objects.get().password == "imap-β"

    again = secrets_rotate()
    assert again.total_rotated == 0 and again.current["beta.notifications_mailboxsettings.password"] == 1
    assert _raw("alpha", "notifications_smtpsettings", smtp.pk) == new_smtp  # nothing rewritten


def test_a_value_of_an_unknown_key_is_unreadable_with_a_clear_message(stored, settings):
    smtp, imap = stored
    token = Fernet(KEY_C.encode()).encrypt(b"fremd").decode()
    with connection.cursor() as cursor:
        cursor.execute('UPDATE "beta".notifications_mailboxsettings SET password = %s WHERE id = %s', [token, imap.pk])
    settings.SECRETS_ENCRYPTION_KEYS = [KEY_B, KEY_A]

    with pytest.raises(SecretUnreadable, match="cannot be decrypted with the configured keys"):
        decrypt_secret(token)
    with schema_context("beta"), pytest.raises(SecretUnreadable):
        MailboxSettings.objects.get()

    with pytest.raises(SecretUnreadable) as error:
        secrets_rotate()
    message = str(error.value)
    assert f"beta.notifications_mailboxsettings.password id={imap.pk}" in message
    assert "Keep the key they were encrypted with" in message
    # Everything readable was rotated all the same; the unreadable value is untouched.
    smtp_token = _raw("alpha", "notifications_smtpsettings", smtp.pk)
    assert Fernet(KEY_B.encode()).decrypt(smtp_token.encode()) == "smtp-α".encode()
    assert _raw("beta", "notifications_mailboxsettings", imap.pk) == token


def test_command_reports_and_fails_clearly(stored, settings):
    settings.SECRETS_ENCRYPTION_KEYS = [KEY_B, KEY_A]
    out = StringIO()
    call_command("rotate_secrets", stdout=out)
    assert "alpha.notifications_smtpsettings.password: 1 re-encrypted, 0 already current" in out.getvalue()
    assert "2 secret(s) re-encrypted with the newest key" in out.getvalue()

    settings.SECRETS_ENCRYPTION_KEYS = [KEY_C]
    with pytest.raises(CommandError, match="2 stored secret"):
        call_command("rotate_secrets", stdout=StringIO())
