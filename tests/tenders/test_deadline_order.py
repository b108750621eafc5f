"""'Frist (nächste zuerst)': open deadlines first, then expired ones, then none; pages are windows of that list."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.core.paginator import Paginator

from kernel.vocabulary.time_zone import BERLIN
from tenders import deadline_order
from tenders.filters import STATUSES, parse_filters
from tenders.models import Tender
from tenders.search import tender_search
from tests.tenders.search_corpus import ingest_corpus

INGESTED = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)
# Ten days later three corpus deadlines have passed (23.9., 25.9., 30.9.), four are still open.
LATER = datetime(2026, 10, 1, 8, 0, tzinfo=BERLIN)

OPEN_NEAREST_FIRST = ["streugut", "planung", "mpi", "muell"]
EXPIRED_LATEST_FIRST = ["winterdienst", "bauarbeit", "ortsdurchfahrt"]
NO_DEADLINE_NEWEST_FIRST = ["maeher", "hlf", "digitalcheck", "aufhebung"]
EXPECTED = OPEN_NEAREST_FIRST + EXPIRED_LATEST_FIRST + NO_DEADLINE_NEWEST_FIRST


@pytest.fixture
def ids(db) -> dict[str, int]:
    return ingest_corpus(INGESTED)


def _keys(ids, rows) -> list[str]:
    by_id = {tender_id: key for key, tender_id in ids.items()}
    return [by_id[row if isinstance(row, int) else row.pk] for row in rows]


def _deadline_list(**params):
    params.setdefault("status", list(STATUSES))  # the order across open, expired and undated tenders
    filters = parse_filters({k: v if isinstance(v, list) else [v] for k, v in params.items()})
    return tender_search(filters=filters, order="deadline", now=LATER)


def test_open_deadlines_come_first_then_expired_then_none(ids):
    assert _keys(ids, _deadline_list()) == EXPECTED


def test_filters_apply_to_every_part(ids):
    # The awarded and cancelled tenders (both undated) drop out; every part keeps its order.
    results = _deadline_list(status="active")
    assert _keys(ids, results) == [key for key in EXPECTED if key not in ("digitalcheck", "aufhebung")]


@pytest.mark.parametrize("start", range(0, 13))
def test_every_window_is_the_same_slice_of_the_whole_list(ids, start):
    expected_ids = [ids[key] for key in EXPECTED]
    for stop in range(start, 14):
        window = _deadline_list()[start:stop]
        assert [tender.pk for tender in window] == expected_ids[start:stop], (start, stop)
        assert window.count() == len(expected_ids[start:stop])
    assert [tender.pk for tender in _deadline_list()[start:]] == expected_ids[start:]
    assert _deadline_list()[3:][start : start + 2].count() == len(expected_ids[3:][start : start + 2])


def test_chained_columns_and_streaming_read_the_same_order(ids):
    rows = _deadline_list().only("id", "title").values_list("id", flat=True)
    assert _keys(ids, rows.iterator(chunk_size=2)) == EXPECTED
    assert _keys(ids, rows[2:9].iterator(chunk_size=3)) == EXPECTED[2:9]
    assert _deadline_list()[4].pk == ids["winterdienst"]


def test_a_full_first_page_reads_only_the_open_deadlines(ids, django_assert_num_queries):
    # The open part's near-range boundary is looked up, then the page read; the expired part is not touched.
    with django_assert_num_queries(2):
        assert _keys(ids, _deadline_list()[:3]) == OPEN_NEAREST_FIRST[:3]
    # A page inside the expired part counts the open part once to know where it starts there; each dated
    # part it reaches costs one boundary lookup.
    with django_assert_num_queries(5):
        assert _keys(ids, _deadline_list()[5:7]) == EXPECTED[5:7]


@pytest.fixture
def near_rows(monkeypatch):
    # Two tenders per near range: the boundary falls inside the corpus in both directions.
    monkeypatch.setattr(deadline_order, "NEAR_ROWS", 2)


def test_near_and_far_ranges_read_the_same_list_and_windows(ids, near_rows):
    results = _deadline_list()
    assert len(results.querysets()) == 5  # both dated parts are split
    assert _keys(ids, results) == EXPECTED
    expected_ids = [ids[key] for key in EXPECTED]
    for start in range(0, 12):
        for stop in range(start, 13):
            assert [tender.pk for tender in _deadline_list()[start:stop]] == expected_ids[start:stop], (start, stop)
    assert _keys(ids, _deadline_list(status="active")) == [
        key for key in EXPECTED if key not in ("digitalcheck", "aufhebung")
    ]


def test_tenders_on_the_boundary_deadline_are_read_once_in_order(ids, near_rows):
    # Give the second and third open tenders and the second and third expired ones one deadline each: the
    # boundary (the third tender from now) then equals its neighbour's deadline.
    open_deadline = Tender.objects.get(pk=ids["mpi"]).submission_deadline
    Tender.objects.filter(pk=ids["planung"]).update(submission_deadline=open_deadline)
    expired_deadline = Tender.objects.get(pk=ids["bauarbeit"]).submission_deadline
    Tender.objects.filter(pk=ids["ortsdurchfahrt"]).update(submission_deadline=expired_deadline)
    split = _deadline_list()
    assert len(split.querysets()) == 5
    whole = [tender.pk for part in split.parts for tender in (part.queryset if hasattr(part, "queryset") else part)]
    assert [tender.pk for tender in split] == whole
    assert sorted(whole) == sorted(ids.values())


def test_paginator_pages_follow_the_list(ids):
    paginator = Paginator(_deadline_list(), 5)
    pages = [_keys(ids, paginator.page(number).object_list) for number in paginator.page_range]
    assert pages == [EXPECTED[0:5], EXPECTED[5:10], EXPECTED[10:]]


def test_sliced_list_cannot_be_filtered(ids):
    with pytest.raises(TypeError):
        _deadline_list()[:5].filter(status="active")


def test_a_far_range_states_its_bound_once_and_not_as_an_indexed_column(ids, near_rows):
    """The far range's edge implies the part's own bound; stated twice on the column, PostgreSQL multiplies the two
    shares and intersects every open deadline with a word's few entries (bench/README.md, 'medium active')."""
    results = _deadline_list(q="Winterdienst")
    for part in results.parts[:2]:
        near, far = part.querysets()
        near_sql, far_sql = str(near.query), str(far.query)
        assert near_sql.count('"submission_deadline" >=') + near_sql.count('"submission_deadline" <') == 2
        assert '"submission_deadline" >=' not in far_sql and '"submission_deadline" <' not in far_sql
        # An expression no index answers (tenders.filter_query.unindexed).
        assert 'COALESCE("tenders_tender"."submission_deadline", "tenders_tender"."submission_deadline")' in far_sql
