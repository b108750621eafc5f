"""An API write that succeeded answers with the saved state, even when it took the object out of sight."""

from __future__ import annotations

from tests.notifications.api.test_saved_searches import _saved_search, _stored


def test_admin_making_a_shared_profile_private_gets_200_with_the_saved_body(alpha, alpha_admin_api):
    shared = _saved_search(alpha, alpha.member_email, name="geteilt", is_shared=True)

    response = alpha_admin_api.patch(f"/api/v1/saved-searches/{shared.pk}/", {"is_shared": False})

    assert response.status_code == 200, response.content
    assert response.json()["id"] == shared.pk
    assert response.json()["is_shared"] is False
    assert _stored(alpha, shared.pk).is_shared is False
    # From now on it is the member's private profile: the admin no longer sees it.
    assert alpha_admin_api.get(f"/api/v1/saved-searches/{shared.pk}/").status_code == 404


def test_owner_making_own_profile_private_gets_the_saved_body(alpha, alpha_api):
    own = _saved_search(alpha, alpha.member_email, name="meins", is_shared=True)
    response = alpha_api.patch(f"/api/v1/saved-searches/{own.pk}/", {"is_shared": False, "name": "nur meins"})
    assert response.status_code == 200
    assert (response.json()["name"], response.json()["is_shared"]) == ("nur meins", False)
