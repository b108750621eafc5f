"""A saved search that matching skips says so: to its owner on the profile, to the tenant admin in the settings."""

from __future__ import annotations

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import SavedSearch
from notifications.portal.services import saved_search_update
from tenders.filters import TenderFilters
from tests.notifications.alerts.helpers import saved_search

pytestmark = pytest.mark.django_db

REASON = "Die Datenbank konnte das Suchprofil nicht auswerten (numeric field overflow). Bitte die Filter prüfen."


def _failing(tenant, owner, *, name: str, shared: bool = False) -> SavedSearch:
    with schema_context(tenant.schema_name):
        search = saved_search(owner, name=name, q="Dach")
        SavedSearch.objects.filter(pk=search.pk).update(
            failing_since=timezone.now(), failing_reason=REASON, is_shared=shared
        )
        search.refresh_from_db()
        return search


def test_the_owner_sees_the_reason_on_the_profile_and_in_the_list(alpha, alpha_client, alpha_member):
    search = _failing(alpha, alpha_member, name="Überlauf")
    detail = alpha_client.get(f"/suchprofile/{search.pk}/").content.decode()
    assert 'data-testid="profile-failing"' in detail and REASON in detail
    assert "beim Abgleich übersprungen" in detail
    listing = alpha_client.get("/suchprofile/").content.decode()
    assert 'data-testid="profile-failing"' in listing


def test_the_tenant_admin_sees_every_failing_profile_without_private_names(
    alpha, alpha_admin_client, alpha_client, alpha_member
):
    _failing(alpha, alpha_member, name="Geheimprojekt")
    _failing(alpha, alpha_member, name="Teamprofil", shared=True)
    for path in ("/einstellungen/", "/einstellungen/zustellungen/"):
        page = alpha_admin_client.get(path).content.decode()
        assert 'data-testid="failing-profiles"' in page
        assert "Teamprofil" in page and "Geheimprojekt" not in page
        assert page.count(REASON) == 2 and "privates Suchprofil" in page
    # Members do not get the company-wide list.
    assert 'data-testid="failing-profiles"' not in alpha_client.get("/einstellungen/").content.decode()


def test_saving_new_filters_clears_the_mark(alpha, alpha_member):
    search = _failing(alpha, alpha_member, name="Überlauf")
    with schema_context(alpha.schema_name):
        saved_search_update(saved_search=search, actor=alpha_member, filters=TenderFilters(q="Dachsanierung"))
        search.refresh_from_db()
    assert (search.failing_since, search.failing_reason) == (None, "")
