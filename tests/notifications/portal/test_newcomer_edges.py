"""Small things a newcomer meets: a warning when instant alerts cannot be mailed, sources by their names."""

from __future__ import annotations

from django_tenants.utils import schema_context

from notifications.models import SmtpSettings
from notifications.portal.services import saved_search_create
from tenders.filters import TenderFilters


def _instant_profile(alpha, email):
    from django.contrib.auth import get_user_model

    with schema_context(alpha.schema_name):
        owner = get_user_model().objects.get(username=email)
        saved_search_create(owner=owner, name="Bau sofort", filters=TenderFilters(q="Bau"), instant_alert=True)


def test_banner_when_instant_alerts_are_on_but_no_mail_route(alpha, alpha_client, alpha_admin_client, settings):
    settings.ALERTS_PLATFORM_ESP_ENABLED = False
    assert 'data-testid="mail-route-missing"' not in alpha_client.get("/").content.decode()
    _instant_profile(alpha, alpha.member_email)
    member_page = alpha_client.get("/").content.decode()
    assert 'data-testid="mail-route-missing"' in member_page and "Administratorin" in member_page
    admin_page = alpha_admin_client.get("/suchprofile/").content.decode()
    assert 'href="/einstellungen/smtp/"' in admin_page
    with schema_context(alpha.schema_name):
        SmtpSettings.objects.create(host="mail.alpha.example", port=587, from_email="radar@alpha.example")
    assert 'data-testid="mail-route-missing"' not in alpha_client.get("/").content.decode()


def test_the_tender_page_names_sources_not_keys(alpha, alpha_client):
    from sources.demo import demo_sample_load
    from tenders.models import TenderSource

    load = demo_sample_load()
    tender_id = TenderSource.objects.filter(source="ted", tender_id__in=load.tender_ids).values_list(
        "tender_id", flat=True
    )[0]
    page = alpha_client.get(f"/ausschreibung/{tender_id}/").content.decode()
    assert "TED – Tenders Electronic Daily (API v3)" in page
    assert "<td>ted</td>" not in page
