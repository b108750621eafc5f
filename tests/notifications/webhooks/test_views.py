from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import override_settings
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import SavedSearch, Webhook, WebhookEvent
from tests.notifications.webhooks.conftest import build_scene, ingest_tenders


def _search(test_tenant, *, owner_email: str, name: str, shared: bool = False) -> SavedSearch:
    with schema_context(test_tenant.schema_name):
        owner = get_user_model().objects.get(username=owner_email)
        return SavedSearch.objects.create(
            owner=owner, name=name, filters={}, is_shared=shared, active_since=timezone.now()
        )


def _webhooks(test_tenant) -> list[Webhook]:
    with schema_context(test_tenant.schema_name):
        return list(Webhook.objects.order_by("id"))


def test_admin_creates_a_webhook_and_sees_the_secret_once(alpha, alpha_admin_client, httpserver):
    search = _search(alpha, owner_email=alpha.admin_email, name="Brücken NRW")
    url = httpserver.url_for("/hook")
    response = alpha_admin_client.post("/einstellungen/webhooks/", {"saved_search": search.pk, "url": url})

    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    [webhook] = _webhooks(alpha)
    assert (webhook.url, webhook.saved_search_id, webhook.is_active) == (url, search.pk, True)
    secret = str(webhook.secret)
    assert secret in response.content.decode()

    listing = alpha_admin_client.get("/einstellungen/webhooks/").content.decode()
    detail = alpha_admin_client.get(f"/einstellungen/webhooks/{webhook.pk}/").content.decode()
    assert url in listing and "Brücken NRW" in listing
    assert secret not in listing and secret not in detail


@override_settings(SOURCES_ALLOW_LOOPBACK=False)
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://93.184.215.14/hook", "Nur HTTPS"),
        ("http://127.0.0.1:8080/hook", "Nur HTTPS"),
        ("https://127.0.0.1/hook", "interne Adresse"),
        ("https://10.20.30.40/hook", "interne Adresse"),
        ("https://192.168.0.10/hook", "interne Adresse"),
        ("https://169.254.169.254/latest/meta-data/", "interne Adresse"),
        ("https://[::1]/hook", "interne Adresse"),
        ("https://partner:geheim@93.184.215.14/hook", "Zugangsdaten"),
    ],
)
def test_production_refuses_plain_http_and_internal_hosts(alpha, alpha_admin_client, url, message):
    search = _search(alpha, owner_email=alpha.admin_email, name="Profil")
    response = alpha_admin_client.post("/einstellungen/webhooks/", {"saved_search": search.pk, "url": url})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert _webhooks(alpha) == []


@override_settings(SOURCES_ALLOW_LOOPBACK=False)
def test_production_accepts_a_public_https_address(alpha, alpha_admin_client):
    search = _search(alpha, owner_email=alpha.admin_email, name="Profil")
    url = "https://93.184.215.14/tender-radar"
    response = alpha_admin_client.post("/einstellungen/webhooks/", {"saved_search": search.pk, "url": url})
    assert response.status_code == 200
    assert [w.url for w in _webhooks(alpha)] == [url]


def test_plain_http_to_a_public_host_is_refused_even_in_tests(alpha, alpha_admin_client):
    search = _search(alpha, owner_email=alpha.admin_email, name="Profil")
    response = alpha_admin_client.post(
        "/einstellungen/webhooks/", {"saved_search": search.pk, "url": "http://93.184.215.14/hook"}
    )
    assert response.status_code == 400
    assert _webhooks(alpha) == []


def test_another_members_private_profile_cannot_get_a_webhook(alpha, alpha_admin_client):
    private = _search(alpha, owner_email=alpha.member_email, name="Privat")
    shared = _search(alpha, owner_email=alpha.member_email, name="Geteilt", shared=True)
    page = alpha_admin_client.get("/einstellungen/webhooks/").content.decode()
    assert "Geteilt" in page and "Privat" not in page

    response = alpha_admin_client.post(
        "/einstellungen/webhooks/", {"saved_search": private.pk, "url": "http://127.0.0.1:9/x"}
    )
    assert response.status_code == 400
    ok = alpha_admin_client.post("/einstellungen/webhooks/", {"saved_search": shared.pk, "url": "http://127.0.0.1:9/x"})
    assert ok.status_code == 200


