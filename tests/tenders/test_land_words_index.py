"""The open tenders' (Land, words) index (migration 0022): a Land beside open tenders' words found in one index.

Where the server has btree_gin (PostgreSQL's contrib) the migration builds the index and a keyword search of
open tenders names its Land as a plain condition that index answers; without it (the embedded server of a
first run) the Land stays checked on the words' rows. Either way the same tenders are found.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from django.db import connection

from kernel.vocabulary.time_zone import BERLIN
from tenders.filter_query import filters_q
from tenders.filters import effective_filters, parse_filters
from tenders.models import Tender
from tenders.search import land_words_indexed, tender_search
from tests.tenders.search_corpus import ingest_corpus

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)
LAND_COALESCED = 'COALESCE("tenders_tender"."bundesland", "tenders_tender"."bundesland")'


def _server_has_btree_gin() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'btree_gin')")
        return bool(cursor.fetchone()[0])


def _filters(**params):
    return effective_filters(parse_filters({k: v if isinstance(v, list) else [v] for k, v in params.items()}))


@pytest.mark.django_db
def test_the_migration_builds_the_index_where_the_server_has_btree_gin():
    if not _server_has_btree_gin():
        pytest.skip("this PostgreSQL has no btree_gin (no contrib modules): the search keeps the Land unindexed")
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'tender_active_land_search_gin'")
        (definition,) = cursor.fetchone()
    assert "USING gin (bundesland, search_vector)" in definition
    assert "WHERE ((status)::text = 'active'::text)" in definition
    assert land_words_indexed()


@pytest.mark.django_db
def test_with_the_index_a_land_beside_open_words_is_a_plain_condition():
    filters = _filters(q="Straßenbau", bundesland=["Bayern", "Hessen"])
    indexed = str(Tender.objects.filter(filters_q(filters, now=NOW, land_words_indexed=True)).query)
    checked = str(Tender.objects.filter(filters_q(filters, now=NOW, land_words_indexed=False)).query)
    assert LAND_COALESCED not in indexed and '"tenders_tender"."bundesland" IN (Bayern, Hessen)' in indexed
    assert LAND_COALESCED in checked
    # A Land without keywords, and any Land in deadline order, keeps its own indexes whatever the server has.
    land_only = _filters(bundesland="Bayern")
    assert LAND_COALESCED not in str(Tender.objects.filter(filters_q(land_only, now=NOW)).query)
    by_deadline = filters_q(filters, now=NOW, by_deadline=True)
    assert LAND_COALESCED not in str(Tender.objects.filter(by_deadline).query)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "params",
    [
        {"q": "Straßenbau", "bundesland": "Bayern"},
        {"q": "Straßenbau", "bundesland": ["Bayern", "Hessen"], "deadline_days": "30"},
        {"q": "Straße", "bundesland": "Hessen"},
        {"q": "Straße", "bundesland": ["Bayern", "Sachsen"], "cpv": "45"},
    ],
)
def test_a_land_beside_open_words_finds_the_same_tenders_either_way(params):
    ingest_corpus(NOW)
    filters = _filters(**params)
    indexed = set(
        Tender.objects.filter(filters_q(filters, now=NOW, land_words_indexed=True)).values_list("pk", flat=True)
    )
    checked = set(
        Tender.objects.filter(filters_q(filters, now=NOW, land_words_indexed=False)).values_list("pk", flat=True)
    )
    assert indexed == checked and indexed
    for order in ("relevance", "published", "deadline"):
        assert set(tender_search(filters=filters, order=order, now=NOW).values_list("pk", flat=True)) == indexed
