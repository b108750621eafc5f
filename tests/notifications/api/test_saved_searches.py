"""Saved searches through the API: validated by the portal's filter rules, visible = own + shared, own-only writes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import SavedSearch


def _saved_search(test_tenant, email: str, **fields) -> SavedSearch:
    with schema_context(test_tenant.schema_name):
        owner = get_user_model().objects.get(username=email)
        defaults = {"name": "Profil", "filters": {"q": "Dach"}, "active_since": timezone.now() - timedelta(days=30)}
        return SavedSearch.objects.create(owner=owner, **{**defaults, **fields})


def _stored(test_tenant, pk: int) -> SavedSearch:
    with schema_context(test_tenant.schema_name):
        return SavedSearch.objects.select_related("owner").get(pk=pk)


def test_create_normalises_filters_and_starts_now(alpha, alpha_api):
    before = timezone.now()
    response = alpha_api.post(
        "/api/v1/saved-searches/",
        {"name": "  Dächer in Bayern ", "filters": {"q": "Dach", "cpv": ["45261210-5", "45"], "bundesland": "bayern"}},
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["name"] == "Dächer in Bayern"
    assert body["filters"] == {"q": "Dach", "cpv": ["45261210", "45"], "bundesland": ["Bayern"]}
    assert body["is_own"] is True and body["owner"] == alpha.member_email
    assert (body["is_active"], body["is_shared"], body["instant_alert"], body["email_enabled"]) == (
        True,
        False,
        False,
        True,
    )
    stored = _stored(alpha, body["id"])
    assert stored.owner.username == alpha.member_email
    assert before <= stored.active_since <= timezone.now()
    assert stored.filters == body["filters"]


@pytest.mark.parametrize(
    ("filters", "fields"),
    [
        ({"cpv": "4"}, {"filters.cpv"}),
        ({"plz": "8o331", "status": ["offen"]}, {"filters.plz", "filters.status"}),
        ({"stichwort": "Dach"}, {"filters.stichwort"}),
        ({"q": {"nested": 1}}, {"filters.q"}),
        ("Dach", {"filters"}),
    ],
)
def test_invalid_filters_are_400_per_parameter(alpha, alpha_api, filters, fields):
    response = alpha_api.post("/api/v1/saved-searches/", {"name": "X", "filters": filters})
    assert response.status_code == 400
    error = response.json()["error"]
    assert set(error["fields"]) == fields
    with schema_context(alpha.schema_name):
        assert not SavedSearch.objects.filter(name="X").exists()


def test_missing_name_is_400(alpha_api):
    response = alpha_api.post("/api/v1/saved-searches/", {"filters": {}})
    assert response.status_code == 400 and set(response.json()["error"]["fields"]) == {"name"}


def test_list_shows_own_and_shared_but_not_colleagues_private(alpha, alpha_api):
    own = _saved_search(alpha, alpha.member_email, name="A eigenes")
    shared = _saved_search(alpha, alpha.admin_email, name="B geteilt", is_shared=True)
    private = _saved_search(alpha, alpha.admin_email, name="C privat")
    body = alpha_api.get("/api/v1/saved-searches/").json()
    assert [(row["id"], row["is_own"]) for row in body["results"]] == [(own.pk, True), (shared.pk, False)]
    assert alpha_api.get(f"/api/v1/saved-searches/{private.pk}/").status_code == 404
    assert alpha_api.get(f"/api/v1/saved-searches/{shared.pk}/").status_code == 200


def test_shared_search_of_a_colleague_is_read_only(alpha, alpha_api):
    shared = _saved_search(alpha, alpha.admin_email, name="geteilt", is_shared=True)
    for response in (
        alpha_api.patch(f"/api/v1/saved-searches/{shared.pk}/", {"name": "übernommen"}),
        alpha_api.put(f"/api/v1/saved-searches/{shared.pk}/", {"name": "übernommen", "filters": {}}),
        alpha_api.delete(f"/api/v1/saved-searches/{shared.pk}/"),
    ):
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "permission_denied"
    assert _stored(alpha, shared.pk).name == "geteilt"


def test_a_tenant_admin_may_edit_shared_profiles_as_in_the_portal(alpha, alpha_admin_api):
    shared = _saved_search(alpha, alpha.member_email, name="geteilt", is_shared=True)
    private = _saved_search(alpha, alpha.member_email, name="privat")
    response = alpha_admin_api.patch(f"/api/v1/saved-searches/{shared.pk}/", {"name": "gepflegt"})
    assert response.status_code == 200 and _stored(alpha, shared.pk).name == "gepflegt"
    assert alpha_admin_api.patch(f"/api/v1/saved-searches/{private.pk}/", {"name": "x"}).status_code == 404


def test_update_and_reactivation_restarts_active_since(alpha, alpha_api):
    own = _saved_search(alpha, alpha.member_email, name="alt")
    original_since = own.active_since
    response = alpha_api.patch(
        f"/api/v1/saved-searches/{own.pk}/", {"name": "neu", "filters": {"bundesland": "Berlin"}}
    )
    assert response.status_code == 200, response.content
    assert response.json()["filters"] == {"bundesland": ["Berlin"]}
    assert _stored(alpha, own.pk).active_since == original_since  # a rename is no re-activation

    alpha_api.patch(f"/api/v1/saved-searches/{own.pk}/", {"is_active": False})
    assert _stored(alpha, own.pk).active_since == original_since
    before = timezone.now()
    body = alpha_api.patch(f"/api/v1/saved-searches/{own.pk}/", {"is_active": True}).json()
    assert body["is_active"] is True
    assert _stored(alpha, own.pk).active_since >= before


def test_put_replaces_and_validates(alpha, alpha_api):
    own = _saved_search(alpha, alpha.member_email)
    bad = alpha_api.put(f"/api/v1/saved-searches/{own.pk}/", {"name": "ohne Filter"})
    assert bad.status_code == 400 and set(bad.json()["error"]["fields"]) == {"filters"}
    good = alpha_api.put(f"/api/v1/saved-searches/{own.pk}/", {"name": "ersetzt", "filters": {"plz": "80"}})
    assert good.status_code == 200
    assert _stored(alpha, own.pk).filters == {"plz": "80"}


def test_delete_own(alpha, alpha_api):
    own = _saved_search(alpha, alpha.member_email)
    assert alpha_api.delete(f"/api/v1/saved-searches/{own.pk}/").status_code == 204
    with schema_context(alpha.schema_name):
        assert not SavedSearch.objects.filter(pk=own.pk).exists()
    assert alpha_api.delete(f"/api/v1/saved-searches/{own.pk}/").status_code == 404
