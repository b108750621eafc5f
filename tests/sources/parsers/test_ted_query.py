"""sources.parsers.ted_query: the query, the request body and the fields asked of TED."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from sources.parsers.ted_query import TED_FIELDS, ted_query_for_germany, ted_search_body

FIXTURE = (
    Path(__file__).resolve().parents[2]
    / "data"
    / "ted"
    / "ted_v3_search_notices_DE_cn-standard_479730-2026_can-standard_291981-2026.json"
)


@pytest.fixture(scope="module")
def notices() -> list[dict]:
    return json.loads(FIXTURE.read_bytes())


class TestSearchRequest:
    def test_query(self):
        query = ted_query_for_germany(published_from=date(2026, 1, 1), published_to=date(2026, 1, 2))
        assert query == (
            "(buyer-country=DEU OR place-of-performance-country-lot=DEU)"
            " AND publication-date>=20260101 AND publication-date<=20260102"
        )
        with pytest.raises(ValueError):
            ted_query_for_germany(published_from=date(2026, 1, 2), published_to=date(2026, 1, 1))

    def test_body(self):
        first = ted_search_body(query="q", page_size=250, iteration_token=None, fields=TED_FIELDS)
        assert first["paginationMode"] == "ITERATION"
        assert "iterationNextToken" not in first
        assert (first["query"], first["limit"], first["fields"]) == ("q", 250, list(TED_FIELDS))
        json.dumps(first)  # serialisable as is
        following = ted_search_body(query="q", page_size=10, iteration_token="tok", fields=("publication-number",))
        assert following["iterationNextToken"] == "tok"
        with pytest.raises(ValueError):
            ted_search_body(query="q", page_size=251, iteration_token=None, fields=TED_FIELDS)

    def test_fields_cover_every_fixture_key_we_parse(self, notices):
        assert len(set(TED_FIELDS)) == len(TED_FIELDS)
        parsed = {
            "notice-title",
            "title-proc",
            "buyer-name",
            "classification-cpv",
            "place-of-performance",
            "publication-date",
            "notice-type",
            "procedure-type",
            "winner-name",
            "submission-url-lot",
        }
        assert parsed <= set(TED_FIELDS)
        assert parsed <= set(notices[0]) | set(notices[1])
