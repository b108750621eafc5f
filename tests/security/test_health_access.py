"""F5 replay: the health endpoints tell strangers nothing and cost them nothing.

Liveness is open and says only "ok"; the readiness snapshot (workers per queue, beat age, queue
ages, uncertain mails) is for a signed-in console operator or a monitor with ``HEALTH_TOKEN``.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client

from config.health_checks import health_snapshot_refresh
from tests.fixtures.tenants import PUBLIC_HOST, operator_sign_in

TOKEN = "h3alth-t0ken-for-the-monitor-0123456789"


@pytest.fixture(autouse=True)
def _snapshot(db, settings):
    settings.HEALTH_TOKEN = TOKEN
    cache.clear()
    health_snapshot_refresh()
    yield
    cache.clear()


@pytest.mark.parametrize("path", ["/health/", "/healthz"])
def test_liveness_answers_strangers_with_ok_and_nothing_else(public_client, path):
    response = public_client.get(path)
    assert response.status_code == 200
    assert json.loads(response.content) == {"status": "ok"}


def test_a_stranger_does_not_find_the_readiness_view(public_client):
    response = public_client.get("/health/ready/")
    assert response.status_code == 404
    assert b"workers" not in response.content and b"per_queue" not in response.content


def test_a_wrong_or_unconfigured_token_is_401_and_shows_nothing(public_client, settings):
    for header in (f"Bearer {TOKEN}x", "Bearer x", f"Bearer {TOKEN[:-1]}"):
        response = public_client.get("/health/ready/", HTTP_AUTHORIZATION=header)
        assert response.status_code == 401 and b"checks" not in response.content
        assert response["WWW-Authenticate"].startswith("Bearer")
    settings.HEALTH_TOKEN = ""  # no token configured: no token is right, not even an empty one
    for header in ("Bearer ", f"Bearer {TOKEN}", "Bearer \u200b"):
        assert public_client.get("/health/ready/", HTTP_AUTHORIZATION=header).status_code in (401, 404)


def test_the_token_opens_the_snapshot(public_client):
    response = public_client.get("/health/ready/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code in (200, 503)  # no worker in this test: red, but readable
    body = json.loads(response.content)
    assert {"database", "workers", "beat"} <= set(body["checks"]) and body["age_seconds"] is not None
    assert response["Cache-Control"] == "no-store"


def test_a_signed_in_operator_sees_the_snapshot_and_a_non_staff_account_does_not(public_client):
    operator_sign_in(public_client)
    assert "checks" in json.loads(public_client.get("/health/ready/").content)

    connection.set_schema_to_public()
    plain = get_user_model().objects.create_user(username="kein-operator@example.org", password="x")
    other = Client(HTTP_HOST=PUBLIC_HOST)
    other.force_login(plain)
    assert other.get("/health/ready/").status_code == 404


def test_a_tenant_admin_on_a_tenant_host_has_no_readiness_view(alpha_admin_client, alpha):
    assert alpha_admin_client.get("/health/ready/").status_code == 404
    response = alpha_admin_client.get("/health/ready/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 404 and b"per_queue" not in response.content
