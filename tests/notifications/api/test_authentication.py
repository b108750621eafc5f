"""API keys: both headers, hashed at rest, revocation, tenant binding, last use written at most once a minute."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.api.services import api_key_revoke
from notifications.models import ApiKey
from tests.notifications.api.conftest import make_api_caller


def _error(response) -> dict:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    return response.json()["error"]


def test_missing_key_is_401_json_with_a_challenge(alpha):
    response = Client(HTTP_HOST=alpha.host).get("/api/v1/tenders/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    error = _error(response)
    assert error["code"] == "not_authenticated"
    assert "API-Schlüssel" in error["message"]
    assert error["fields"] == {}


def test_bearer_and_x_api_key_headers_both_work(alpha):
    assert make_api_caller(alpha, alpha.member_email, header="bearer").get("/api/v1/tenders/").status_code == 200
    assert make_api_caller(alpha, alpha.member_email, header="x-api-key").get("/api/v1/tenders/").status_code == 200


def test_unknown_and_malformed_keys_are_401(alpha, alpha_api):
    for value in (alpha_api.key + "x", alpha_api.key[:-1], "tr_" + "A" * 43, "garbage", "tr_" + "x" * 500):
        response = Client(HTTP_HOST=alpha.host, headers={"Authorization": f"Bearer {value}"}).get("/api/v1/tenders/")
        assert response.status_code == 401, value
        assert _error(response)["code"] == "invalid_api_key"


def test_only_the_hash_and_prefix_are_stored(alpha, alpha_api):
    with schema_context(alpha.schema_name):
        row = ApiKey.objects.values().get(pk=alpha_api.api_key.pk)
    assert row["key_hash"] == hashlib.sha256(alpha_api.key.encode()).hexdigest()
    assert row["prefix"] == alpha_api.key[:12] and alpha_api.key.startswith("tr_")
    assert len(alpha_api.key) > 40
    assert not any(alpha_api.key in str(value) for value in row.values())


def test_revoked_key_is_refused(alpha, alpha_api):
    assert alpha_api.get("/api/v1/tenders/").status_code == 200
    with schema_context(alpha.schema_name):
        api_key_revoke(api_key_id=alpha_api.api_key.pk)
    response = alpha_api.get("/api/v1/tenders/")
    assert response.status_code == 401
    assert _error(response)["code"] == "api_key_revoked"


def test_key_of_another_tenant_is_unknown_here(alpha, beta_api):
    intruder = Client(HTTP_HOST=alpha.host, headers={"Authorization": f"Bearer {beta_api.key}"})
    response = intruder.get("/api/v1/saved-searches/")
    assert response.status_code == 401
    assert _error(response)["code"] == "invalid_api_key"


def test_key_of_a_deactivated_user_is_refused(alpha, alpha_api):
    with schema_context(alpha.schema_name):
        get_user_model().objects.filter(username=alpha.member_email).update(is_active=False)
    response = alpha_api.get("/api/v1/tenders/")
    assert response.status_code == 401
    assert _error(response)["code"] == "api_key_owner_inactive"


def test_portal_session_is_not_an_api_credential(alpha_client):
    assert alpha_client.get("/").status_code == 200  # signed in to the portal
    assert alpha_client.get("/api/v1/saved-searches/").status_code == 401


def _apikey_updates(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].startswith("UPDATE") and "notifications_apikey" in q["sql"]]


def test_last_used_is_written_at_most_once_a_minute(alpha, alpha_api):
    with CaptureQueriesContext(connection) as first:
        assert alpha_api.get("/api/v1/tenders/").status_code == 200
    assert len(_apikey_updates(first.captured_queries)) == 1
    with schema_context(alpha.schema_name):
        used_at = ApiKey.objects.get(pk=alpha_api.api_key.pk).last_used_at
    assert used_at is not None and timezone.now() - used_at < timedelta(seconds=30)

    with CaptureQueriesContext(connection) as again:
        for _ in range(3):
            assert alpha_api.get("/api/v1/tenders/").status_code == 200
    assert _apikey_updates(again.captured_queries) == []

    with schema_context(alpha.schema_name):
        ApiKey.objects.filter(pk=alpha_api.api_key.pk).update(last_used_at=used_at - timedelta(minutes=2))
    with CaptureQueriesContext(connection) as later:
        assert alpha_api.get("/api/v1/tenders/").status_code == 200
    assert len(_apikey_updates(later.captured_queries)) == 1
