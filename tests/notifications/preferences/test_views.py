from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import Delivery, MailboxSettings, SavedSearch, SmtpSettings, UserPreference
from sources.models import ApprovedForwarder
from tests.fixtures.network import free_loopback_port

SMTP_FORM = {
    "host": "127.0.0.1",
    "port": "2525",
    "tls_mode": "starttls",
    "username": "radar",
    "password": "Sehr-Geheim-4711",
    "from_email": "radar@alpha.example",
}
MAILBOX_FORM = {
    "host": "127.0.0.1",
    "port": "993",
    "use_ssl": "on",
    "username": "ausschreibungen@alpha.example",
    "password": "Postfach-Geheim-0815",
    "folder": "INBOX",
    "is_active": "on",
}


def _user(test_tenant, email):
    with schema_context(test_tenant.schema_name):
        return get_user_model().objects.get(username=email)


def _raw(table: str, column: str, schema: str) -> str:
    with schema_context(schema), connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table}")  # noqa: S608 - test constants
        return cursor.fetchone()[0]


# --- personal settings -------------------------------------------------------------------------------


def test_index_shows_admin_sections_only_to_admins(alpha_client, alpha_admin_client):
    member_page = alpha_client.get("/einstellungen/").content.decode()
    admin_page = alpha_admin_client.get("/einstellungen/").content.decode()
    assert "/einstellungen/benachrichtigungen/" in member_page and "/einstellungen/benachrichtigungen/" in admin_page
    assert "/einstellungen/smtp/" not in member_page
    for path in ("smtp/", "postfach/", "zustellungen/", "webhooks/"):
        assert f"/einstellungen/{path}" in admin_page


def test_preferences_are_created_with_defaults_and_saved(alpha, alpha_client):
    assert alpha_client.get("/einstellungen/benachrichtigungen/").status_code == 200
    with schema_context(alpha.schema_name):
        preference = UserPreference.objects.get(user__username=alpha.member_email)
        assert (preference.language, preference.digest_interval, preference.digest_hour) == ("de", "daily", 7)

    response = alpha_client.post(
        "/einstellungen/benachrichtigungen/", {"language": "en", "digest_interval": "weekly", "digest_hour": "18"}
    )
    assert response.status_code == 302
    assert response.cookies["django_language"].value == "en"
    with schema_context(alpha.schema_name):
        preference.refresh_from_db()
        assert (preference.language, preference.digest_interval, preference.digest_hour) == ("en", "weekly", 18)

    off = alpha_client.post(
        "/einstellungen/benachrichtigungen/", {"language": "de", "digest_interval": "off", "digest_hour": "0"}
    )
    assert off.status_code == 302
    with schema_context(alpha.schema_name):
        preference.refresh_from_db()
        assert (preference.digest_interval, preference.digest_hour) == ("off", 0)


@pytest.mark.parametrize(
    "data",
    [
        {"language": "de", "digest_interval": "daily", "digest_hour": "24"},
        {"language": "de", "digest_interval": "hourly", "digest_hour": "7"},
        {"language": "fr", "digest_interval": "daily", "digest_hour": "7"},
        {"language": "de", "digest_interval": "daily", "digest_hour": "-1"},
    ],
)
def test_invalid_preferences_are_refused(alpha, alpha_client, data):
    response = alpha_client.post("/einstellungen/benachrichtigungen/", data)
    assert response.status_code == 400
    with schema_context(alpha.schema_name):
        preference = UserPreference.objects.get(user__username=alpha.member_email)
        assert (preference.language, preference.digest_interval, preference.digest_hour) == ("de", "daily", 7)


