"""Hostile or careless API input gets a JSON 400 with a message, never a 500 (and never reaches the database)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

TENDERS = "/api/v1/tenders/"
SEARCHES = "/api/v1/saved-searches/"


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"q": "Dach\x00"}, "q"),
        ({"q": "Dach\x1b[2J"}, "q"),
        ({"q": "x" * 301}, "q"),
        ({"cpv": "45\x00"}, "cpv"),
        ({"bundesland": "Bayern\x00"}, "bundesland"),
        ({"portal": "p" * 101}, "portal"),
        ({"value_min": "1e131072"}, "value_min"),
        ({"value_max": "10000000000000000"}, "value_max"),
        ({"deadline_days": "²"}, "deadline_days"),
        ({"deadline_until": "9999-12-31"}, "deadline_until"),
        ({"page": "²"}, "page"),
        ({"page_size": "99999999999999999999"}, "page_size"),
    ],
)
def test_tender_search_refuses_input_the_database_cannot_take(alpha_api, params, field):
    response = alpha_api.get(TENDERS, params)
    assert response.status_code == 400
    body = response.json()["error"]
    assert field in body["fields"] and body["fields"][field][0]


def test_match_list_refuses_a_profile_id_that_is_no_number(alpha_api):
    for raw in ("²", "99999999999999999999999", "1\x00"):
        response = alpha_api.get("/api/v1/matches/", {"saved_search": raw})
        assert response.status_code == 400 and "saved_search" in response.json()["error"]["fields"]
    assert alpha_api.get("/api/v1/matches/", {"since": "2026-01-01\x00"}).status_code == 400


def test_a_tender_id_beyond_the_column_is_not_found(alpha_api):
    assert alpha_api.get(f"{TENDERS}{'9' * 30}/").status_code == 404


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        ({"q": "Dach\x00"}, "filters.q"),
        ({"q": "Dach\ud800"}, "filters.q"),
        ({"value_min": "1e131072"}, "filters.value_min"),
        ({"value_min": 1e300}, "filters.value_min"),
        ({"cpv": ["45000000"] * 101}, "filters.cpv"),
    ],
)
def test_saved_search_filters_are_bounded_on_create_and_update(alpha_api, filters, field):
    response = alpha_api.post(SEARCHES, {"name": "Grenzfall", "filters": filters})
    assert response.status_code == 400, response.content
    assert field in response.json()["error"]["fields"]

    created = alpha_api.post(SEARCHES, {"name": "Ordentlich", "filters": {"q": "Dach"}})
    assert created.status_code == 201
    patched = alpha_api.patch(f"{SEARCHES}{created.json()['id']}/", {"filters": filters})
    assert patched.status_code == 400 and field in patched.json()["error"]["fields"]


def test_saved_search_names_are_checked_and_unique_per_owner(alpha_api, alpha_admin_api):
    assert alpha_api.post(SEARCHES, {"name": "Dach\x00", "filters": {"q": "Dach"}}).status_code == 400
    assert alpha_api.post(SEARCHES, {"name": "Dach", "filters": {"q": "Dach"}}).status_code == 201
    twice = alpha_api.post(SEARCHES, {"name": "  dach ", "filters": {"q": "Dach"}})
    assert twice.status_code == 400
    assert twice.json()["error"]["fields"]["name"] == ["Sie haben bereits ein Suchprofil mit diesem Namen."]
    # Another person may use the same name.
    assert alpha_admin_api.post(SEARCHES, {"name": "Dach", "filters": {"q": "Dach"}}).status_code == 201
