"""Password guessing is refused: portal, operator admin and API keys, per account and per client address."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.test import Client
from django_tenants.utils import schema_context

from accounts.roles import Role
from accounts.services import user_create
from notifications.api.services import api_key_create
from tests.fixtures.tenants import PUBLIC_HOST, TENANT_PASSWORD

GUESSES = 40
LOCKED = "Zu viele fehlgeschlagene Anmeldeversuche"


def _portal_login(client: Client, email: str, password: str):
    return client.post("/konto/anmelden/", {"username": email, "password": password})


def _guess(client: Client, email: str, times: int = GUESSES) -> None:
    for attempt in range(times):
        _portal_login(client, email, f"falsch-{attempt}")


def test_forty_wrong_passwords_then_the_right_one_is_refused_with_the_wait_time(alpha):
    client = Client(HTTP_HOST=alpha.host, REMOTE_ADDR="198.51.100.7")
    _guess(client, alpha.member_email)

    response = _portal_login(client, alpha.member_email, TENANT_PASSWORD)

    assert response.status_code == 429
    body = response.content.decode()
    assert LOCKED in body and "15 Minuten gesperrt" in body
    assert int(response["Retry-After"]) > 14 * 60
    assert client.get("/").status_code == 302  # not signed in


def test_the_account_stays_locked_from_another_address_and_spelling(alpha):
    _guess(Client(HTTP_HOST=alpha.host, REMOTE_ADDR="198.51.100.7"), alpha.member_email)

    elsewhere = Client(HTTP_HOST=alpha.host, REMOTE_ADDR="203.0.113.9")
    response = _portal_login(elsewhere, "  " + alpha.member_email.upper(), TENANT_PASSWORD)

    assert response.status_code == 429


def test_one_address_guessing_many_accounts_is_locked_but_others_are_not(alpha):
    attacker = Client(HTTP_HOST=alpha.host, REMOTE_ADDR="198.51.100.7")
    for number in range(GUESSES):
        _portal_login(attacker, f"niemand{number}@alpha.example", "falsch")

    assert _portal_login(attacker, alpha.admin_email, TENANT_PASSWORD).status_code == 429
    colleague = Client(HTTP_HOST=alpha.host, REMOTE_ADDR="203.0.113.9")
    assert _portal_login(colleague, alpha.admin_email, TENANT_PASSWORD).status_code == 302


def test_a_lockout_on_one_tenant_does_not_touch_another(alpha, beta):
    # The same e-mail address exists on both tenants (a consultant working for both).
    shared_email = "berater@extern.example"
    for tenant in (alpha, beta):
        with schema_context(tenant.schema_name):
            user_create(email=shared_email, password=TENANT_PASSWORD, role=Role.MEMBER)
    address = "198.51.100.7"
    _guess(Client(HTTP_HOST=alpha.host, REMOTE_ADDR=address), shared_email)
    assert (
        _portal_login(Client(HTTP_HOST=alpha.host, REMOTE_ADDR=address), shared_email, TENANT_PASSWORD).status_code
        == 429
    )

    on_beta = Client(HTTP_HOST=beta.host, REMOTE_ADDR=address)
    assert _portal_login(on_beta, shared_email, TENANT_PASSWORD).status_code == 302

    from axes.models import AccessAttempt

    with schema_context(beta.schema_name):
        assert not AccessAttempt.objects.exists()
    with schema_context(alpha.schema_name):
        assert AccessAttempt.objects.filter(username=shared_email).exists()


def test_operator_admin_is_locked_after_forty_wrong_passwords(db):
    client = Client(HTTP_HOST=PUBLIC_HOST, REMOTE_ADDR="198.51.100.7")
    for attempt in range(GUESSES):
        client.post("/admin/login/", {"username": "operator@example.org", "password": f"falsch-{attempt}"})

    response = client.post(
        "/admin/login/?next=/admin/", {"username": "operator@example.org", "password": TENANT_PASSWORD}
    )

    assert response.status_code == 429
    assert LOCKED in response.content.decode()
    assert client.get("/admin/").status_code == 302  # still the login page


def test_api_key_guessing_locks_the_address_even_for_the_right_key(alpha):
    with schema_context(alpha.schema_name):
        admin = get_user_model().objects.get(username=alpha.admin_email)
        real_key = api_key_create(name="CRM", created_by=admin).plaintext
    guesser = Client(HTTP_HOST=alpha.host, REMOTE_ADDR="198.51.100.7")
    statuses = {
        guesser.get("/api/v1/tenders/", HTTP_AUTHORIZATION=f"Bearer tr_geraten{number:04d}").status_code
        for number in range(GUESSES)
    }
    assert statuses == {401, 429}

    response = guesser.get("/api/v1/tenders/", HTTP_AUTHORIZATION=f"Bearer {real_key}")

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "login_locked"
    assert LOCKED in response.json()["error"]["message"]
    assert int(response["Retry-After"]) > 14 * 60
    partner = Client(HTTP_HOST=alpha.host, REMOTE_ADDR="203.0.113.9")
    assert partner.get("/api/v1/tenders/", HTTP_AUTHORIZATION=f"Bearer {real_key}").status_code == 200


def test_a_forged_forwarded_for_header_does_not_dodge_the_address_limit(alpha):
    attacker = Client(HTTP_HOST=alpha.host, REMOTE_ADDR="198.51.100.7")
    for number in range(GUESSES):
        attacker.post(
            "/konto/anmelden/",
            {"username": f"niemand{number}@alpha.example", "password": "falsch"},
            HTTP_X_FORWARDED_FOR=f"10.0.{number}.1",
        )
    assert _portal_login(attacker, alpha.admin_email, TENANT_PASSWORD).status_code == 429


def test_operators_see_tenant_lockouts_and_can_lift_one(alpha, public_client):
    from tests.fixtures.tenants import operator_sign_in

    _guess(Client(HTTP_HOST=alpha.host, REMOTE_ADDR="198.51.100.7"), alpha.member_email)
    operator_sign_in(public_client)

    assert "Anmeldesperren" in public_client.get("/admin/accounts/tenant/").content.decode()
    page = public_client.get("/admin/accounts/tenant/anmeldesperren/").content.decode()
    assert "Alpha Bau GmbH" in page and alpha.member_email in page and "198.51.100.7" in page

    for kind, value in (("username", alpha.member_email), ("ip_address", "198.51.100.7")):
        lifted = public_client.post(
            "/admin/accounts/tenant/anmeldesperren/", {"schema_name": "alpha", "kind": kind, "value": value}
        )
        assert lifted.status_code == 302
    client = Client(HTTP_HOST=alpha.host, REMOTE_ADDR="198.51.100.7")
    assert _portal_login(client, alpha.member_email, TENANT_PASSWORD).status_code == 302
    assert "Keine Sperren" in public_client.get("/admin/accounts/tenant/anmeldesperren/").content.decode()


def test_tenant_users_cannot_reach_the_lockout_list(alpha, alpha_admin_client):
    assert alpha_admin_client.get("/admin/accounts/tenant/anmeldesperren/").status_code == 404


def test_control_characters_in_stored_headers_or_the_name_never_make_a_failed_sign_in_a_500(alpha):
    client = Client(HTTP_HOST=alpha.host, HTTP_USER_AGENT="Mozilla/5.0\x00evil", HTTP_ACCEPT="text/html\x00\x1b")
    response = _portal_login(client, alpha.member_email, "falsch")
    assert response.status_code == 200  # the form again, with its message
    assert _portal_login(client, "anna\x00@alpha.example", "falsch").status_code == 200
    with schema_context(alpha.schema_name):
        from axes.models import AccessAttempt

        attempts = list(AccessAttempt.objects.values_list("username", "user_agent", "http_accept"))
    assert (alpha.member_email, "Mozilla/5.0evil", "text/html") in attempts
