"""The demo's webhook receiver: signed events of the demo search arrive at a real local server and show as verified."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context

from kernel.errors import ApplicationError
from notifications.demo import services as demo_services
from notifications.demo.mailcatcher import mail_catcher_start
from notifications.demo.webhook_receiver import MAX_BODY_BYTES, webhook_receiver_start
from notifications.models import Webhook
from notifications.webhooks.services import webhook_create
from sources.demo import demo_sample_load
from tests.fixtures.network import free_loopback_port

PAGE = "/webhook-empfang/"
VERIFIED, REFUSED = "Signatur geprüft ✓", "Signatur geprüft ✗"


@pytest.fixture
def receiver(settings, tmp_path):
    settings.LOCAL_WEBHOOK_DIR = tmp_path / "webhooks"
    running = webhook_receiver_start(folder=settings.LOCAL_WEBHOOK_DIR, port=free_loopback_port())
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def demo_in_alpha(alpha, settings, monkeypatch, tmp_path, receiver):
    """The demo's services aimed at alpha, with the real mail catcher and the real webhook receiver."""
    settings.DEMO_ENABLED = True
    settings.LOCAL_OUTBOX_DIR = tmp_path / "outbox"
    settings.PORTAL_URL_FORMAT = "http://{domain}:8000"
    settings.SOURCES_ALLOW_LOOPBACK = False  # as on a local machine: only the demo's own switch allows the receiver
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    monkeypatch.setattr(demo_services, "DEMO_SCHEMA", alpha.schema_name)
    mail_port = free_loopback_port()
    catcher = mail_catcher_start(maildir=settings.LOCAL_OUTBOX_DIR, port=mail_port)
    try:
        yield alpha, mail_port, receiver
    finally:
        catcher.stop()


def _run_demo(alpha, mail_port, receiver):
    started = timezone.now()  # the searches count as saved when the load began, as in the demo
    load = demo_sample_load()
    with schema_context(alpha.schema_name):
        demo_services.demo_mail_route_save(port=mail_port, from_email="radar@demo.localhost")
        demo_services.demo_searches_ensure(owner_email=alpha.member_email, active_since=started)
        url = f"http://127.0.0.1:{receiver.port}/tender-radar"
        webhook = demo_services.demo_webhook_ensure(owner_email=alpha.member_email, url=url)
        assert demo_services.demo_webhook_ensure(owner_email=alpha.member_email, url=url) == webhook  # idempotent
        alerts = demo_services.demo_initial_alerts_deliver(owner_email=alpha.member_email, tender_ids=load.tender_ids)
    return webhook, alerts


def test_the_demo_events_arrive_signed_and_show_as_verified(demo_in_alpha, alpha_admin_client, settings):
    alpha, mail_port, receiver = demo_in_alpha
    webhook, alerts = _run_demo(alpha, mail_port, receiver)
    files = sorted(settings.LOCAL_WEBHOOK_DIR.glob("*.json"))
    assert alerts.webhook_events_sent == len(files) >= 1
    with schema_context(alpha.schema_name):
        assert webhook.events.filter(status="sent").count() == len(files)

    page = alpha_admin_client.get(PAGE).content.decode()
    assert page.count(VERIFIED) == len(files) + 1  # one per request in the list, and the selected one's
    assert REFUSED not in page
    assert "tender.matched" in page and "X-TenderRadar-Signature: t=" in page
    record = json.loads(files[0].read_text())
    assert record["url"] == webhook.url
    assert json.loads(base64.b64decode(record["body"]))["event"] == "tender.matched"


def test_a_tampered_body_shows_the_signature_as_not_verified(demo_in_alpha, alpha_admin_client, settings):
    alpha, mail_port, receiver = demo_in_alpha
    _run_demo(alpha, mail_port, receiver)
    first = sorted(settings.LOCAL_WEBHOOK_DIR.glob("*.json"))[0]
    record = json.loads(first.read_text())
    body = base64.b64decode(record["body"]).replace(b'"tender.matched"', b'"tender.cancelled"')
    record["body"] = base64.b64encode(body).decode()
    first.write_text(json.dumps(record))

    page = alpha_admin_client.get(PAGE, {"anfrage": first.stem}).content.decode()
    assert page.count(REFUSED) == 2  # in the list and on the selected request
    assert "tender.cancelled" in page


def test_production_rules_still_refuse_the_receiver(alpha, settings, receiver):
    settings.SOURCES_ALLOW_LOOPBACK = False
    settings.WEBHOOKS_ALLOW_LOOPBACK = False
    from django.contrib.auth import get_user_model

    with schema_context(alpha.schema_name):
        owner = get_user_model().objects.get(username=alpha.admin_email)
        with pytest.raises(ApplicationError, match="Nur HTTPS"):
            webhook_create(
                saved_search=None,
                url=f"http://127.0.0.1:{receiver.port}/x",
                created_by=owner,
                board_events=["card.decided"],
            )
        assert not Webhook.objects.exists()


def test_only_the_tenants_own_webhooks_are_shown_and_only_to_its_admins(
    alpha, beta, alpha_admin_client, alpha_client, receiver, settings
):
    from django.contrib.auth import get_user_model

    urls = {}
    for tenant in (alpha, beta):
        with schema_context(tenant.schema_name):
            owner = get_user_model().objects.get(username=tenant.admin_email)
            created = webhook_create(
                saved_search=None,
                url=f"http://127.0.0.1:{receiver.port}/{tenant.schema_name}",
                created_by=owner,
                board_events=["card.decided"],
            )
            urls[tenant.schema_name] = created.webhook.url
    for schema, url in urls.items():
        request = urllib.request.Request(url, data=f'{{"geheim": "{schema}-payload"}}'.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - our own local receiver
            assert response.status == 204
    page = alpha_admin_client.get(PAGE).content.decode()
    assert "alpha-payload" in page and "beta-payload" not in page
    assert REFUSED in page  # sent without a signature
    assert alpha_client.get(PAGE).status_code == 403  # a member: webhooks are the admins' business
    settings.LOCAL_WEBHOOK_DIR = None
    assert alpha_admin_client.get(PAGE).status_code == 404


def test_the_receiver_refuses_what_is_no_webhook_request(receiver):
    base = f"http://127.0.0.1:{receiver.port}/x"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(base, timeout=5)  # noqa: S310
    assert refused.value.code == 405
    request = urllib.request.Request(
        base, data=b"x", method="POST", headers={"Content-Length": str(MAX_BODY_BYTES + 1)}
    )
    with pytest.raises((urllib.error.HTTPError, ConnectionError)) as too_large:
        urllib.request.urlopen(request, timeout=5)  # noqa: S310
    if isinstance(too_large.value, urllib.error.HTTPError):
        assert too_large.value.code == 413
