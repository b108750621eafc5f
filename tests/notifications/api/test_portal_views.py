"""API keys in the portal: tenant admins list, create (shown once) and revoke; members get 403."""

from __future__ import annotations

import re

from django.test import Client
from django_tenants.utils import schema_context

from notifications.models import ApiKey

PAGE = "/api-schluessel/"


def _created_key(response) -> str:
    match = re.search(r'<code class="secret">(tr_[A-Za-z0-9_-]+)</code>', response.content.decode())
    assert match, "the new key is shown"
    return match.group(1)


def test_admin_creates_a_key_that_is_shown_once_and_works(alpha, alpha_admin_client):
    assert alpha_admin_client.get(PAGE).status_code == 200
    response = alpha_admin_client.post(PAGE, {"name": "CRM-Anbindung"})
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"] or "no-store" in response["Cache-Control"]
    key = _created_key(response)
    listing = alpha_admin_client.get(PAGE).content.decode()
    assert key not in listing  # shown once
    assert key[:12] in listing and "CRM-Anbindung" in listing
    api = Client(HTTP_HOST=alpha.host, headers={"X-Api-Key": key})
    assert api.get("/api/v1/saved-searches/").status_code == 200


def test_key_acts_for_its_creator(alpha, alpha_admin_client):
    key = _created_key(alpha_admin_client.post(PAGE, {"name": "Admin-Schlüssel"}))
    with schema_context(alpha.schema_name):
        assert ApiKey.objects.get(prefix=key[:12]).created_by.username == alpha.admin_email


def test_admin_revokes_a_key(alpha, alpha_admin_client):
    key = _created_key(alpha_admin_client.post(PAGE, {"name": "kurzlebig"}))
    with schema_context(alpha.schema_name):
        api_key = ApiKey.objects.get(prefix=key[:12])
    response = alpha_admin_client.post(f"{PAGE}{api_key.pk}/widerrufen/")
    assert response.status_code == 302
    page = alpha_admin_client.get(PAGE).content.decode()
    assert "widerrufen am" in page
    api = Client(HTTP_HOST=alpha.host, headers={"Authorization": f"Bearer {key}"})
    assert api.get("/api/v1/tenders/").status_code == 401


def test_invalid_name_is_400(alpha_admin_client):
    response = alpha_admin_client.post(PAGE, {"name": ""})
    assert response.status_code == 400
    assert 'class="secret"' not in response.content.decode()
    assert alpha_admin_client.post(PAGE, {"name": "x" * 101}).status_code == 400


def test_members_get_403(alpha, alpha_client, alpha_admin_client):
    key = _created_key(alpha_admin_client.post(PAGE, {"name": "vom Admin"}))
    with schema_context(alpha.schema_name):
        pk = ApiKey.objects.get(prefix=key[:12]).pk
    assert alpha_client.get(PAGE).status_code == 403
    assert alpha_client.post(PAGE, {"name": "vom Mitglied"}).status_code == 403
    assert alpha_client.post(f"{PAGE}{pk}/widerrufen/").status_code == 403
    with schema_context(alpha.schema_name):
        assert ApiKey.objects.get(pk=pk).revoked_at is None
        assert not ApiKey.objects.filter(name="vom Mitglied").exists()


def test_signed_out_visitors_are_sent_to_sign_in(alpha):
    response = Client(HTTP_HOST=alpha.host).get(PAGE)
    assert response.status_code == 302 and "/konto/anmelden/" in response["Location"]


def test_revoking_an_unknown_key_is_404_and_get_is_not_allowed(alpha_admin_client):
    assert alpha_admin_client.post(f"{PAGE}999999/widerrufen/").status_code == 404
    assert alpha_admin_client.get(f"{PAGE}999999/widerrufen/").status_code == 405
