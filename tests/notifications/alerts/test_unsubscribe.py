"""One-click unsubscribe: GET only asks, POST switches off, tokens are bound to their tenant."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django_tenants.utils import schema_context

from notifications.alerts.unsubscribe import unsubscribe_target, unsubscribe_token
from notifications.models import SavedSearch, UserPreference
from tests.notifications.alerts.helpers import saved_search, user

pytestmark = pytest.mark.django_db


def _url(token: str) -> str:
    return reverse("alerts:unsubscribe", kwargs={"token": token}, urlconf="config.urls_tenant")


def _search(tenant):
    with schema_context(tenant.schema_name):
        return saved_search(user(tenant.member_email), name="Dach <b>Bayern</b>", q="Dach")


def test_get_asks_and_changes_nothing_post_switches_the_search_off(alpha):
    search = _search(alpha)
    url = _url(unsubscribe_token(scope="search", object_id=search.pk, schema_name="alpha"))
    client = Client(HTTP_HOST=alpha.host, enforce_csrf_checks=True)

    page = client.get(url)
    assert page.status_code == 200
    assert "Dach &lt;b&gt;Bayern&lt;/b&gt;" in page.content.decode()
    with schema_context("alpha"):
        assert SavedSearch.objects.get(pk=search.pk).email_enabled is True

    # RFC 8058 one-click: the mail client POSTs without cookies or CSRF token.
    done = client.post(url, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert done.status_code == 200
    with schema_context("alpha"):
        assert SavedSearch.objects.get(pk=search.pk).email_enabled is False
    assert client.post(url).status_code == 200  # again: still fine


def test_a_token_of_another_tenant_or_a_forged_one_is_refused(alpha, beta):
    search = _search(alpha)
    alpha_token = unsubscribe_token(scope="search", object_id=search.pk, schema_name="alpha")
    beta_client = Client(HTTP_HOST=beta.host)
    with schema_context("beta"):  # the same id in another tenant: the token must not reach it
        beta_search = SavedSearch.objects.create(
            pk=search.pk, owner=user(beta.member_email), name="Beta", filters={}, active_since=search.active_since
        )
    assert beta_client.post(_url(alpha_token)).status_code == 404
    with schema_context("beta"):
        assert SavedSearch.objects.get(pk=beta_search.pk).email_enabled is True

    forged = alpha_token[:-3] + ("AAA" if not alpha_token.endswith("AAA") else "BBB")
    assert Client(HTTP_HOST=alpha.host).post(_url(forged)).status_code == 404
    assert unsubscribe_target(forged, schema_name="alpha") is None


def test_the_digest_link_turns_digests_off(alpha):
    with schema_context("alpha"):
        member = user(alpha.member_email)
    url = _url(unsubscribe_token(scope="digest", object_id=member.pk, schema_name="alpha"))
    assert Client(HTTP_HOST=alpha.host).post(url).status_code == 200
    connection.set_tenant(alpha.tenant)
    assert UserPreference.objects.get(user=member).digest_interval == "off"
