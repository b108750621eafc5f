"""Sessions and cache keys never cross tenants."""

from django.core.cache import cache
from django.db import connection
from django.test import Client


def test_session_cookie_of_one_tenant_is_unknown_to_another(alpha_client, beta):
    assert alpha_client.get("/").status_code == 200
    session_cookie = alpha_client.cookies["sessionid"].value
    intruder = Client(HTTP_HOST=beta.host)
    intruder.cookies["sessionid"] = session_cookie
    response = intruder.get("/")
    assert response.status_code == 302  # not signed in on beta


def test_cache_keys_carry_the_schema(alpha, beta):
    connection.set_tenant(alpha.tenant)
    cache.set("dashboard-counts", "alpha-secret")
    assert cache.get("dashboard-counts") == "alpha-secret"
    connection.set_tenant(beta.tenant)
    assert cache.get("dashboard-counts") is None
    cache.set("dashboard-counts", "beta-value")
    connection.set_tenant(alpha.tenant)
    assert cache.get("dashboard-counts") == "alpha-secret"
