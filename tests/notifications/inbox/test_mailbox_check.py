"""Reading alert mails from each tenant's mailbox: a real Dovecot, real tenants, the real run of the mail source."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.secrets import encrypt_secret
from notifications.inbox import services
from notifications.inbox.services import mailbox_check
from notifications.models import MailboxSettings
from sources.models import InboundMail, PortalPageRequest
from tenders.models import Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import eforms_record
from tests.fixtures.mail import RECEIVING_SERVER, as_received

MAIL = Path(__file__).resolve().parents[2] / "data" / "portals" / "mail"
FIXTURES = (
    "tender24_daily_alert_iso-8859-1_qp.eml",
    "dtvp_alert_html_only.eml",
    "dtad_suchprofilergebnisse.eml",
    "newsletter_not_an_alert.eml",
    "broken_mime.eml",
)
TENDER24_OID = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"
SENDER_DOMAINS = {FIXTURES[0]: "tender24.de", FIXTURES[1]: "dtvp.de", FIXTURES[2]: "dtad.de", FIXTURES[3]: "dtvp.de"}


def _received(name: str) -> bytes:
    """A fixture as the tenant's receiving server delivers it: DKIM verified for the portal's domain."""
    return as_received((MAIL / name).read_bytes(), dkim=SENDER_DOMAINS.get(name, ""))


def _mailbox(imap_server, username, *, tenant, use_ssl=True, password=None, host=None, **values):
    with schema_context(tenant.schema_name):
        values.setdefault("authserv_id", RECEIVING_SERVER)
        return MailboxSettings.objects.create(
            host=host or imap_server.host,
            port=imap_server.ssl_port if use_ssl else imap_server.port,
            use_ssl=use_ssl,
            username=username,
            password=imap_server.users[username] if password is None else password,
            **values,
        )


def _check(tenant, imap_server, **kwargs):
    with schema_context(tenant.schema_name):
        return mailbox_check(ssl_context=imap_server.ssl_context(), timeout=10, **kwargs)


def _state(tenant):
    with schema_context(tenant.schema_name):
        return MailboxSettings.objects.values("last_checked_at", "last_error").get()


def test_alert_mails_are_recorded_once_with_their_leads_and_write_no_tender(alpha, imap_server):
    notices_ingest(records=[eforms_record()], use_fingerprint=False)  # the tender24 mail names this tender
    user, _ = imap_server.add_user()
    for name in FIXTURES:
        imap_server.append(user, _received(name))
    _mailbox(imap_server, user, tenant=alpha.tenant)
    shared_before = (Tender.objects.count(), TenderSource.objects.count())

    outcome = _check(alpha.tenant, imap_server)

    assert outcome.error == ""
    assert (outcome.new_mails, outcome.parsed, outcome.unparsed, outcome.ignored) == (5, 3, 1, 1)
    assert outcome.leads == 3 + 3 + 2
    # A mail is a pointer: the shared tables are as they were; the portals' pages are requested instead.
    assert (Tender.objects.count(), TenderSource.objects.count()) == shared_before
    assert not TenderSource.objects.filter(source__in=("tender24", "dtvp", "mail")).exists()
    requests = PortalPageRequest.objects.filter(pk__in=outcome.page_requests)
    assert {(r.source.key, r.status) for r in requests} == {
        ("tender24", "pending"),
        ("vergabe-hessen", "pending"),
        ("dtvp", "pending"),
    }
    assert f"netserver:{TENDER24_OID}" in {r.portal_reference for r in requests}

    mails = {m.subject: m for m in InboundMail.objects.filter(tenant_schema="alpha")}
    assert len(mails) == 5
    tender24 = mails['Neue Veröffentlichungen zu Ihrem Suchprofil "Tiefbau Hessen"']
    assert (tender24.status, tender24.portal, tender24.notices_found) == ("parsed", "netserver", 3)
    assert len(tender24.held_notices) == 3  # the leads, for alpha alone
    assert tender24.message_id == "<20260915060012.4711.suchprofil@tender24.de>"
    assert "'siehe Vergabeunterlagen' is no date" in tender24.reason
    assert bytes(tender24.raw) == _received(FIXTURES[0])
    newsletter = mails["DTVP-Newsletter September 2026: Neues im Bietercockpit"]
    assert newsletter.status == "ignored" and "newsletter" in newsletter.reason
    (broken,) = [m for m in mails.values() if m.status == "unparsed"]
    assert broken.reason.startswith("broken MIME structure")
    assert broken.message_id.startswith("<sha256:") and broken.message_id.endswith("@no-message-id>")
    assert broken.received_at is not None  # the server's arrival time; the Date header is broken

    state = _state(alpha.tenant)
    assert state["last_error"] == "" and state["last_checked_at"] is not None
    # Checking never changes the user's mailbox.
    assert all(b"\\Seen" not in flags for flags in imap_server.flags(user))

    again = _check(alpha.tenant, imap_server)
    assert (again.error, again.new_mails, again.leads) == ("", 0, 0)
    assert InboundMail.objects.filter(tenant_schema="alpha").count() == 5


def test_new_mail_after_a_check_is_read_and_starttls_works(alpha, imap_server):
    user, _ = imap_server.add_user()
    imap_server.append(user, _received(FIXTURES[0]))
    _mailbox(imap_server, user, tenant=alpha.tenant, use_ssl=False)
    assert _check(alpha.tenant, imap_server).new_mails == 1
    imap_server.append(user, _received(FIXTURES[1]))
    second = _check(alpha.tenant, imap_server)
    assert (second.error, second.new_mails, second.parsed, second.leads) == ("", 1, 1, 3)


def test_one_message_in_the_mailbox_twice_is_read_and_counted_once(alpha, imap_server):
    user, _ = imap_server.add_user()
    for _ in range(2):  # delivered twice (or copied back from another folder): two UIDs, one Message-ID
        imap_server.append(user, _received(FIXTURES[1]))
    _mailbox(imap_server, user, tenant=alpha.tenant)
    outcome = _check(alpha.tenant, imap_server)
    assert (outcome.error, outcome.new_mails, outcome.parsed, outcome.leads) == ("", 1, 1, 3)
    assert InboundMail.objects.filter(tenant_schema="alpha").count() == 1


def test_broken_credentials_are_recorded_and_the_other_tenant_is_unaffected(alpha, beta, imap_server):
    alpha_user, _ = imap_server.add_user("alpha")
    beta_user, _ = imap_server.add_user("beta")
    for user in (alpha_user, beta_user):
        imap_server.append(user, _received(FIXTURES[1]))
    _mailbox(imap_server, alpha_user, tenant=alpha.tenant, password="falsch")
    _mailbox(imap_server, beta_user, tenant=beta.tenant)

    failed = _check(alpha.tenant, imap_server)
    assert failed.checked and failed.new_mails == 0
    assert failed.error.startswith(f"Anmeldung als {alpha_user!r} abgelehnt")
    assert _state(alpha.tenant) == {"last_checked_at": None, "last_error": failed.error}

    ok = _check(beta.tenant, imap_server)
    assert (ok.error, ok.parsed) == ("", 1)
    assert _state(beta.tenant)["last_error"] == ""
    assert list(InboundMail.objects.values_list("tenant_schema", flat=True)) == ["beta"]


def test_the_same_mail_in_two_tenants_is_processed_once_per_tenant(alpha, beta, imap_server):
    for tenant in (alpha.tenant, beta.tenant):
        user, _ = imap_server.add_user(tenant.schema_name)
        imap_server.append(user, _received(FIXTURES[2]))
        _mailbox(imap_server, user, tenant=tenant)
    assert _check(alpha.tenant, imap_server).leads == 2
    beta_outcome = _check(beta.tenant, imap_server)
    assert (beta_outcome.parsed, beta_outcome.leads) == (1, 2)  # each tenant keeps its own leads
    rows = InboundMail.objects.filter(message_id="<sp-77-20260915@dtad.de>")
    assert sorted(rows.values_list("tenant_schema", flat=True)) == ["alpha", "beta"]


def test_a_failed_check_keeps_the_last_successful_time(alpha, imap_server):
    user, _ = imap_server.add_user()
    mailbox = _mailbox(imap_server, user, tenant=alpha.tenant)
    _check(alpha.tenant, imap_server)
    first = _state(alpha.tenant)["last_checked_at"]
    with schema_context(alpha.schema_name):
        MailboxSettings.objects.filter(pk=mailbox.pk).update(port=imap_server.port)  # TLS expected, plain spoken
    outcome = _check(alpha.tenant, imap_server)
    assert outcome.error.startswith(f"TLS-Fehler bei {imap_server.host}:{imap_server.port}: ")  # not a refused port
    assert _state(alpha.tenant) == {"last_checked_at": first, "last_error": outcome.error}


def test_an_untrusted_certificate_is_refused(alpha, imap_server):
    user, _ = imap_server.add_user()
    _mailbox(imap_server, user, tenant=alpha.tenant)
    with schema_context(alpha.schema_name):
        outcome = mailbox_check(timeout=10)  # the system trust store does not know the test CA
    assert outcome.error.startswith(f"TLS-Fehler bei {imap_server.host}:{imap_server.ssl_port}")
    assert "certificate verify failed" in outcome.error


def test_private_and_loopback_hosts_are_refused_before_connecting(alpha, imap_server):
    user, _ = imap_server.add_user()
    _mailbox(imap_server, user, tenant=alpha.tenant, host="10.1.2.3")
    outcome = _check(alpha.tenant, imap_server)
    assert "nicht öffentliche Adresse (10.1.2.3, private)" in outcome.error
    with schema_context(alpha.schema_name):
        MailboxSettings.objects.update(host="127.0.0.1")
    with override_settings(SOURCES_ALLOW_LOOPBACK=False):
        outcome = _check(alpha.tenant, imap_server)
    assert "(127.0.0.1, loopback)" in outcome.error


def test_a_password_no_configured_key_can_read_is_a_clear_error(alpha, imap_server, settings):
    user, password = imap_server.add_user()
    mailbox = _mailbox(imap_server, user, tenant=alpha.tenant)
    other_key = "MTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTE="
    settings.SECRETS_ENCRYPTION_KEYS = [other_key]
    token = encrypt_secret(password)
    settings.SECRETS_ENCRYPTION_KEYS = ["MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA="]
    with connection.cursor() as cursor:
        cursor.execute(
            'UPDATE "alpha".notifications_mailboxsettings SET password = %s WHERE id = %s', [token, mailbox.pk]
        )
    outcome = _check(alpha.tenant, imap_server)
    assert outcome.error.startswith("Das gespeicherte Passwort kann mit den konfigurierten Schlüsseln nicht")


def test_mails_larger_than_the_limit_are_recorded_unread(alpha, imap_server, monkeypatch):
    monkeypatch.setattr(services, "MAX_MAIL_BYTES", 1024)
    user, _ = imap_server.add_user()
    imap_server.append(user, _received(FIXTURES[2]))
    _mailbox(imap_server, user, tenant=alpha.tenant)
    outcome = _check(alpha.tenant, imap_server)
    assert (outcome.unparsed, outcome.leads) == (1, 0)
    mail = InboundMail.objects.get(tenant_schema="alpha")
    assert mail.message_id == "<sp-77-20260915@dtad.de>"
    assert "larger than 1024 bytes" in mail.reason and len(bytes(mail.raw)) == 1024


def test_mails_older_than_the_window_are_not_read(alpha, imap_server):
    user, _ = imap_server.add_user()
    imap_server.append(user, _received(FIXTURES[0]), msg_time=timezone.now() - timedelta(days=40))
    imap_server.append(user, _received(FIXTURES[1]))
    _mailbox(imap_server, user, tenant=alpha.tenant)
    outcome = _check(alpha.tenant, imap_server)
    assert (outcome.new_mails, outcome.parsed) == (1, 1)


def test_no_active_mailbox_means_nothing_to_do_and_public_schema_is_refused(alpha, imap_server):
    user, _ = imap_server.add_user()
    _mailbox(imap_server, user, tenant=alpha.tenant, is_active=False)
    assert _check(alpha.tenant, imap_server).checked is False
    with pytest.raises(ValueError, match="runs in a tenant schema"):
        mailbox_check()
