"""Set-based write helpers: id reservation and the interleaving of side work with a COPY stream."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tenders.bulk import interleaved, reserve_ids


def test_interleaved_yields_every_row_and_runs_all_side_work():
    steps: list[int] = []

    def side_work():
        for i in range(5):
            steps.append(i)
            yield None

    work = side_work()
    seen = []
    for row in interleaved(iter(["a", "b"]), work):
        seen.append((row, len(steps)))
    assert seen == [("a", 0), ("b", 1)]  # one step of side work after each row
    assert steps == [0, 1, 2, 3, 4]  # the rest when the rows run out


@pytest.mark.django_db
def test_reserve_ids_gives_distinct_fresh_keys_per_table_in_one_query():
    with CaptureQueriesContext(connection) as queries:
        ids = reserve_ids({"tenders_tender": 3, "tenders_tendersource": 2, "tenders_tenderversion": 0})
    assert len([q for q in queries.captured_queries if "nextval" in q["sql"]]) == 1
    assert len(set(ids["tenders_tender"])) == 3 and len(set(ids["tenders_tendersource"])) == 2
    assert ids["tenders_tenderversion"] == []
    again = reserve_ids({"tenders_tender": 1})
    assert again["tenders_tender"][0] > max(ids["tenders_tender"])
    with CaptureQueriesContext(connection) as queries:
        assert reserve_ids({"tenders_tender": 0}) == {"tenders_tender": []}
    assert not queries.captured_queries
