"""Saved searches: create from a search with a preview, edit, delete, shared/private visibility, active_since."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context

from kernel.errors import ApplicationError, PermissionRefused
from notifications.models import SavedSearch, TenderMatch
from notifications.portal.selectors import saved_search_preview
from notifications.portal.services import saved_search_create, saved_search_delete, saved_search_update
from tenders.filters import TenderFilters
from tenders.models import Tender
from tenders.search import DEFAULT_ORDER, tender_search
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory


def _profile(tenant, owner, **overrides) -> SavedSearch:
    values = {"name": "Straßenbau Bayern", "filters": TenderFilters(q="Straßenbau", bundesland=("Bayern",))}
    with schema_context(tenant.schema_name):
        return saved_search_create(owner=owner, **{**values, **overrides})


# --- create with preview ------------------------------------------------------------------------------------


def test_create_page_prefills_filters_and_previews_the_searchs_hits(alpha_client, corpus):
    response = alpha_client.get("/suchprofile/neu/", {"q": "Straßenbau", "bundesland": "Bayern"})
    assert response.status_code == 200
    preview = response.context["preview"]
    # "Bauarbeit an der Straße" is found through the parts of "Straßenbau" (Straße + Bau).
    assert preview.count == 3
    assert {t.title for t in preview.sample} == {
        "Straßenbau Ortsdurchfahrt B 12",
        "Planung Straßenbau Ortsumgehung",
        "Bauarbeit an der Straße Am Anger",
    }
    html = response.content.decode()
    assert "3 Treffer" in html and "Dieselben Treffer wie in der Suche" in html
    # The status default every search means ("laufend") is shown ticked, not left implicit.
    assert 'value="active" id="id_status_0" checked' in html or ('value="active"' in html and "checked" in html)
    assert 'value="Straßenbau"' in html and re.search(r'name="bundesland" value="Bayern"[^>]*checked', html)
    assert 'name="instant_alert" id="id_instant_alert">' in html  # instant alert off by default
    assert 'name="email_enabled" id="id_email_enabled" checked>' in html


def test_preview_shows_the_searchs_hits_and_how_many_are_new_in_30_days(db):
    now = timezone.now()
    notices_ingest(
        records=[NoticeRecordFactory(title="Dachsanierung alt")], now=now - timedelta(days=45), use_fingerprint=False
    )
    notices_ingest(
        records=[NoticeRecordFactory(title="Dachsanierung neu")], now=now - timedelta(days=3), use_fingerprint=False
    )
    filters = TenderFilters(q="Dachsanierung")
    preview = saved_search_preview(filters=filters, now=now)
    assert preview.count == 2 and preview.recent == 1
    # Exactly the hits, in the order, the search page lists for the same filters.
    listed = tender_search(filters=filters, order=DEFAULT_ORDER, now=now)
    assert [t.pk for t in preview.sample] == [t.pk for t in listed]


def test_past_the_bound_the_preview_says_more_than_as_the_search_page_does(alpha_client, corpus, monkeypatch):
    """Both count exactly up to the bound and say "more than" beyond it: never an estimate beside a bound."""
    from tenders.pagination import BoundedCountPaginator

    monkeypatch.setattr(BoundedCountPaginator, "exact_up_to", 2)
    params = {"q": "Straßenbau", "bundesland": "Bayern"}  # three open tenders (see above)
    search = alpha_client.get("/suche/", params).content.decode()
    assert "Mehr als 2 Ausschreibungen gefunden" in search
    response = alpha_client.get("/suchprofile/neu/", params)
    preview = response.context["preview"]
    assert (preview.count, preview.bound, preview.more_than_bound) == (3, 2, True)
    html = response.content.decode()
    assert "Mehr als 2 Treffer" in html and "3 Treffer" not in html
    monkeypatch.setattr(BoundedCountPaginator, "exact_up_to", 3)
    assert "3 Treffer" in alpha_client.get("/suchprofile/neu/", params).content.decode()


def test_preview_fragment_for_htmx(alpha_client, corpus):
    response = alpha_client.get("/suchprofile/vorschau/", {"cpv": "90"})
    assert response.status_code == 200
    assert "2 Treffer" in response.content.decode()
    assert "Bitte prüfen" in alpha_client.get("/suchprofile/vorschau/", {"cpv": "x"}).content.decode()


def test_create_saves_filters_and_starts_now(alpha, alpha_client, alpha_member, corpus):
    before = timezone.now()
    response = alpha_client.post(
        "/suchprofile/neu/",
        {
            "name": "  Straßenbau   Bayern ",
            "q": "Straßenbau",
            "bundesland": "Bayern",
            "cpv": "45, 71",
            "value_min": "100000",
        },
    )
    assert response.status_code == 302
    with schema_context(alpha.schema_name):
        profile = SavedSearch.objects.get()
    assert response["Location"] == f"/suchprofile/{profile.pk}/"
    assert profile.owner_id == alpha_member.pk
    assert profile.name == "Straßenbau Bayern"
    assert profile.filters == {"q": "Straßenbau", "bundesland": ["Bayern"], "cpv": ["45", "71"], "value_min": "100000"}
    assert TenderFilters.from_json(profile.filters).value_min == 100000
    assert profile.instant_alert is False and profile.is_shared is False and profile.is_active
    assert before <= profile.active_since <= timezone.now()


def test_create_with_preview_button_does_not_save(alpha, alpha_client, corpus):
    response = alpha_client.post("/suchprofile/neu/", {"name": "Test", "q": "Müll", "preview": "1"})
    assert response.status_code == 200 and response.context["preview"].count == 1
    with schema_context(alpha.schema_name):
        assert not SavedSearch.objects.exists()


@pytest.mark.parametrize(
    "data, field",
    [({"name": "", "q": "Dach"}, "name"), ({"name": "x", "plz": "abc"}, "plz"), ({"name": "x"}, "__all__")],
)
def test_create_rejects_invalid_input(alpha, alpha_client, corpus, data, field):
    response = alpha_client.post("/suchprofile/neu/", data)
    assert response.status_code == 400
    errors = {**response.context["settings_form"].errors, **response.context["filter_form"].errors}
    assert field in errors
    with schema_context(alpha.schema_name):
        assert not SavedSearch.objects.exists()


def test_instant_alert_toggle(alpha, alpha_client, corpus):
    alpha_client.post("/suchprofile/neu/", {"name": "Sofort", "q": "Müll", "instant_alert": "on"})
    with schema_context(alpha.schema_name):
        assert SavedSearch.objects.get().instant_alert is True


# --- edit, re-activation, delete ---------------------------------------------------------------------------------


def test_owner_edits_filters_and_settings(alpha, alpha_client, alpha_member, corpus):
    profile = _profile(alpha, alpha_member)
    page = alpha_client.get(f"/suchprofile/{profile.pk}/bearbeiten/")
    assert page.status_code == 200
    assert 'value="Straßenbau Bayern"' in page.content.decode()
    assert page.context["preview"].count == 3  # with "Bauarbeit an der Straße" (Straße + Bau)
    response = alpha_client.post(
        f"/suchprofile/{profile.pk}/bearbeiten/",
        {"name": "Nur Passau", "q": "Straßenbau", "plz": "94", "instant_alert": "on", "is_active": "on"},
    )
    assert response.status_code == 302
    with schema_context(alpha.schema_name):
        profile.refresh_from_db()
    assert profile.name == "Nur Passau" and profile.filters == {"q": "Straßenbau", "plz": "94"}
    assert profile.instant_alert is True


def test_pausing_keeps_and_reactivating_restarts_active_since(alpha, alpha_member):
    start = timezone.now() - timedelta(days=10)
    profile = _profile(alpha, alpha_member, now=start)
    assert profile.active_since == start
    common = {
        "name": "x",
        "filters": TenderFilters(q="Dach"),
        "is_shared": False,
        "instant_alert": False,
        "email_enabled": True,
    }
    with schema_context(alpha.schema_name):
        paused = saved_search_update(
            saved_search=profile, actor=alpha_member, is_active=False, **common, now=start + timedelta(days=1)
        )
        assert paused.active_since == start
        still = saved_search_update(saved_search=profile, actor=alpha_member, is_active=False, **common)
        assert still.active_since == start
        later = start + timedelta(days=5)
        again = saved_search_update(saved_search=profile, actor=alpha_member, is_active=True, **common, now=later)
        assert again.active_since == later
        edited = saved_search_update(saved_search=profile, actor=alpha_member, is_active=True, **common)
        assert edited.active_since == later  # an edit of an active profile is no re-activation


def test_delete_with_confirmation(alpha, alpha_client, alpha_member, corpus):
    profile = _profile(alpha, alpha_member)
    with schema_context(alpha.schema_name):
        TenderMatch.objects.create(saved_search=profile, tender_id=corpus["planung"], matched_at=timezone.now())
    assert "Suchprofil löschen?" in alpha_client.get(f"/suchprofile/{profile.pk}/loeschen/").content.decode()
    response = alpha_client.post(f"/suchprofile/{profile.pk}/loeschen/")
    assert response.status_code == 302 and response["Location"] == "/suchprofile/"
    with schema_context(alpha.schema_name):
        assert not SavedSearch.objects.exists() and not TenderMatch.objects.exists()
    assert Tender.objects.filter(pk=corpus["planung"]).exists()


# --- visibility and permissions ----------------------------------------------------------------------------------


def test_private_profile_of_another_user_does_not_exist(alpha, alpha_client, alpha_admin_client, alpha_admin):
    private = _profile(alpha, alpha_admin, name="Geheim")
    for url in ("/suchprofile/{}/", "/suchprofile/{}/bearbeiten/", "/suchprofile/{}/loeschen/"):
        assert alpha_client.get(url.format(private.pk)).status_code == 404
    assert alpha_client.post(f"/suchprofile/{private.pk}/loeschen/").status_code == 404
    assert "Geheim" not in alpha_client.get("/suchprofile/").content.decode()
    assert "Geheim" in alpha_admin_client.get("/suchprofile/").content.decode()


def test_shared_profile_is_read_only_for_members(alpha, alpha_client, alpha_admin):
    shared = _profile(alpha, alpha_admin, name="Team-Profil", is_shared=True)
    listing = alpha_client.get("/suchprofile/")
    assert [row["profile"].name for row in listing.context["shared"]] == ["Team-Profil"]
    assert listing.context["shared"][0]["can_edit"] is False
    detail = alpha_client.get(f"/suchprofile/{shared.pk}/")
    assert detail.status_code == 200 and detail.context["can_edit"] is False
    assert "Straßenbau" in detail.content.decode()
    assert alpha_client.get(f"/suchprofile/{shared.pk}/bearbeiten/").status_code == 403
    assert alpha_client.post(f"/suchprofile/{shared.pk}/loeschen/").status_code == 403
    with schema_context(alpha.schema_name):
        assert SavedSearch.objects.filter(pk=shared.pk).exists()


def test_tenant_admin_edits_a_members_shared_profile_but_not_a_private_one(
    alpha, alpha_admin_client, alpha_member, alpha_admin
):
    shared = _profile(alpha, alpha_member, name="Von Member geteilt", is_shared=True)
    private = _profile(alpha, alpha_member, name="Privat")
    response = alpha_admin_client.post(
        f"/suchprofile/{shared.pk}/bearbeiten/",
        {"name": "Vom Admin", "q": "Dach", "is_shared": "on", "is_active": "on"},
    )
    assert response.status_code == 302
    with schema_context(alpha.schema_name):
        shared.refresh_from_db()
        assert shared.name == "Vom Admin" and shared.owner_id == alpha_member.pk
    assert alpha_admin_client.get(f"/suchprofile/{private.pk}/bearbeiten/").status_code == 404


def test_services_enforce_permissions_too(alpha, alpha_member, alpha_admin):
    private = _profile(alpha, alpha_admin, name="Admin privat")
    shared = _profile(alpha, alpha_admin, name="Admin geteilt", is_shared=True)
    with schema_context(alpha.schema_name):
        for profile in (private, shared):
            with pytest.raises(PermissionRefused, match="nur sein Eigentümer oder ein Administrator löschen"):
                saved_search_delete(saved_search=profile, actor=alpha_member)
            with pytest.raises(PermissionRefused, match="nur sein Eigentümer oder ein Administrator ändern"):
                saved_search_update(
                    saved_search=profile,
                    actor=alpha_member,
                    name="x",
                    filters=TenderFilters(q="x"),
                    is_shared=True,
                    instant_alert=False,
                    email_enabled=True,
                    is_active=True,
                )
        with pytest.raises(ApplicationError) as caught:
            saved_search_create(owner=alpha_member, name="leer", filters=TenderFilters())
        assert list(caught.value.fields) == ["filters"] and caught.value.status == 400


def test_profiles_of_one_tenant_are_unknown_to_another(alpha, beta_client, beta_admin_client, alpha_member):
    shared = _profile(alpha, alpha_member, name="Alpha geteilt", is_shared=True)
    for client in (beta_client, beta_admin_client):
        assert client.get(f"/suchprofile/{shared.pk}/").status_code == 404
        assert client.get(f"/suchprofile/{shared.pk}/bearbeiten/").status_code == 404
        assert client.post(f"/suchprofile/{shared.pk}/loeschen/").status_code == 404
        assert "Alpha geteilt" not in client.get("/suchprofile/").content.decode()


def test_profile_page_shows_recent_matches_and_a_search_link(alpha, alpha_client, alpha_member, corpus):
    profile = _profile(alpha, alpha_member)
    with schema_context(alpha.schema_name):
        TenderMatch.objects.create(saved_search=profile, tender_id=corpus["ortsdurchfahrt"], matched_at=timezone.now())
    html = alpha_client.get(f"/suchprofile/{profile.pk}/").content.decode()
    assert "Straßenbau Ortsdurchfahrt B 12" in html
    assert "/suche/?q=Stra%C3%9Fenbau&amp;bundesland=Bayern" in html
    detail = alpha_client.get(f"/ausschreibung/{corpus['ortsdurchfahrt']}/").content.decode()
    assert f"/suchprofile/{profile.pk}/" in detail  # "Passende Suchprofile"


def test_empty_profile_list_says_what_to_do(alpha_client, db):
    assert "Als Suchprofil speichern" in alpha_client.get("/suchprofile/").content.decode()