def test_detail_lists_recent_events_with_status(alpha, alpha_admin_client, httpserver):
    scene = build_scene(alpha, httpserver.url_for("/hook"))
    event = scene.matched_event(ingest_tenders(1)[0])
    WebhookEvent.objects.filter(pk=event.pk).update(status="failed", response_status=410, last_error="HTTP 410: <gone>")
    connection.set_schema_to_public()

    response = alpha_admin_client.get(f"/einstellungen/webhooks/{scene.webhook.pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "tender.matched" in page and "fehlgeschlagen" in page and "410" in page
    assert "HTTP 410: &lt;gone&gt;" in page  # the receiver's answer is escaped

    listing = alpha_admin_client.get("/einstellungen/webhooks/").content.decode()
    assert "1 fehlgeschlagen/unklar" in listing


def test_admin_deactivates_reactivates_and_deletes(alpha, alpha_admin_client, httpserver):
    scene = build_scene(alpha, httpserver.url_for("/hook"))
    connection.set_schema_to_public()
    base = f"/einstellungen/webhooks/{scene.webhook.pk}"

    assert alpha_admin_client.post(f"{base}/aktiv/", {"is_active": "0"}).status_code == 302
    assert _webhooks(alpha)[0].is_active is False
    # Switched back on with a new signing secret, shown in this answer (tests/security/test_operator_leaks.py).
    switched_on = alpha_admin_client.post(f"{base}/aktiv/", {"is_active": "1"})
    assert switched_on.status_code == 200 and b'data-testid="webhook-secret"' in switched_on.content
    assert _webhooks(alpha)[0].is_active is True
    assert alpha_admin_client.post(f"{base}/loeschen/").status_code == 302
    assert _webhooks(alpha) == []


def test_members_get_403_everywhere_in_webhooks(alpha, alpha_client, httpserver):
    scene = build_scene(alpha, httpserver.url_for("/hook"))
    connection.set_schema_to_public()
    base = f"/einstellungen/webhooks/{scene.webhook.pk}"
    assert alpha_client.get("/einstellungen/webhooks/").status_code == 403
    assert alpha_client.post("/einstellungen/webhooks/", {"url": "http://127.0.0.1:9/"}).status_code == 403
    assert alpha_client.get(f"{base}/").status_code == 403
    assert alpha_client.post(f"{base}/aktiv/", {"is_active": "0"}).status_code == 403
    assert alpha_client.post(f"{base}/loeschen/").status_code == 403
    assert len(_webhooks(alpha)) == 1 and _webhooks(alpha)[0].is_active


def test_another_tenants_webhook_is_404(alpha, beta_admin_client, httpserver):
    scene = build_scene(alpha, httpserver.url_for("/hook"))
    connection.set_schema_to_public()
    base = f"/einstellungen/webhooks/{scene.webhook.pk}"
    assert beta_admin_client.get(f"{base}/").status_code == 404
    assert beta_admin_client.post(f"{base}/aktiv/", {"is_active": "0"}).status_code == 404
    assert beta_admin_client.post(f"{base}/loeschen/").status_code == 404
    assert len(_webhooks(alpha)) == 1 and _webhooks(alpha)[0].is_active
    assert scene.search.name not in beta_admin_client.get("/einstellungen/webhooks/").content.decode()


def test_anonymous_visitors_are_sent_to_sign_in(alpha):
    from django.test import Client

    response = Client(HTTP_HOST=alpha.host).get("/einstellungen/webhooks/")
    assert response.status_code == 302 and "/konto/anmelden/" in response["Location"]


def test_a_webhook_of_a_deactivated_person_is_off_and_cannot_be_switched_on(alpha, alpha_admin_client):
    profile = _search(alpha, owner_email=alpha.member_email, name="Meins")
    with schema_context(alpha.schema_name):
        member = get_user_model().objects.get(username=alpha.member_email)
        webhook = Webhook.objects.create(
            saved_search=profile, url="https://partner.example/hook", secret="whsec_x", created_by=member
        )
    alpha_admin_client.post(f"/konto/team/{member.pk}/deaktivieren/")
    assert _webhooks(alpha)[0].is_active is False

    answer = alpha_admin_client.post(f"/einstellungen/webhooks/{webhook.pk}/aktiv/", {"is_active": "1"}, follow=True)

    assert "nicht mehr im Team aktiv" in answer.content.decode()
    assert _webhooks(alpha)[0].is_active is False
