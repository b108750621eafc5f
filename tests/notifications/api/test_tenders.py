"""Tender search and detail: the portal's filters, orderings, pages without counts, the one public shape."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kernel.vocabulary.time_zone import BERLIN
from tenders.filter_query import filters_q
from tenders.filters import parse_filters
from tenders.models import Tender
from tenders.representation import tender_representation
from tenders.selectors import tender_with_history
from tests.factories.records import NoticeRecordFactory
from tests.notifications.api.conftest import ingest

SOON = datetime(2030, 1, 10, 12, 0, tzinfo=BERLIN)


@pytest.fixture
def tenders(db):
    roof, it, road = ingest(
        NoticeRecordFactory(
            title="Sanierung Dach Grundschule Nord",
            bundesland="Bayern",
            cpv_codes=("45261210",),
            submission_deadline=SOON + timedelta(days=20),
            published_at=datetime(2026, 9, 1, 9, tzinfo=BERLIN),
        ),
        NoticeRecordFactory(
            title="Softwareentwicklung Bürgerportal",
            description="Agile Entwicklung einer Fachanwendung.",
            bundesland="Berlin",
            cpv_codes=("72000000",),
            estimated_value=Decimal("900000"),
            submission_deadline=SOON,
            published_at=datetime(2026, 9, 3, 9, tzinfo=BERLIN),
        ),
        NoticeRecordFactory(
            title="Straßenbau Ortsdurchfahrt",
            bundesland="Bayern",
            description="Mit Entwässerung der Dächer an der Bushaltestelle.",
            cpv_codes=("45233140",),
            submission_deadline=SOON + timedelta(days=5),
            published_at=datetime(2026, 8, 31, 9, tzinfo=BERLIN),
        ),
    )
    return {"roof": roof, "it": it, "road": road}


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


def test_results_are_the_one_public_shape(alpha_api, tenders):
    body = alpha_api.get("/api/v1/tenders/", {"q": "Softwareentwicklung"}).json()
    assert [row["id"] for row in body["results"]] == [tenders["it"]]
    expected = tender_representation(tender_with_history().get(pk=tenders["it"]))
    assert body["results"][0] == expected
    assert body["results"][0]["sources"][0]["portal"] == "tender24"
    assert body["results"][0]["versions"][0]["version"] == "01"


@pytest.mark.parametrize(
    "params",
    [
        {"q": "Dach"},
        {"bundesland": "Bayern"},
        {"cpv": "45"},
        {"cpv": ["72000000", "45233140"]},
        {"value_min": "500000"},
        {"q": "Dach", "bundesland": "Bayern", "cpv": "452"},
        {"status": "active", "portal": "tender24"},
    ],
)
def test_filters_are_exactly_the_portal_filters(alpha_api, tenders, params):
    from django.http import QueryDict
    from django.utils import timezone

    query = QueryDict(mutable=True)
    for key, value in params.items():
        query.setlist(key, value if isinstance(value, list) else [value])
    expected = set(
        Tender.objects.filter(filters_q(parse_filters(query), now=timezone.now())).values_list("id", flat=True)
    )
    assert expected  # every case finds something, so the comparison means something
    assert set(_ids(alpha_api.get("/api/v1/tenders/", params))) == expected


def test_invalid_filters_answer_400_with_a_message_per_parameter(alpha_api):
    response = alpha_api.get("/api/v1/tenders/", {"plz": "abc", "status": "offen", "cpv": "4", "q": "Dach"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_filters"
    assert set(error["fields"]) == {"plz", "status", "cpv"}
    assert all(messages and all(isinstance(m, str) for m in messages) for messages in error["fields"].values())


def test_orderings(alpha_api, tenders):
    assert _ids(alpha_api.get("/api/v1/tenders/", {"order": "deadline"})) == [
        tenders["it"],
        tenders["road"],
        tenders["roof"],
    ]
    assert _ids(alpha_api.get("/api/v1/tenders/", {"order": "published"})) == [
        tenders["it"],
        tenders["roof"],
        tenders["road"],
    ]
    assert _ids(alpha_api.get("/api/v1/tenders/")) == [tenders["it"], tenders["roof"], tenders["road"]]  # no keywords
    # A title hit (weight A) ranks above a hit in the description (weight C).
    assert _ids(alpha_api.get("/api/v1/tenders/", {"q": "Dach"})) == [tenders["roof"], tenders["road"]]
    bad = alpha_api.get("/api/v1/tenders/", {"order": "price"})
    assert bad.status_code == 400 and "order" in bad.json()["error"]["fields"]


def test_deadline_order_lists_open_deadlines_before_expired_and_undated_ones(alpha_api, tenders):
    expired, undated = ingest(
        NoticeRecordFactory(title="Abgelaufen", submission_deadline=datetime(2020, 3, 1, 12, tzinfo=BERLIN)),
        NoticeRecordFactory(title="Ohne Frist", submission_deadline=None),
    )
    expected = [tenders["it"], tenders["road"], tenders["roof"], expired, undated]
    every = {"status": ["active", "expired", "awarded", "cancelled"]}
    assert _ids(alpha_api.get("/api/v1/tenders/", {"order": "deadline", **every})) == expected
    # Without a status named, the API means what the portal and saved searches mean: open tenders only.
    assert _ids(alpha_api.get("/api/v1/tenders/", {"order": "deadline"})) == expected[:3] + [undated]
    pages = [
        _ids(alpha_api.get("/api/v1/tenders/", {"order": "deadline", "page_size": 2, "page": n, **every}))
        for n in (1, 2, 3)
    ]
    assert pages == [expected[0:2], expected[2:4], expected[4:]]


def test_pages_link_next_and_previous_without_counting(alpha_api, tenders):
    first = alpha_api.get("/api/v1/tenders/", {"order": "deadline", "page_size": 2}).json()
    assert "count" not in first
    assert [r["id"] for r in first["results"]] == [tenders["it"], tenders["road"]]
    assert first["previous"] is None and "page=2" in first["next"]
    second = alpha_api.get(first["next"]).json()
    assert [r["id"] for r in second["results"]] == [tenders["roof"]]
    assert second["next"] is None and second["previous"] is not None
    for bad in ({"page": "0"}, {"page": "x"}, {"page_size": "1000"}, {"page": "201"}):
        response = alpha_api.get("/api/v1/tenders/", bad)
        assert response.status_code == 400
        assert set(response.json()["error"]["fields"]) == set(bad)


def test_queries_per_page_do_not_grow_with_the_page(alpha_api, db):
    ingest(*[NoticeRecordFactory() for _ in range(2)])
    alpha_api.get("/api/v1/tenders/")  # the key's first use of the minute writes last_used_at; later ones do not
    with CaptureQueriesContext(connection) as small:
        assert len(_ids(alpha_api.get("/api/v1/tenders/"))) == 2
    ingest(*[NoticeRecordFactory() for _ in range(12)])
    with CaptureQueriesContext(connection) as large:
        assert len(_ids(alpha_api.get("/api/v1/tenders/"))) == 14
    assert len(large.captured_queries) == len(small.captured_queries)
    assert not any("COUNT(" in q["sql"].upper() for q in large.captured_queries)


def test_detail_has_sources_and_versions(alpha_api, tenders):
    response = alpha_api.get(f"/api/v1/tenders/{tenders['roof']}/")
    assert response.status_code == 200
    body = response.json()
    assert body == tender_representation(tender_with_history().get(pk=tenders["roof"]))
    assert body["deadline"].endswith("+01:00") or body["deadline"].endswith("+02:00")
    assert len(body["sources"]) == 1 and len(body["versions"]) == 1


def test_unknown_tender_and_unknown_path_are_json_404(alpha_api):
    response = alpha_api.get("/api/v1/tenders/999999999/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    unknown = alpha_api.get("/api/v1/gibt-es-nicht/")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
    no_slash = alpha_api.get("/api/v1/tenders")
    assert no_slash.status_code == 404 and "/api/v1/tenders/" in no_slash.json()["error"]["message"]


def test_the_api_searches_with_the_thesaurus_like_the_portal(alpha_api, tenders):
    # "Instandsetzung" and "Programmierung" are thesaurus synonyms of Sanierung and Softwareentwicklung.
    assert _ids(alpha_api.get("/api/v1/tenders/", {"q": "Instandsetzung Dach"})) == [tenders["roof"]]
    assert _ids(alpha_api.get("/api/v1/tenders/", {"q": "Programmierung"})) == [tenders["it"]]
    assert _ids(alpha_api.get("/api/v1/tenders/", {"q": "Programmierung -Softwareentwicklung"})) == []


def test_nuts_codes_come_with_their_names_beside_the_codes(alpha_api, db):
    (tender_id,) = ingest(NoticeRecordFactory(nuts_codes=("DE212", "AT130", "DE2X9")))
    for language in ("de", "en"):  # the names do not follow the caller's language: webhooks store them
        body = alpha_api.get(f"/api/v1/tenders/{tender_id}/", HTTP_ACCEPT_LANGUAGE=language).json()
        assert body["nuts"] == ["DE212", "AT130", "DE2X9"]
        assert body["nuts_regions"] == [
            {"code": "DE212", "name": "München, Kreisfreie Stadt"},
            {"code": "AT130", "name": "Österreich"},
            {"code": "DE2X9", "name": ""},
        ]


def test_relevance_pages_walk_the_one_ranked_list(alpha_api, db):
    from django.utils import timezone

    from tenders.filters import TenderFilters
    from tenders.search import tender_search

    ingest(
        *[
            NoticeRecordFactory(
                title=f"Reinigung Los {n}" if n % 2 else f"Unterhaltsreinigung Schule {n}",
                description="Reinigung der Räume." if n % 3 else "Pflege der Flächen.",
                published_at=datetime(2026, 9, 1 + n, 9, tzinfo=BERLIN),
                submission_deadline=SOON + timedelta(days=n % 4),
            )
            for n in range(7)
        ]
    )
    whole = list(
        tender_search(filters=TenderFilters(q="Reinigung"), order="relevance", now=timezone.now()).values_list(
            "id", flat=True
        )
    )
    assert len(whole) == 7
    pages = [_ids(alpha_api.get("/api/v1/tenders/", {"q": "Reinigung", "page_size": 3, "page": n})) for n in (1, 2, 3)]
    assert pages == [whole[0:3], whole[3:6], whole[6:]]
