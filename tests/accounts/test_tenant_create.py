"""manage.py tenant_create: the first admin gets a one-time link by mail; no password or link is printed."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context, schema_exists

from accounts.models import Tenant
from config.email_url import email_config
from tests.fixtures.network import free_loopback_port

COMPANY = {
    "name": "Gamma Facility GmbH",
    "schema": "gamma",
    "domain": "gamma.localhost",
    "admin_email": "Chefin@Gamma.example",
}
LINK = re.compile(r"https://gamma\.localhost/konto/einladung/\S+/")


def _email_url(settings, url: str) -> None:
    for name, value in email_config(url).settings().items():
        setattr(settings, name, value)


def _create(**options) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("tenant_create", stdout=out, stderr=err, **COMPANY, **options)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def gone_afterwards(committed):
    yield
    connection.set_schema_to_public()
    for tenant in Tenant.objects.filter(schema_name="gamma"):
        tenant.delete(force_drop=True)


def test_the_admin_gets_a_link_by_mail_that_sets_the_password_once(settings, smtp_server, gone_afterwards):
    settings.PORTAL_URL_FORMAT = "https://{domain}"
    _email_url(settings, f"smtp://{smtp_server.host}:{smtp_server.port}?starttls=off")
    out, err = _create()
    assert "ready at https://gamma.localhost/" in out and "not shown here" in out
    [message] = smtp_server.messages
    assert message["To"] == "chefin@gamma.example" and "Gamma Facility GmbH" in message["Subject"]
    link = LINK.search(message.get_content()).group(0)
    assert link not in out + err
    with schema_context("gamma"):
        assert not get_user_model().objects.get(username="chefin@gamma.example").has_usable_password()

    client = Client(HTTP_HOST="gamma.localhost")
    form_page = client.get(link.removeprefix("https://gamma.localhost"), follow=True)
    assert form_page.status_code == 200 and "new_password1" in form_page.content.decode()
    response = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "Kr3ftig-genug-2026", "new_password2": "Kr3ftig-genug-2026"},
    )
    assert response.status_code == 302
    signed_in = client.post("/konto/anmelden/", {"username": "chefin@gamma.example", "password": "Kr3ftig-genug-2026"})
    assert signed_in.status_code == 302


def test_show_secret_prints_the_link_and_sends_nothing(settings, gone_afterwards):
    settings.PORTAL_URL_FORMAT = "https://{domain}"
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    out, _err = _create(show_secret=True)
    assert LINK.search(out) and "shown because of --show-secret" in out
    assert mail.outbox == []


def test_a_mail_that_cannot_be_sent_fails_the_command_and_leaves_no_company(settings, gone_afterwards):
    _email_url(settings, f"smtp://127.0.0.1:{free_loopback_port()}?starttls=off&timeout=5")  # nothing listens
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="removed again") as failed:
        call_command("tenant_create", stdout=out, stderr=err, **COMPANY)
    assert "ConnectionRefusedError" in str(failed.value)
    assert "/konto/einladung/" not in out.getvalue() + err.getvalue() + str(failed.value)
    assert not Tenant.objects.filter(schema_name="gamma").exists() and not schema_exists("gamma")


@pytest.mark.django_db
def test_the_console_backend_would_print_the_link_so_nothing_is_created(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    with pytest.raises(CommandError, match="console://"):
        _create()
    assert not Tenant.objects.filter(schema_name="gamma").exists()


def test_a_given_password_is_set_and_never_printed(settings, gone_afterwards):
    out, err = _create(admin_password="Kr3ftig-genug-2026")
    assert "Kr3ftig-genug-2026" not in out + err and "with the password given" in out
    with schema_context("gamma"):
        assert get_user_model().objects.get(username="chefin@gamma.example").check_password("Kr3ftig-genug-2026")
