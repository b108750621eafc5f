"""Rate limits per API key: a key over its rate gets 429 JSON; other keys and other tenants keep going."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import override_settings
from django_tenants.utils import schema_context

from notifications.models import ApiKey
from tests.notifications.api.conftest import make_api_caller


@pytest.fixture
def three_per_minute():
    rates = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"api_key": "3/min"}}
    with override_settings(REST_FRAMEWORK=rates):
        yield


def test_a_key_over_its_rate_gets_429_json(alpha_api, three_per_minute):
    for _ in range(3):
        assert alpha_api.get("/api/v1/tenders/").status_code == 200
    response = alpha_api.get("/api/v1/tenders/")
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    error = response.json()["error"]
    assert error["code"] == "throttled"
    assert error["message"]


def test_other_keys_of_the_tenant_have_their_own_budget(alpha, alpha_api, three_per_minute):
    for _ in range(4):
        alpha_api.get("/api/v1/tenders/")
    assert alpha_api.get("/api/v1/tenders/").status_code == 429
    other = make_api_caller(alpha, alpha.admin_email)
    assert other.get("/api/v1/tenders/").status_code == 200


def test_keys_with_the_same_id_in_two_tenants_do_not_share_a_bucket(alpha, beta, three_per_minute):
    alpha_api = make_api_caller(alpha, alpha.member_email)
    beta_api = make_api_caller(beta, beta.member_email)
    with schema_context(beta.schema_name):
        # Give beta's key alpha's id: both schemas now hold an ApiKey with that primary key.
        ApiKey.objects.filter(pk=beta_api.api_key.pk).update(id=alpha_api.api_key.pk)
    for _ in range(4):
        alpha_api.get("/api/v1/tenders/")
    assert alpha_api.get("/api/v1/tenders/").status_code == 429
    assert beta_api.get("/api/v1/tenders/").status_code == 200


def test_unauthenticated_requests_are_refused_before_throttling(alpha, three_per_minute):
    from django.test import Client

    client = Client(HTTP_HOST=alpha.host)
    assert {client.get("/api/v1/tenders/").status_code for _ in range(5)} == {401}
