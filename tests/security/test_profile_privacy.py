"""A member's private profile name stays private from admins on the pages that list everyone's things."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import Delivery, SavedSearch, Webhook

SECRET_NAME = "Geheimprojekt Nordbahn"


@pytest.fixture
def private_profile(alpha):
    with schema_context(alpha.schema_name):
        member = get_user_model().objects.get(username=alpha.member_email)
        profile = SavedSearch.objects.create(
            owner=member, name=SECRET_NAME, filters={"q": "Gleis"}, active_since=timezone.now() - timedelta(days=1)
        )
        Delivery.objects.create(
            kind="instant", user=member, saved_search=profile, dedupe_key="privacy-1", recipient=member.email,
            subject=f"2 neue Ausschreibungen für „{SECRET_NAME}“", text_body="…", next_attempt_at=timezone.now(),
        )  # fmt: skip
        webhook = Webhook.objects.create(
            saved_search=profile, created_by=member, url="https://crm.example/hook", secret="s"
        )
    return profile, webhook


@pytest.mark.parametrize("path", ["/einstellungen/zustellungen/", "/einstellungen/webhooks/", "webhook-detail"])
def test_admin_pages_hide_a_members_private_profile_name(alpha_admin_client, private_profile, path):
    _profile, webhook = private_profile
    if path == "webhook-detail":
        path = f"/einstellungen/webhooks/{webhook.pk}/"
    page = alpha_admin_client.get(path)
    assert page.status_code == 200
    body = page.content.decode()
    assert SECRET_NAME not in body
    assert "privates Suchprofil" in body


def test_once_shared_the_name_shows(alpha, alpha_admin_client, private_profile):
    profile, _webhook = private_profile
    with schema_context(alpha.schema_name):
        SavedSearch.objects.filter(pk=profile.pk).update(is_shared=True)
    for path in ("/einstellungen/zustellungen/", "/einstellungen/webhooks/"):
        assert SECRET_NAME in alpha_admin_client.get(path).content.decode()
