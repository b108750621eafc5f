"""Passwort vergessen: the link goes out through the tenant's own mail server and sets a new password once."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context

from notifications.alerts.sending import TemporarySendError
from notifications.models import SmtpSettings
from notifications.password_reset.services import password_reset_mail_send

NEW_PASSWORD = "Neues-Passwort-2026!"


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _tenant_smtp(test_tenant, smtp_server) -> None:
    with schema_context(test_tenant.schema_name):
        SmtpSettings.objects.create(
            host=smtp_server.host, port=smtp_server.port, tls_mode="none", from_email="radar@alpha-bau.example"
        )


def _link(message) -> str:
    return re.search(r"http://alpha\.localhost(/konto/passwort-neu/\S+/)", message.get_content()).group(1)


def test_the_link_is_mailed_through_the_tenants_server_and_sets_a_new_password_once(alpha, smtp_server):
    _tenant_smtp(alpha, smtp_server)
    with schema_context(alpha.schema_name):
        member = get_user_model().objects.get(username=alpha.member_email)
        assert password_reset_mail_send(user_id=member.pk, origin="http://alpha.localhost")

    [message] = smtp_server.messages
    assert message["To"] == alpha.member_email
    assert message["From"] == "radar@alpha-bau.example"
    assert "Passwort zurücksetzen" in message["Subject"]
    link = _link(message)

    visitor = Client(HTTP_HOST=alpha.host)
    form_page = visitor.get(link, follow=True)
    set_url = form_page.redirect_chain[-1][0]
    done = visitor.post(set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    signed_in = visitor.post("/konto/anmelden/", {"username": alpha.member_email, "password": NEW_PASSWORD})
    assert signed_in.status_code == 302
    assert "ungültig" in Client(HTTP_HOST=alpha.host).get(link, follow=True).content.decode()


def test_without_a_mail_route_the_send_fails_for_a_retry(alpha):
    with schema_context(alpha.schema_name):
        member = get_user_model().objects.get(username=alpha.member_email)
        with pytest.raises(TemporarySendError):
            password_reset_mail_send(user_id=member.pk, origin="http://alpha.localhost")


def test_the_answer_is_the_same_for_known_and_unknown_addresses(alpha, django_capture_on_commit_callbacks):
    client = Client(HTTP_HOST=alpha.host)
    with django_capture_on_commit_callbacks() as known_sends:
        known = client.post("/konto/passwort-vergessen/", {"email": alpha.member_email})
    with django_capture_on_commit_callbacks() as unknown_sends:
        unknown = client.post("/konto/passwort-vergessen/", {"email": "niemand@alpha.example"})
    with django_capture_on_commit_callbacks() as other_tenant_sends:
        client.post("/konto/passwort-vergessen/", {"email": "member@beta.example"})
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"] == "/konto/passwort-vergessen/gesendet/"
    assert (len(known_sends), len(unknown_sends), len(other_tenant_sends)) == (1, 0, 0)


def test_repeated_requests_send_one_mail_per_five_minutes(alpha, django_capture_on_commit_callbacks):
    client = Client(HTTP_HOST=alpha.host)
    with django_capture_on_commit_callbacks() as sends:
        for _ in range(5):
            client.post("/konto/passwort-vergessen/", {"email": alpha.member_email})
    assert len(sends) == 1


def test_sign_in_page_offers_the_reset(alpha):
    page = Client(HTTP_HOST=alpha.host).get("/konto/anmelden/").content.decode()
    assert 'href="/konto/passwort-vergessen/"' in page


def test_the_request_travels_through_a_worker_to_the_tenants_server(celery_worker, committed_tenants, smtp_server):
    alpha, _beta = committed_tenants
    connection.set_tenant(alpha.tenant)
    SmtpSettings.objects.create(
        host=smtp_server.host, port=smtp_server.port, tls_mode="none", from_email="radar@alpha-bau.example"
    )
    connection.set_schema_to_public()

    response = Client(HTTP_HOST=alpha.host).post("/konto/passwort-vergessen/", {"email": alpha.member_email})

    assert response.status_code == 302
    deadline = time.monotonic() + 20
    while not smtp_server.messages and time.monotonic() < deadline:
        time.sleep(0.05)
    [message] = smtp_server.messages
    assert message["To"] == alpha.member_email
    assert "/konto/passwort-neu/" in message.get_content()


def test_a_reset_link_of_another_tenant_is_invalid_here(alpha, beta):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    with schema_context(beta.schema_name):
        beta_member = get_user_model().objects.get(username=beta.member_email)
        uid = urlsafe_base64_encode(force_bytes(beta_member.pk))
        token = default_token_generator.make_token(beta_member)
    link = f"/konto/passwort-neu/{uid}/{token}/"
    assert "ungültig" in Client(HTTP_HOST=alpha.host).get(link, follow=True).content.decode()
    assert "ungültig" not in Client(HTTP_HOST=beta.host).get(link, follow=True).content.decode()