def test_instant_alerts_switch_only_own_profiles(alpha, alpha_client):
    member, admin = _user(alpha, alpha.member_email), _user(alpha, alpha.admin_email)
    with schema_context(alpha.schema_name):
        now = timezone.now()
        first = SavedSearch.objects.create(owner=member, name="Tiefbau", filters={}, active_since=now)
        second = SavedSearch.objects.create(
            owner=member, name="Hochbau", filters={}, active_since=now, instant_alert=True
        )
        foreign = SavedSearch.objects.create(owner=admin, name="Fremd", filters={}, active_since=now, is_shared=True)

    page = alpha_client.get("/einstellungen/benachrichtigungen/").content.decode()
    assert "Tiefbau" in page and "Hochbau" in page and "Fremd" not in page

    response = alpha_client.post("/einstellungen/benachrichtigungen/sofortmeldungen/", {"saved_searches": [first.pk]})
    assert response.status_code == 302
    with schema_context(alpha.schema_name):
        states = dict(SavedSearch.objects.values_list("name", "instant_alert"))
    assert states == {"Tiefbau": True, "Hochbau": False, "Fremd": False}

    refused = alpha_client.post(
        "/einstellungen/benachrichtigungen/sofortmeldungen/", {"saved_searches": [first.pk, foreign.pk]}
    )
    assert refused.status_code == 400
    with schema_context(alpha.schema_name):
        assert SavedSearch.objects.get(pk=foreign.pk).instant_alert is False
        assert SavedSearch.objects.get(pk=first.pk).instant_alert is True
        assert SavedSearch.objects.get(pk=second.pk).instant_alert is False  # the refused request changed nothing


# --- SMTP ----------------------------------------------------------------------------------------------


def test_smtp_password_is_write_only_encrypted_and_kept_when_empty(alpha, alpha_admin_client):
    response = alpha_admin_client.post("/einstellungen/smtp/", SMTP_FORM)
    assert response.status_code == 302

    raw = _raw("notifications_smtpsettings", "password", alpha.schema_name)
    assert raw and "Sehr-Geheim-4711" not in raw
    with schema_context(alpha.schema_name):
        stored = SmtpSettings.objects.get()
        assert (stored.host, stored.port, stored.tls_mode, stored.password) == (
            "127.0.0.1",
            2525,
            "starttls",
            SMTP_FORM["password"],
        )

    page = alpha_admin_client.get("/einstellungen/smtp/").content.decode()
    assert "Sehr-Geheim-4711" not in page and raw not in page
    assert "Ein Passwort ist gespeichert" in page
    assert 'value="127.0.0.1"' in page

    kept = alpha_admin_client.post("/einstellungen/smtp/", {**SMTP_FORM, "password": "", "port": "587"})
    assert kept.status_code == 302
    with schema_context(alpha.schema_name):
        stored = SmtpSettings.objects.get()
        assert (stored.port, stored.password) == (587, "Sehr-Geheim-4711")

    cleared = alpha_admin_client.post("/einstellungen/smtp/", {**SMTP_FORM, "password": "", "clear_password": "on"})
    assert cleared.status_code == 302
    with schema_context(alpha.schema_name):
        assert SmtpSettings.objects.get().password == ""
        assert SmtpSettings.objects.count() == 1


