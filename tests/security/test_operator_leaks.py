"""F10 replays: secrets and one-time links stay out of cookies, terminals and attacker-chosen addresses.

- The password-reset link is built from the tenant's configured domain, never the request's Host port.
- "Mandant anlegen" shows the generated admin password in its own answer, never in the messages cookie.
- A webhook switched back on (its creator left and came back) signs with a new secret, shown once.
- The language cookie is Secure under production settings, HttpOnly and SameSite everywhere.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import Tenant
from accounts.services import user_reactivate
from notifications.models import SavedSearch, SmtpSettings, Webhook
from notifications.team.services import team_member_deactivate
from notifications.webhooks.services import webhook_create
from tests.fixtures.tenants import PUBLIC_HOST, operator_sign_in


def test_the_reset_link_ignores_the_port_and_scheme_of_the_request(
    celery_worker, committed_tenants, smtp_server, settings
):
    settings.PORTAL_URL_FORMAT = "https://{domain}"
    alpha, _beta = committed_tenants
    connection.set_tenant(alpha.tenant)
    SmtpSettings.objects.create(
        host=smtp_server.host, port=smtp_server.port, tls_mode="none", from_email="radar@alpha-bau.example"
    )
    connection.set_schema_to_public()
    try:
        # The attacker's request: same tenant host name, a port (and plain http) of their choosing.
        response = Client(HTTP_HOST=f"{alpha.host}:8443").post(
            "/konto/passwort-vergessen/", {"email": alpha.member_email}
        )
        assert response.status_code == 302
        deadline = time.monotonic() + 20
        while not smtp_server.messages and time.monotonic() < deadline:
            time.sleep(0.05)
        [message] = smtp_server.messages
        body = message.get_content()
        assert re.search(rf"https://{re.escape(alpha.host)}/konto/passwort-neu/\S+/", body)
        assert ":8443" not in body and "http://" not in body
    finally:
        from django.core.cache import cache

        cache.clear()


@pytest.mark.usefixtures("committed")
def test_creating_a_tenant_in_the_console_shows_the_password_once_and_never_in_a_cookie():
    client = operator_sign_in(Client(HTTP_HOST=PUBLIC_HOST))
    response = client.post(
        "/admin/accounts/tenant/add/",
        {
            "name": "Delta GmbH",
            "schema_name": "delta",
            "domain": "delta.localhost",
            "admin_email": "chefin@delta.example",
        },
    )
    try:
        assert response.status_code == 200
        page = response.content.decode()
        password = re.search(r"<code>([^<]+)</code>", page).group(1)
        with schema_context("delta"):
            assert get_user_model().objects.get(username="chefin@delta.example").check_password(password)
        assert "no-store" in response["Cache-Control"]
        cookies = "; ".join(f"{name}={morsel.value}" for name, morsel in client.cookies.items())
        assert password not in cookies and "messages" not in response.cookies
        # The next page shows no trace of it either (nothing was queued for a later request).
        assert password not in client.get("/admin/accounts/tenant/").content.decode()
    finally:
        connection.set_schema_to_public()
        Tenant.objects.filter(schema_name="delta").first().delete(force_drop=True)


@pytest.mark.django_db
def test_a_returning_persons_webhook_comes_back_only_with_a_new_secret(alpha, alpha_admin_client):
    with schema_context(alpha.schema_name):
        member = get_user_model().objects.get(username=alpha.member_email)
        own = SavedSearch.objects.create(owner=member, name="Meins", filters={}, active_since=timezone.now())
        created = webhook_create(saved_search=own, url="http://127.0.0.1:9/theirs", created_by=member)
        team_member_deactivate(user_id=member.pk)
        user_reactivate(user_id=member.pk)  # came back; knows the old secret
    old_secret = created.secret

    response = alpha_admin_client.post(f"/einstellungen/webhooks/{created.webhook.pk}/aktiv/", {"is_active": "1"})

    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    shown = re.search(r'data-testid="webhook-secret">([^<]+)<', response.content.decode()).group(1)
    with schema_context(alpha.schema_name):
        webhook = Webhook.objects.get(pk=created.webhook.pk)
        assert webhook.is_active
        assert webhook.secret == shown != old_secret
    # Shown once: the detail page never shows it again.
    assert shown not in alpha_admin_client.get(f"/einstellungen/webhooks/{created.webhook.pk}/").content.decode()


@pytest.mark.django_db
def test_switching_on_a_webhook_that_is_on_keeps_its_secret(alpha, alpha_admin_client):
    with schema_context(alpha.schema_name):
        admin = get_user_model().objects.get(username=alpha.admin_email)
        own = SavedSearch.objects.create(owner=admin, name="Aktiv", filters={}, active_since=timezone.now())
        created = webhook_create(saved_search=own, url="http://127.0.0.1:9/on", created_by=admin)
    response = alpha_admin_client.post(f"/einstellungen/webhooks/{created.webhook.pk}/aktiv/", {"is_active": "1"})
    assert response.status_code == 302
    with schema_context(alpha.schema_name):
        assert Webhook.objects.get(pk=created.webhook.pk).secret == created.secret


@pytest.mark.django_db
def test_the_language_cookie_carries_the_configured_flags(alpha, alpha_client, settings):
    settings.LANGUAGE_COOKIE_SECURE = True  # as production sets it (checked below)
    for response in (
        alpha_client.post("/i18n/setlang/", {"language": "en", "next": "/"}),
        alpha_client.post(
            "/einstellungen/benachrichtigungen/", {"language": "en", "digest_interval": "daily", "digest_hour": "7"}
        ),
    ):
        cookie = response.cookies[django_settings.LANGUAGE_COOKIE_NAME]
        assert cookie["secure"] is True and cookie["httponly"] is True and cookie["samesite"] == "Lax"


def test_production_settings_make_the_language_cookie_secure():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "k3v9-" + "x7Qp2mZr8LwT4nYb6Hc1Jd5Fg0Sa9Ue3Vi7Ok2Pl6Rm" * 2,
        "DJANGO_ALLOWED_HOSTS": "radar.example,.radar.example",
        "DATABASE_URL": "postgres://radar:secret@db.internal:5432/tender_radar",
        "REDIS_URL": "redis://cache.internal:6379/0",
        "SECRETS_ENCRYPTION_KEYS": "MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA=",
    }
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.LANGUAGE_COOKIE_SECURE, s.LANGUAGE_COOKIE_HTTPONLY, s.LANGUAGE_COOKIE_SAMESITE)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=django_settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.split() == ["True", "True", "Lax"], result.stderr
