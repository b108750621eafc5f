"""The SMTP test mail runs in the background (real worker, real SMTP server) and reports in German."""

from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.test import Client
from django_tenants.utils import schema_context

from notifications.alerts.sending import TemporarySendError
from notifications.models import SmtpSettings
from notifications.preferences.smtp_test import german_reason
from tests.fixtures.network import free_loopback_port


def _admin_client(alpha) -> Client:
    client = Client(HTTP_HOST=alpha.host)
    with schema_context(alpha.schema_name):
        client.force_login(get_user_model().objects.get(username=alpha.admin_email))
    return client


def _status_until_done(client: Client, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        page = client.get("/einstellungen/smtp/testmail/status/").content.decode()
        if "wird gesendet" not in page:
            return page
        time.sleep(0.1)
    raise AssertionError("the test mail never finished")


def _save_server(alpha, host: str, port: int) -> None:
    with schema_context(alpha.schema_name):
        SmtpSettings.objects.create(host=host, port=port, tls_mode="none", from_email="radar@alpha.example")


def test_test_mail_is_queued_and_its_success_shown(committed_tenants, celery_worker, smtp_server):
    alpha, _beta = committed_tenants
    _save_server(alpha, smtp_server.host, smtp_server.port)
    client = _admin_client(alpha)
    # The server holds the mail until the page is read: the request returns before the mail, whatever the load.
    release = smtp_server.hold_data()
    response = client.post("/einstellungen/smtp/testmail/", follow=True)
    assert response.redirect_chain[-1][0] == "/einstellungen/smtp/#smtp-test-status"  # opens at the live box
    page = response.content.decode()
    assert 'hx-trigger="every 2s"' in page
    assert page.count("wird gesendet") == 1  # only in the box that turns into the outcome, no stale flash
    release.set()
    assert "Testmail an admin@alpha.example gesendet" in _status_until_done(client)
    assert len(smtp_server.messages) == 1 and smtp_server.messages[0]["To"] == alpha.admin_email
    assert "Testmail an admin@alpha.example gesendet" in client.get("/einstellungen/smtp/").content.decode()


def test_the_servers_refusal_is_reported(committed_tenants, celery_worker, smtp_server):
    alpha, _beta = committed_tenants
    _save_server(alpha, smtp_server.host, smtp_server.port)
    smtp_server.reply_next_with("554 5.7.1 Absender abgelehnt")
    client = _admin_client(alpha)
    client.post("/einstellungen/smtp/testmail/")
    page = _status_until_done(client)
    assert "Testmail fehlgeschlagen" in page and "Absender abgelehnt" in page
    assert smtp_server.messages == []


def test_a_closed_port_is_explained_in_german(committed_tenants, celery_worker):
    alpha, _beta = committed_tenants
    _save_server(alpha, "127.0.0.1", free_loopback_port())
    client = _admin_client(alpha)
    client.post("/einstellungen/smtp/testmail/")
    page = _status_until_done(client)
    assert "Testmail fehlgeschlagen: Verbindung abgelehnt" in page
    assert "Connection refused" not in page


def test_german_reasons_for_common_network_failures():
    import socket

    def wrapped(cause):
        try:
            raise TemporarySendError("x") from cause
        except TemporarySendError as exc:
            return german_reason(exc)

    assert "nicht auflösen" in wrapped(socket.gaierror(-2, "Name or service not known"))
    assert "Zeitüberschreitung" in wrapped(TimeoutError())
    assert german_reason(TemporarySendError("SMTP-Server antwortet: 451 später")) == "SMTP-Server antwortet: 451 später"


def test_the_task_runs_only_in_the_schema_that_queued_it(alpha, beta, smtp_server):
    # User ids are numbered per schema: in beta, alpha's admin id may be someone else entirely.
    from django.core.cache import cache

    from notifications.preferences.smtp_test import smtp_test_outcome
    from notifications.tasks.smtp import smtp_test_task

    for tenant in (alpha, beta):
        _save_server(tenant, smtp_server.host, smtp_server.port)
    with schema_context(alpha.schema_name):
        admin_id = get_user_model().objects.get(username=alpha.admin_email).pk
    with schema_context(beta.schema_name):
        cache.delete(f"smtp-test:{admin_id}")
        assert smtp_test_task.apply(args=(admin_id, alpha.admin_email, alpha.schema_name)).get() == "refused"
        assert smtp_test_outcome(user_id=admin_id) is None
    assert smtp_test_task.apply(args=(admin_id, alpha.admin_email, alpha.schema_name)).get() == "refused"  # public
    assert smtp_server.messages == []
    with schema_context(alpha.schema_name):
        assert smtp_test_task.apply(args=(admin_id, alpha.admin_email, alpha.schema_name)).get() == "sent"
        assert smtp_test_outcome(user_id=admin_id).state == "sent"
    assert len(smtp_server.messages) == 1 and smtp_server.messages[0]["To"] == alpha.admin_email