def test_smtp_form_errors_do_not_echo_the_password(alpha, alpha_admin_client):
    response = alpha_admin_client.post("/einstellungen/smtp/", {**SMTP_FORM, "port": "70000", "from_email": "kaputt"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Sehr-Geheim-4711" not in page
    with schema_context(alpha.schema_name):
        assert not SmtpSettings.objects.exists()


def test_a_login_over_an_unencrypted_connection_is_refused(alpha, alpha_admin_client):
    response = alpha_admin_client.post("/einstellungen/smtp/", {**SMTP_FORM, "tls_mode": "none"})
    assert response.status_code == 400 and "verschlüsselte Verbindung" in response.content.decode()
    with schema_context(alpha.schema_name):
        assert not SmtpSettings.objects.exists()
    without_login = {**SMTP_FORM, "tls_mode": "none", "username": "", "password": ""}
    assert alpha_admin_client.post("/einstellungen/smtp/", without_login).status_code == 302  # a relay without login


@override_settings(MAIL_ALLOW_LOOPBACK=False)
@pytest.mark.parametrize("host", ["127.0.0.1", "10.0.0.25", "169.254.169.254", "localhost", "bad host!"])
def test_smtp_servers_in_internal_networks_are_refused_in_production(alpha, alpha_admin_client, host):
    response = alpha_admin_client.post("/einstellungen/smtp/", {**SMTP_FORM, "host": host})
    assert response.status_code == 400
    with schema_context(alpha.schema_name):
        assert not SmtpSettings.objects.exists()


def test_test_mail_without_settings_asks_to_save_first(alpha_admin_client):
    response = alpha_admin_client.post("/einstellungen/smtp/testmail/", follow=True)
    assert "zuerst die SMTP-Einstellungen speichern" in response.content.decode()


# --- mailbox -----------------------------------------------------------------------------------------------


def test_mailbox_check_button_without_settings_asks_to_save_first(alpha_admin_client):
    page = alpha_admin_client.post("/einstellungen/postfach/pruefen/", follow=True).content.decode()
    assert "zuerst das Postfach speichern" in page


def test_mailbox_check_button_reports_a_closed_port(alpha, alpha_admin_client):
    closed_port = free_loopback_port()
    with schema_context(alpha.schema_name):
        MailboxSettings.objects.create(host="127.0.0.1", port=closed_port, username="alerts", password="geheim")
    page = alpha_admin_client.post("/einstellungen/postfach/pruefen/", follow=True).content.decode()
    assert "Verbindung fehlgeschlagen" in page and f"127.0.0.1:{closed_port}" in page
    assert "Verbindung prüfen" in page  # the button is offered once a mailbox is saved


@override_settings(SOURCES_ALLOW_LOOPBACK=False)
def test_mailbox_check_button_refuses_internal_addresses_in_production(alpha, alpha_admin_client):
    with schema_context(alpha.schema_name):
        MailboxSettings.objects.create(host="127.0.0.1", port=993, username="alerts", password="geheim")
    page = alpha_admin_client.post("/einstellungen/postfach/pruefen/", follow=True).content.decode()
    assert "Verbindung fehlgeschlagen" in page


def test_mailbox_needs_a_password_first_then_keeps_it(alpha, alpha_admin_client):
    missing = alpha_admin_client.post("/einstellungen/postfach/", {**MAILBOX_FORM, "password": ""})
    assert missing.status_code == 400
    assert "Passwort des Postfachs" in missing.content.decode()

    assert alpha_admin_client.post("/einstellungen/postfach/", MAILBOX_FORM).status_code == 302
    raw = _raw("notifications_mailboxsettings", "password", alpha.schema_name)
    assert "Postfach-Geheim-0815" not in raw

    page = alpha_admin_client.get("/einstellungen/postfach/").content.decode()
    assert "Postfach-Geheim-0815" not in page and raw not in page
    assert "ausschreibungen@alpha.example" in page

    changed = {**MAILBOX_FORM, "password": "", "folder": "Portale/Meldungen", "is_active": ""}
    assert alpha_admin_client.post("/einstellungen/postfach/", changed).status_code == 302
    with schema_context(alpha.schema_name):
        mailbox = MailboxSettings.objects.get()
        assert (mailbox.folder, mailbox.is_active, mailbox.password) == (
            "Portale/Meldungen",
            False,
            "Postfach-Geheim-0815",
        )


def test_mailbox_trust_settings_are_saved_and_forwarding_rules_are_picked_from_approved_senders(
    alpha, alpha_admin_client
):
    connection.set_schema_to_public()
    ApprovedForwarder.objects.create(
        family="netserver", sender_domain="tender24.de", approved_by="operator@example.org", approved_at=timezone.now()
    )
    page = alpha_admin_client.get("/einstellungen/postfach/").content.decode()
    assert 'value="netserver:tender24.de"' in page and "tender24.de (NetServer (Vergabe@Net))" in page
    trusted = {**MAILBOX_FORM, "authserv_id": "mx.alpha-bau.example", "forwarders": ["netserver:tender24.de"]}
    assert alpha_admin_client.post("/einstellungen/postfach/", trusted).status_code == 302
    with schema_context(alpha.schema_name):
        mailbox = MailboxSettings.objects.get()
        assert (mailbox.authserv_id, mailbox.forwarders) == ("mx.alpha-bau.example", ["netserver:tender24.de"])

    # A rule waives sender authentication: only what an operator approved can be picked, nothing typed.
    typed = alpha_admin_client.post("/einstellungen/postfach/", {**trusted, "forwarders": ["netserver:gmail.com"]})
    assert typed.status_code == 400
    header_injection = alpha_admin_client.post("/einstellungen/postfach/", {**trusted, "authserv_id": "mx; dkim=pass"})
    assert header_injection.status_code == 400
    with schema_context(alpha.schema_name):
        assert MailboxSettings.objects.get().forwarders == ["netserver:tender24.de"]


def test_mailbox_folder_with_control_characters_is_refused(alpha, alpha_admin_client):
    response = alpha_admin_client.post("/einstellungen/postfach/", {**MAILBOX_FORM, "folder": "INBOX\r\nA1 LOGOUT"})
    assert response.status_code == 400


# --- delivery log --------------------------------------------------------------------------------------------


def _deliveries(test_tenant, count: int, *, status: str, error: str = "", start: int = 0):
    with schema_context(test_tenant.schema_name):
        user = get_user_model().objects.get(username=test_tenant.member_email)
        # Shared: the admin's log shows subjects of shared profiles (a private one's are hidden, tests/security).
        search = SavedSearch.objects.create(
            owner=user, name=f"Profil {status}", filters={}, active_since=timezone.now(), is_shared=True
        )
        now = timezone.now()
        Delivery.objects.bulk_create(
            Delivery(
                kind="instant",
                user=user,
                saved_search=search,
                dedupe_key=f"{status}-{start + i}",
                recipient=user.email,
                subject=f"Neue Ausschreibung {status} {start + i}",
                text_body="…",
                status=status,
                last_error=error,
                next_attempt_at=now,
                sent_at=now if status == "sent" else None,
            )
            for i in range(count)
        )


def test_delivery_log_filters_by_status_and_shows_reasons(alpha, alpha_admin_client):
    _deliveries(alpha, 3, status="sent")
    _deliveries(alpha, 2, status="failed", error="550 Postfach <voll>")
    _deliveries(alpha, 1, status="uncertain", error="Verbindung abgebrochen")

    with schema_context(alpha.schema_name):
        Delivery.objects.filter(status="uncertain").update(attempts=1)
    everything = alpha_admin_client.get("/einstellungen/zustellungen/").content.decode()
    assert everything.count('data-status="') == 6
    # The attempts say what they count: on a phone the cells stack without their column headings.
    assert (everything.count("<td>0 Versuche</td>"), everything.count("<td>1 Versuch</td>")) == (5, 1)

    failed = alpha_admin_client.get("/einstellungen/zustellungen/", {"status": "failed"}).content.decode()
    assert failed.count('data-status="failed"') == 2 and 'data-status="sent"' not in failed
    assert "550 Postfach &lt;voll&gt;" in failed

    uncertain = alpha_admin_client.get("/einstellungen/zustellungen/", {"status": "uncertain"}).content.decode()
    assert uncertain.count('data-status="uncertain"') == 1 and "Verbindung abgebrochen" in uncertain

    bogus = alpha_admin_client.get("/einstellungen/zustellungen/", {"status": "'; DROP TABLE x; --"})
    assert bogus.status_code == 200 and bogus.content.decode().count('data-status="') == 6


def test_delivery_log_paginates_newest_first(alpha, alpha_admin_client):
    _deliveries(alpha, 55, status="sent")
    with schema_context(alpha.schema_name):
        # The first row written becomes the newest: it must lead page 1, and "sent 1" (now oldest) ends page 2.
        Delivery.objects.filter(dedupe_key="sent-0").update(created_at=timezone.now() + timedelta(minutes=1))
    first_page = alpha_admin_client.get("/einstellungen/zustellungen/", {"status": "sent"}).content.decode()
    assert first_page.count('data-status="sent"') == 50
    assert first_page.index("Neue Ausschreibung sent 0<") < first_page.index("Neue Ausschreibung sent 54<")
    assert "Neue Ausschreibung sent 1<" not in first_page
    assert "seite=2" in first_page and "status=sent" in first_page
    second = alpha_admin_client.get("/einstellungen/zustellungen/", {"status": "sent", "seite": "2"}).content.decode()
    assert second.count('data-status="sent"') == 5
    assert second.rstrip().rindex("Neue Ausschreibung sent 1<") > second.index("Neue Ausschreibung sent 5<")
    assert alpha_admin_client.get("/einstellungen/zustellungen/", {"seite": "999"}).status_code == 200


def test_delivery_log_query_count_does_not_grow_with_rows(alpha, alpha_admin_client):
    _deliveries(alpha, 2, status="sent")
    with CaptureQueriesContext(connection) as few:
        alpha_admin_client.get("/einstellungen/zustellungen/")
    _deliveries(alpha, 40, status="failed", error="x", start=100)
    with CaptureQueriesContext(connection) as many:
        alpha_admin_client.get("/einstellungen/zustellungen/")
    assert len(many.captured_queries) == len(few.captured_queries)


def test_delivery_log_shows_only_the_own_tenants_rows(alpha, beta, beta_admin_client):
    _deliveries(alpha, 2, status="sent")
    page = beta_admin_client.get("/einstellungen/zustellungen/").content.decode()
    assert 'data-status="' not in page and "member@alpha.example" not in page


# --- permissions ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/einstellungen/smtp/"),
        ("post", "/einstellungen/smtp/"),
        ("post", "/einstellungen/smtp/testmail/"),
        ("get", "/einstellungen/postfach/"),
        ("post", "/einstellungen/postfach/"),
        ("post", "/einstellungen/postfach/pruefen/"),
        ("get", "/einstellungen/zustellungen/"),
    ],
)
def test_members_get_403_on_admin_pages(alpha, alpha_client, method, path):
    response = getattr(alpha_client, method)(path, SMTP_FORM if method == "post" else None)
    assert response.status_code == 403
    with schema_context(alpha.schema_name):
        assert not SmtpSettings.objects.exists() and not MailboxSettings.objects.exists()


