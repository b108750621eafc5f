"""A departed person is out at once: session, API key, calendar link and unsent mail; the tenant keeps an admin."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.alerts.deliveries import RECIPIENT_INACTIVE_REASON
from notifications.api.services import api_key_create
from notifications.models import ApiKey, Delivery, DeliveryStatus, UserPreference
from notifications.preferences.services import user_preference_calendar_token_rotate
from tests.fixtures.tenants import TENANT_PASSWORD


def _user(test_tenant, email):
    with schema_context(test_tenant.schema_name):
        return get_user_model().objects.get(username=email)


def _member_credentials(alpha):
    member = _user(alpha, alpha.member_email)
    with schema_context(alpha.schema_name):
        key = api_key_create(name="Skript", created_by=member).plaintext
        token = user_preference_calendar_token_rotate(user=member)
        pending = Delivery.objects.create(
            kind="instant", user=member, dedupe_key="deact-1", recipient=member.email, subject="Treffer",
            text_body="…", next_attempt_at=timezone.now(),
        )  # fmt: skip
    return member, key, token, pending


def test_deactivating_ends_session_api_key_calendar_and_pending_mail_at_once(alpha, alpha_client, alpha_admin_client):
    member, key, token, pending = _member_credentials(alpha)
    api = Client(HTTP_HOST=alpha.host, HTTP_AUTHORIZATION=f"Bearer {key}")
    assert alpha_client.get("/").status_code == 200
    assert api.get("/api/v1/saved-searches/").status_code == 200
    assert Client(HTTP_HOST=alpha.host).get(f"/kalender/{token}.ics").status_code == 200

    response = alpha_admin_client.post(f"/konto/team/{member.pk}/deaktivieren/")

    assert response.status_code == 302
    assert alpha_client.get("/").status_code == 302  # the open session is gone
    assert api.get("/api/v1/saved-searches/").status_code == 401
    assert Client(HTTP_HOST=alpha.host).get(f"/kalender/{token}.ics").status_code == 404
    signing_in = Client(HTTP_HOST=alpha.host).post(
        "/konto/anmelden/", {"username": alpha.member_email, "password": TENANT_PASSWORD}
    )
    assert signing_in.status_code == 200  # form again, no session
    with schema_context(alpha.schema_name):
        assert ApiKey.objects.get(created_by=member).revoked_at is not None
        assert UserPreference.objects.get(user=member).calendar_token_hash is None
        dropped = Delivery.objects.get(pk=pending.pk)
        assert (dropped.status, dropped.last_error) == (DeliveryStatus.FAILED, RECIPIENT_INACTIVE_REASON)
        assert not [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(member.pk)]


def test_deactivation_stays_in_its_tenant(alpha, beta, alpha_admin_client, beta_client):
    member = _user(alpha, alpha.member_email)
    alpha_admin_client.post(f"/konto/team/{member.pk}/deaktivieren/")
    assert beta_client.get("/").status_code == 200
    assert _user(beta, beta.member_email).is_active


def test_reactivation_restores_sign_in_but_not_the_revoked_key(alpha, alpha_admin_client):
    member, key, _token, _pending = _member_credentials(alpha)
    alpha_admin_client.post(f"/konto/team/{member.pk}/deaktivieren/")
    alpha_admin_client.post(f"/konto/team/{member.pk}/reaktivieren/")

    client = Client(HTTP_HOST=alpha.host)
    assert (
        client.post("/konto/anmelden/", {"username": alpha.member_email, "password": TENANT_PASSWORD}).status_code
        == 302
    )
    api = Client(HTTP_HOST=alpha.host, HTTP_AUTHORIZATION=f"Bearer {key}")
    assert api.get("/api/v1/saved-searches/").status_code == 401


def test_the_last_admin_can_neither_leave_nor_step_down(alpha, alpha_admin_client):
    admin = _user(alpha, alpha.admin_email)

    refused = alpha_admin_client.post(f"/konto/team/{admin.pk}/deaktivieren/", follow=True)
    assert "mindestens einen aktiven Administrator" in refused.content.decode()
    refused = alpha_admin_client.post(f"/konto/team/{admin.pk}/rolle/", {"role": "member"}, follow=True)
    assert "mindestens einen aktiven Administrator" in refused.content.decode()
    assert _user(alpha, alpha.admin_email).is_active
    assert alpha_admin_client.get("/konto/team/").status_code == 200  # still an admin


def test_with_a_second_admin_the_first_may_step_down(alpha, alpha_admin_client):
    member, admin = _user(alpha, alpha.member_email), _user(alpha, alpha.admin_email)
    alpha_admin_client.post(f"/konto/team/{member.pk}/rolle/", {"role": "admin"})
    alpha_admin_client.post(f"/konto/team/{admin.pk}/rolle/", {"role": "member"})
    assert alpha_admin_client.get("/konto/team/").status_code == 403


def test_members_cannot_use_team_actions(alpha, alpha_client):
    admin = _user(alpha, alpha.admin_email)
    assert alpha_client.post(f"/konto/team/{admin.pk}/deaktivieren/").status_code == 403
    assert alpha_client.post(f"/konto/team/{admin.pk}/rolle/", {"role": "member"}).status_code == 403
    assert _user(alpha, alpha.admin_email).is_active


def test_unknown_role_or_person_is_refused(alpha, alpha_admin_client):
    member = _user(alpha, alpha.member_email)
    bad = alpha_admin_client.post(f"/konto/team/{member.pk}/rolle/", {"role": "owner"}, follow=True)
    assert "Unbekannte Rolle" in bad.content.decode()
    assert alpha_admin_client.post("/konto/team/999999/deaktivieren/").status_code == 404
