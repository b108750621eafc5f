"""Matches through the API: only of visible saved searches, filterable by search and time, tender in its one shape."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django_tenants.utils import schema_context

from kernel.vocabulary.time_zone import BERLIN
from notifications.models import SavedSearch, TenderMatch
from tenders.representation import tender_representation
from tenders.selectors import tender_with_history
from tests.factories.records import NoticeRecordFactory
from tests.notifications.api.conftest import ingest

T0 = datetime(2026, 9, 2, 8, 0, tzinfo=BERLIN)


@pytest.fixture
def matched(alpha):
    tender_ids = ingest(*[NoticeRecordFactory() for _ in range(3)])
    with schema_context(alpha.schema_name):
        users = get_user_model().objects
        member, admin = users.get(username=alpha.member_email), users.get(username=alpha.admin_email)
        own = SavedSearch.objects.create(owner=member, name="eigen", filters={}, active_since=T0)
        shared = SavedSearch.objects.create(owner=admin, name="geteilt", filters={}, is_shared=True, active_since=T0)
        private = SavedSearch.objects.create(owner=admin, name="privat", filters={}, active_since=T0)
        rows = {
            "own_old": TenderMatch.objects.create(saved_search=own, tender_id=tender_ids[0], matched_at=T0),
            "own_new": TenderMatch.objects.create(
                saved_search=own, tender_id=tender_ids[1], matched_at=T0 + timedelta(hours=2)
            ),
            "shared": TenderMatch.objects.create(
                saved_search=shared, tender_id=tender_ids[2], matched_at=T0 + timedelta(hours=1)
            ),
            "private": TenderMatch.objects.create(
                saved_search=private, tender_id=tender_ids[0], matched_at=T0 + timedelta(hours=3)
            ),
        }
    return {"own": own, "shared": shared, "private": private, "matches": rows, "tenders": tender_ids}


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


def test_matches_of_visible_searches_newest_first(alpha_api, matched):
    m = matched["matches"]
    body = alpha_api.get("/api/v1/matches/").json()
    assert [row["id"] for row in body["results"]] == [m["own_new"].pk, m["shared"].pk, m["own_old"].pk]
    first = body["results"][0]
    assert first["saved_search"] == {"id": matched["own"].pk, "name": "eigen"}
    assert first["tender"] == tender_representation(tender_with_history().get(pk=matched["tenders"][1]))
    assert first["matched_at"].startswith("2026-09-02T10:00:00")


def test_filter_by_saved_search_and_since(alpha_api, matched):
    m = matched["matches"]
    own = matched["own"].pk
    assert _ids(alpha_api.get("/api/v1/matches/", {"saved_search": own})) == [m["own_new"].pk, m["own_old"].pk]
    assert _ids(alpha_api.get("/api/v1/matches/", {"since": "2026-09-02T08:30:00+02:00"})) == [
        m["own_new"].pk,
        m["shared"].pk,
    ]
    # Without an offset a time is read as Europe/Berlin; a date means its start.
    assert _ids(alpha_api.get("/api/v1/matches/", {"since": "2026-09-02T08:30:00"})) == [
        m["own_new"].pk,
        m["shared"].pk,
    ]
    assert len(_ids(alpha_api.get("/api/v1/matches/", {"since": "2026-09-02"}))) == 3
    assert _ids(alpha_api.get("/api/v1/matches/", {"since": "2026-09-03"})) == []


@pytest.mark.parametrize(
    ("params", "field"),
    [({"since": "gestern"}, "since"), ({"since": "2026-13-01"}, "since"), ({"saved_search": "abc"}, "saved_search")],
)
def test_invalid_parameters_are_400(alpha_api, matched, params, field):
    response = alpha_api.get("/api/v1/matches/", params)
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {field}


def test_matches_of_a_colleagues_private_search_are_not_reachable(alpha_api, matched):
    response = alpha_api.get("/api/v1/matches/", {"saved_search": matched["private"].pk})
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"saved_search": ["Unbekanntes Suchprofil."]}


def _follow(api, url: str, params=None) -> tuple[list[int], list[dict]]:
    """Every id reachable by following ``next`` from ``url``, and each page's body."""
    ids, pages = [], []
    response = api.get(url, params)
    while True:
        assert response.status_code == 200, response.content
        body = response.json()
        pages.append(body)
        ids += [row["id"] for row in body["results"]]
        if not body["next"]:
            return ids, pages
        response = api.get(body["next"])


def test_pages_follow_a_cursor_without_counting(alpha_api, matched):
    m = matched["matches"]
    ids, pages = _follow(alpha_api, "/api/v1/matches/", {"page_size": 1})
    assert ids == [m["own_new"].pk, m["shared"].pk, m["own_old"].pk]
    assert [len(page["results"]) for page in pages] == [1, 1, 1]
    assert all("cursor=" in page["next"] for page in pages[:-1])
    assert pages[0]["previous"] is None and pages[-1]["previous"] is not None
    assert "count" not in pages[0] and "page=" not in pages[0]["next"]
    back = alpha_api.get(pages[-1]["previous"]).json()
    assert [row["id"] for row in back["results"]] == [m["shared"].pk]


def test_matches_inserted_while_paging_shift_no_page(alpha_api, alpha, matched):
    """A partner pages back while new matches arrive: every older match once, none twice, none lost."""
    m = matched["matches"]
    own = matched["own"]
    with schema_context(alpha.schema_name):
        # Same time as an existing row: the id breaks the tie, so a boundary inside equal times holds.
        twin = TenderMatch.objects.create(
            saved_search=matched["shared"], tender_id=matched["tenders"][0], matched_at=T0 + timedelta(hours=1)
        )
    first = alpha_api.get("/api/v1/matches/", {"page_size": 2}).json()
    assert [row["id"] for row in first["results"]] == [m["own_new"].pk, twin.pk]

    with schema_context(alpha.schema_name):
        newer = [
            TenderMatch.objects.create(
                saved_search=own, tender_id=tender_id, matched_at=T0 + timedelta(hours=5, minutes=n)
            )
            for n, tender_id in enumerate(ingest(*[NoticeRecordFactory() for _ in range(3)]))
        ]
    rest, _pages = _follow(alpha_api, first["next"])
    assert rest == [m["shared"].pk, m["own_old"].pk]

    everything, _pages = _follow(alpha_api, "/api/v1/matches/", {"page_size": 2})
    assert everything == [
        *reversed([row.pk for row in newer]),
        m["own_new"].pk,
        twin.pk,
        m["shared"].pk,
        m["own_old"].pk,
    ]


@pytest.mark.parametrize(
    ("params", "field"),
    [({"cursor": "kaputt"}, "cursor"), ({"page_size": "0"}, "page_size"), ({"page_size": "201"}, "page_size")],
)
def test_a_broken_cursor_or_page_size_is_400(alpha_api, matched, params, field):
    response = alpha_api.get("/api/v1/matches/", params)
    assert response.status_code == 400, response.content
    assert set(response.json()["error"]["fields"]) == {field}
