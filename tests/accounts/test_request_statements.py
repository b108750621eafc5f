"""What every signed-in request costs before its view: the tenant with its search path in one statement,
the session from the cache, the person with their language and role in one more."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tenants.utils import schema_context

from accounts.services import user_sessions_end
from notifications.models import UserPreference


def _member(test_tenant):
    with schema_context(test_tenant.schema_name):
        return get_user_model().objects.get(username=test_tenant.member_email)


def _statements(client, path: str) -> list[str]:
    client.get(path)  # the session is read from the database once, then from the cache
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200
    return [query["sql"] for query in queries.captured_queries]


def test_tenant_session_and_person_cost_two_statements(alpha_client):
    statements = _statements(alpha_client, "/suche/")
    assert "set_config('search_path'" in statements[0] and "accounts_domain" in statements[0]
    assert "auth_user" in statements[1] and "notifications_userpreference" in statements[1]
    assert "auth_user_groups" in statements[1]  # the role, for the menu's admin links
    assert not [sql for sql in statements if sql.startswith("SET search_path")]
    assert not [sql for sql in statements if "django_session" in sql]
    assert not [sql for sql in statements[2:] if "notifications_userpreference" in sql or "auth_user_groups" in sql]


def test_the_folded_reads_still_choose_language_and_admin_links(alpha, alpha_client, alpha_admin_client):
    with schema_context(alpha.schema_name):
        UserPreference.objects.update_or_create(user=_member(alpha), defaults={"language": "en"})
    assert 'lang="en"' in alpha_client.get("/suche/").content.decode()
    member_page = alpha_client.get("/suche/").content.decode()
    admin_page = alpha_admin_client.get("/suche/").content.decode()
    assert 'href="/api-schluessel/"' not in member_page
    assert 'href="/api-schluessel/"' in admin_page


def test_ending_a_persons_sessions_ends_the_cached_copies_too(alpha, alpha_client):
    assert alpha_client.get("/suche/").status_code == 200  # the session is now cached
    with schema_context(alpha.schema_name):
        assert user_sessions_end(user_id=_member(alpha).pk) == 1
    assert alpha_client.get("/suche/").status_code == 302  # to the sign-in, though the person is still active