def test_settings_of_one_tenant_are_invisible_to_another(alpha, alpha_admin_client, beta_admin_client):
    assert alpha_admin_client.post("/einstellungen/smtp/", {**SMTP_FORM, "host": "127.0.0.2"}).status_code == 302
    page = beta_admin_client.get("/einstellungen/smtp/").content.decode()
    assert "127.0.0.2" not in page and "Ein Passwort ist gespeichert" not in page


@override_settings(MAIL_ALLOW_LOOPBACK=False, SOURCES_ALLOW_LOOPBACK=True)
def test_loopback_smtp_needs_the_explicit_mail_setting_not_the_sources_one(alpha, alpha_admin_client):
    response = alpha_admin_client.post("/einstellungen/smtp/", {**SMTP_FORM, "host": "127.0.0.1"})
    assert response.status_code == 400


def test_only_the_local_settings_allow_a_loopback_mail_server():
    from config.settings import base, local

    assert base.MAIL_ALLOW_LOOPBACK is False
    assert local.MAIL_ALLOW_LOOPBACK is True


def test_the_mailbox_page_says_when_no_forwarding_sender_is_approved(alpha_admin_client):
    body = alpha_admin_client.get("/einstellungen/postfach/").content.decode()
    assert "keinen Weiterleitungsabsender freigegeben" in body
    assert "ruft die genannten Ausschreibungen beim Portal ab" in body
