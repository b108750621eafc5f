"""API clients that present a real API key of a tenant user, and a few ingested tenders."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django_tenants.utils import schema_context

from kernel.vocabulary.time_zone import BERLIN
from notifications.api.services import api_key_create
from notifications.models import ApiKey
from tenders.services import notices_ingest

INGESTED_AT = datetime(2026, 9, 2, 8, 0, tzinfo=BERLIN)


@dataclass(frozen=True)
class ApiCaller:
    client: Client
    key: str
    api_key: ApiKey
    schema_name: str

    def get(self, path: str, data=None, **extra):
        return self.client.get(path, data, **extra)

    def post(self, path: str, payload: dict):
        return self.client.post(path, payload, content_type="application/json")

    def patch(self, path: str, payload: dict):
        return self.client.patch(path, payload, content_type="application/json")

    def put(self, path: str, payload: dict):
        return self.client.put(path, payload, content_type="application/json")

    def delete(self, path: str):
        return self.client.delete(path)


def make_api_caller(test_tenant, email: str, *, header: str = "bearer") -> ApiCaller:
    with schema_context(test_tenant.schema_name):
        user = get_user_model().objects.get(username=email)
        created = api_key_create(name=f"Test {email}", created_by=user)
    headers = (
        {"Authorization": f"Bearer {created.plaintext}"} if header == "bearer" else {"X-Api-Key": created.plaintext}
    )
    return ApiCaller(
        client=Client(HTTP_HOST=test_tenant.host, headers=headers),
        key=created.plaintext,
        api_key=created.api_key,
        schema_name=test_tenant.schema_name,
    )


@pytest.fixture(autouse=True)
def _empty_cache():
    """Throttle buckets live in the cache; each test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alpha_api(alpha) -> ApiCaller:
    """A key created by alpha's member."""
    return make_api_caller(alpha, alpha.member_email)


@pytest.fixture
def alpha_admin_api(alpha) -> ApiCaller:
    return make_api_caller(alpha, alpha.admin_email)


@pytest.fixture
def beta_api(beta) -> ApiCaller:
    return make_api_caller(beta, beta.member_email)


def ingest(*records) -> list[int]:
    """Ingest records one by one and return the new tender ids in record order."""
    return [notices_ingest(records=[r], now=INGESTED_AT, use_fingerprint=False).created[0] for r in records]
