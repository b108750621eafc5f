"""The periodic fan-out and the per-tenant check, run by a real Celery worker against a real Dovecot."""

from __future__ import annotations

import random
import time
from pathlib import Path

from django_tenants.utils import schema_context

from notifications.inbox import services
from notifications.inbox.selectors import tenant_schemas_with_active_mailbox
from notifications.models import MailboxSettings
from notifications.tasks.inbox import check_all_mailboxes_task
from sources.models import InboundMail
from tests.fixtures.mail import RECEIVING_SERVER, as_received

MAIL = Path(__file__).resolve().parents[2] / "data" / "portals" / "mail"


def _mailbox(imap_server, tenant, *, is_active=True) -> None:
    user, password = imap_server.add_user(tenant.schema_name)
    imap_server.append(user, as_received((MAIL / "dtvp_alert_html_only.eml").read_bytes(), dkim="dtvp.de"))
    with schema_context(tenant.schema_name):
        MailboxSettings.objects.create(
            authserv_id=RECEIVING_SERVER,
            host=imap_server.host,
            port=imap_server.ssl_port,
            username=user,
            password=password,
            is_active=is_active,
        )


def test_only_tenants_with_an_active_mailbox_are_due(alpha, beta, imap_server):
    _mailbox(imap_server, alpha.tenant)
    _mailbox(imap_server, beta.tenant, is_active=False)
    assert tenant_schemas_with_active_mailbox(schemas=["alpha", "beta"]) == ["alpha"]
    assert tenant_schemas_with_active_mailbox(schemas=[]) == []


def test_fan_out_runs_one_check_in_each_due_tenant_schema(celery_worker, committed_tenants, imap_server, monkeypatch):
    alpha, beta = committed_tenants
    # The worker builds the default TLS context; OpenSSL honours SSL_CERT_FILE, as it would for a private CA.
    monkeypatch.setenv("SSL_CERT_FILE", str(imap_server.cert_path))
    monkeypatch.setattr(services, "FAN_OUT_JITTER_SECONDS", 0)
    _mailbox(imap_server, alpha.tenant)
    _mailbox(imap_server, beta.tenant, is_active=False)

    check_all_mailboxes_task.delay()

    def alpha_checked() -> bool:
        with schema_context("alpha"):
            return MailboxSettings.objects.filter(last_checked_at__isnull=False).exists()

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not alpha_checked():
        time.sleep(0.2)
    # The worker runs one task at a time: a check wrongly sent for beta would run right after alpha's.
    time.sleep(2)
    rows = list(InboundMail.objects.values_list("tenant_schema", "status", "notices_found"))
    assert rows == [("alpha", "parsed", 3)]
    with schema_context("alpha"):
        assert MailboxSettings.objects.get().last_error == ""
    with schema_context("beta"):
        assert MailboxSettings.objects.get().last_checked_at is None


def test_fan_out_spreads_the_checks(alpha, beta, imap_server, monkeypatch):
    sent = []
    from config.celery import app

    monkeypatch.setattr(app, "send_task", lambda name, **options: sent.append((name, options)))
    _mailbox(imap_server, alpha.tenant)
    _mailbox(imap_server, beta.tenant)
    assert services.mailbox_check_fan_out(rng=random.Random(7)) == ["alpha", "beta"]
    assert [(name, options["headers"]) for name, options in sent] == [
        ("notifications.check_mailbox", {"_schema_name": "alpha"}),
        ("notifications.check_mailbox", {"_schema_name": "beta"}),
    ]
    countdowns = [options["countdown"] for _, options in sent]
    assert all(0 <= c <= services.FAN_OUT_JITTER_SECONDS for c in countdowns) and countdowns[0] != countdowns[1]
