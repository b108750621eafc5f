"""The API authenticates by API key only: no Basic password oracle, no session riding."""

from __future__ import annotations

import base64

import pytest
from django.test import Client


def _basic(email: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{email}:{password}".encode()).decode()


@pytest.mark.parametrize("path", ["/api/v1/schema/", "/api/v1/docs/"])
def test_basic_auth_on_schema_and_docs_tells_nothing_about_the_password(alpha, path):
    from tests.fixtures.tenants import TENANT_PASSWORD

    client = Client(HTTP_HOST=alpha.host)
    right = client.get(path, HTTP_AUTHORIZATION=_basic(alpha.admin_email, TENANT_PASSWORD))
    wrong = client.get(path, HTTP_AUTHORIZATION=_basic(alpha.admin_email, "falsch"))
    unknown = client.get(path, HTTP_AUTHORIZATION=_basic("niemand@alpha.example", "falsch"))

    assert right.status_code == wrong.status_code == unknown.status_code == 200
    assert right.content == wrong.content == unknown.content
    assert "WWW-Authenticate" not in wrong


def test_basic_auth_is_not_accepted_on_api_endpoints(alpha):
    from tests.fixtures.tenants import TENANT_PASSWORD

    client = Client(HTTP_HOST=alpha.host)
    response = client.get("/api/v1/tenders/", HTTP_AUTHORIZATION=_basic(alpha.admin_email, TENANT_PASSWORD))
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_portal_session_does_not_open_the_api(alpha_admin_client):
    assert alpha_admin_client.get("/api/v1/saved-searches/").status_code == 401


def test_schema_declares_no_basic_or_cookie_security(alpha):
    schema = Client(HTTP_HOST=alpha.host).get("/api/v1/schema/?format=json").json()
    schemes = schema["components"]["securitySchemes"]
    assert set(schemes) == {"BearerAuth", "ApiKeyHeader"}
