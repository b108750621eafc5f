"""What a partner's tender list page costs in statements: key check, lock check, search, sources and versions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

WORK = "Pflasterarbeiten"


@pytest.fixture
def tenders(db) -> None:
    now = timezone.now()
    records = [
        NoticeRecordFactory(
            source_notice_id=f"api-stmt-{n}",
            title=f"{WORK} Bauabschnitt {n}",
            submission_deadline=now + timedelta(days=n + 1),
        )
        for n in range(60)
    ]
    notices_ingest(records=records, now=now, use_fingerprint=False)


def _counted(caller, params: dict):
    caller.get("/api/v1/tenders/", params)
    with CaptureQueriesContext(connection) as queries:
        response = caller.get("/api/v1/tenders/", params)
    listing = "\n".join(f"{n}. {query['sql'][:200]}" for n, query in enumerate(queries.captured_queries, 1))
    return response, len(queries.captured_queries), listing


@pytest.mark.parametrize(
    ("params", "budget"),
    [
        ({}, 5),
        ({"order": "published", "page": "2"}, 5),
        # Keywords add their one compile (the thesaurus), the deadline order its index boundary.
        ({"q": WORK}, 6),
        ({"q": WORK, "order": "deadline"}, 7),
    ],
    ids=["no-keywords", "page-2", "keywords", "keywords-deadline"],
)
def test_a_tender_list_page_costs_a_fixed_number_of_statements(alpha_api, tenders, params, budget):
    response, statements, listing = _counted(alpha_api, params)
    assert response.status_code == 200, response.content
    assert len(response.json()["results"]) == (10 if params.get("page") == "2" else 50)
    assert all(row["sources"] for row in response.json()["results"])  # sources and versions still come along
    assert statements <= budget, listing


def test_a_page_reads_only_the_columns_it_shows(alpha_api, tenders):
    with CaptureQueriesContext(connection) as queries:
        assert alpha_api.get("/api/v1/tenders/", {"q": WORK}).status_code == 200
    page = [query["sql"] for query in queries.captured_queries if 'FROM "tenders_tender"' in query["sql"]]
    assert page
    # The search's own columns are most of a row and are not shown.
    assert not any(column in sql for sql in page for column in ('"search_parts"', '"cpv_labels"', '"fingerprint"'))
