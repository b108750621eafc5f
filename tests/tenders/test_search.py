"""tender_search on real and worded fixture tenders: German full text, every filter, combinations, sort orders."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date, datetime

import pytest

from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import STATUSES, TenderFilters, parse_filters
from tenders.search import land_words_indexed, order_or_default, tender_detail, tender_search
from tests.tenders.search_corpus import ingest_corpus

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


@pytest.fixture
def ids(db) -> dict[str, int]:
    return ingest_corpus(NOW)


def found(ids: dict[str, int], order: str = "relevance", **params) -> list[str]:
    """Keys of the corpus tenders found for URL-style params, in result order; every status unless
    ``status`` is given (the corpus mixes open, expired, awarded and cancelled tenders)."""
    params.setdefault("status", list(STATUSES))
    filters = parse_filters({k: v if isinstance(v, list) else [v] for k, v in params.items()})
    by_id = {tender_id: key for key, tender_id in ids.items()}
    return [by_id[pk] for pk in tender_search(filters=filters, order=order, now=NOW).values_list("id", flat=True)]


# --- keywords -------------------------------------------------------------------------------------------


def test_stemming_finds_singular_for_plural(ids):
    # "Bauarbeit" in a title ranks above "Bauarbeiten" in the CPV label of 45233120 (weight B).
    assert found(ids, q="Bauarbeiten") == ["bauarbeit", "ortsdurchfahrt"]
    assert set(found(ids, q="Gehwege")) == {"bauarbeit", "winterdienst"}


@pytest.mark.parametrize("query", ["Straße", "strasse", "STRASSE"])
def test_sharp_s_and_ss_find_each_other(ids, query):
    # "Straßenbau" in two titles is found through its part "Straße", ranked below the word itself. Not the
    # road salt: its CPV class "Straßenausrüstung" counts by its whole word, not its parts (issue 30).
    results = found(ids, q=query)
    assert set(results[:2]) == {"bauarbeit", "winterdienst"}
    assert set(results[2:]) == {"planung", "ortsdurchfahrt"}
    assert found(ids, q="Straßenausrüstung") == ["streugut"]


@pytest.mark.parametrize("query", ["Müll", "Muell", "muell"])
def test_umlaut_and_its_transcription_find_the_umlaut(ids, query):
    assert found(ids, q=query) == ["muell"]


def test_keywords_search_buyer_and_description_too(ids):
    assert found(ids, q="Passau") == ["ortsdurchfahrt"]
    assert found(ids, q="Siedlungsabfälle") == ["muell"]


def test_all_words_must_match(ids):
    assert found(ids, q="Straßenbau Passau") == ["ortsdurchfahrt"]


def test_phrase_needs_the_words_in_order(ids):
    assert set(found(ids, q="Los 1 Winterdienst")) == {"winterdienst", "streugut"}
    assert found(ids, q='"Los 1 Winterdienst"') == ["winterdienst"]


def test_minus_excludes_a_word(ids):
    # "Bauarbeit an der Straße" is found through the parts of "Straßenbau", after the titles that say it.
    results = found(ids, q="Straßenbau")
    assert set(results[:2]) == {"planung", "ortsdurchfahrt"}
    assert results[2:] == ["bauarbeit"]
    assert found(ids, q="Straßenbau -Planung") == ["ortsdurchfahrt", "bauarbeit"]


def test_hostile_query_syntax_is_harmless(ids):
    assert found(ids, q="& | ! ( ) : * ' \\ \"") == []
    assert found(ids, q='-"" or') == []


# --- every filter -------------------------------------------------------------------------------------------


def test_cpv_exact_code_division_and_several(ids):
    assert set(found(ids, cpv="45233120")) == {"bauarbeit", "ortsdurchfahrt"}
    assert set(found(ids, cpv="90")) == {"muell", "winterdienst"}
    assert set(found(ids, cpv=["38433000", "34144210"])) == {"mpi", "hlf"}
    assert set(found(ids, cpv="72")) == {"digitalcheck"}


def test_bundesland_one_and_several(ids):
    assert set(found(ids, bundesland="Bayern")) == {"mpi", "aufhebung", "bauarbeit", "planung", "ortsdurchfahrt"}
    assert set(found(ids, bundesland=["Hessen", "Berlin"])) == {"winterdienst", "digitalcheck"}


def test_postal_code_prefix(ids):
    assert found(ids, plz="80") == ["bauarbeit"]
    assert set(found(ids, plz="9")) == {"planung", "ortsdurchfahrt"}
    assert found(ids, plz="24792") == ["hlf"]


def test_value_range(ids):
    assert set(found(ids, value_min="1000000")) == {"muell", "ortsdurchfahrt"}
    assert found(ids, value_max="100000") == ["winterdienst"]
    assert set(found(ids, value_min="200000", value_max="500000")) == {"bauarbeit", "planung", "hlf"}
    assert set(found(ids, value_min="1000000.00")) == {"muell", "ortsdurchfahrt"}


def test_deadline_within_days_and_until_date(ids):
    assert set(found(ids, deadline_days="7")) == {"bauarbeit", "ortsdurchfahrt"}
    assert set(found(ids, deadline_until="2026-10-02")) == {"bauarbeit", "ortsdurchfahrt", "winterdienst", "streugut"}


def test_published_since(ids):
    assert set(found(ids, published_since="2026-09-17")) == {"bauarbeit", "muell", "ortsdurchfahrt"}


def test_status(ids):
    assert found(ids, status="awarded") == ["digitalcheck"]
    assert found(ids, status="cancelled") == ["aufhebung"]
    assert set(found(ids, status=["awarded", "cancelled"])) == {"digitalcheck", "aufhebung"}


def test_source_portal(ids):
    assert found(ids, portal="dtvp") == ["muell"]
    assert set(found(ids, portal="doe")) == {"mpi", "hlf", "digitalcheck", "aufhebung", "maeher"}


def test_filters_combine_with_and(ids):
    assert set(found(ids, q="Straßenbau", bundesland="Bayern")) == {"planung", "ortsdurchfahrt", "bauarbeit"}
    assert found(ids, q="Straßenbau", bundesland="Bayern", value_min="1000000") == ["ortsdurchfahrt"]
    assert found(ids, q='"Straßenbau"', bundesland="Bayern", value_min="1000000") == ["ortsdurchfahrt"]
    assert found(ids, cpv="45", bundesland="Bayern", deadline_days="4", portal="tender24") == ["ortsdurchfahrt"]
    assert found(ids, cpv="45", bundesland="Hessen") == []


def test_no_filters_list_everything(ids):
    assert len(found(ids)) == len(ids)


def test_no_status_named_means_open_tenders_only_as_in_saved_searches(ids):
    # One meaning of a query everywhere (tenders.filters.effective_filters): the search page, the API and
    # manage.py search list what a saved search with the same filters would match.
    from tenders.models import Tender

    unnamed = tender_search(filters=TenderFilters(), order="published", now=NOW)
    assert set(unnamed.values_list("status", flat=True)) == {"active"}
    assert unnamed.count() == Tender.objects.filter(status="active").count() < len(ids)


# --- order ----------------------------------------------------------------------------------------------------------


def test_order_by_deadline_nearest_first_without_deadline_last(ids):
    keys = found(ids, order="deadline")
    assert keys[:4] == ["ortsdurchfahrt", "bauarbeit", "winterdienst", "streugut"]
    assert set(keys[-4:]) == {"hlf", "digitalcheck", "aufhebung", "maeher"}  # no deadline


def test_order_by_published_newest_first(ids):
    keys = found(ids, order="published")
    assert keys[:3] == ["ortsdurchfahrt", "muell", "bauarbeit"]


def test_relevance_ranks_title_above_description(ids):
    # "Winterdienst" is in the title of one tender and only in the description of the other.
    assert found(ids, q="Winterdienst") == ["winterdienst", "streugut"]


def test_relevance_reads_the_thesaurus_once(ids, django_assert_num_queries):
    # The keywords' tsquery is evaluated once (it reads the thesaurus) for both the match and the rank.
    from tenders.search import land_words_indexed

    filters = parse_filters({"q": ["Winterdienst"]})
    land_words_indexed()  # asked once per process, whichever search comes first: not this test's question
    with django_assert_num_queries(3) as captured:  # the thesaurus' version, the keywords, the search
        list(tender_search(filters=filters, order="relevance", now=NOW).values_list("id", flat=True))
    version, keywords, search = (query["sql"] for query in captured.captured_queries)
    assert "md5" in version and "ts_rewrite" in keywords
    assert "tenders_tender" in search and "ts_rewrite" not in search and "tenders_synonymgroup" not in search
    with django_assert_num_queries(2):  # compiled keywords are kept while the thesaurus stays the same
        list(tender_search(filters=filters, order="relevance", now=NOW).values_list("id", flat=True))


def test_relevance_without_keywords_is_newest_first(ids):
    assert found(ids) == found(ids, order="published")


def test_unknown_order_falls_back_to_relevance():
    assert order_or_default("drop table") == "relevance"
    assert order_or_default("deadline") == "deadline"


def test_same_filters_same_results_as_the_builder(ids):
    from tenders.filter_query import filters_q
    from tenders.models import Tender

    filters = TenderFilters(q="Straße", bundesland=("Bayern",), status=STATUSES)
    assert set(tender_search(filters=filters, order="deadline", now=NOW).values_list("id", flat=True)) == set(
        Tender.objects.filter(filters_q(filters, now=NOW)).values_list("id", flat=True)
    )


def test_detail_has_sources_and_versions(ids):
    tender = tender_detail(tender_id=ids["mpi"])
    assert [s.source for s in tender.sources.all()] == ["doe"]
    assert len(tender.versions.all()) == 1
    assert tender.submission_deadline.astimezone(BERLIN).date() == date(2026, 10, 20)


# --- the first page comes from an index, not from sorting every row --------------------------------------------


def _plan_nodes(queryset) -> list[str]:
    from django.db import connection

    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        # Small test tables make a sequential scan plus sort cheapest; forbid both to see what indexes can serve.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        raw = cursor.fetchone()[0]
    plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]

    def walk(node):
        yield node["Node Type"] + (f" {node['Index Name']}" if "Index Name" in node else "")
        for child in node.get("Plans", ()):
            yield from walk(child)

    return list(walk(plan))


@pytest.mark.parametrize(
    ("order", "params"),
    [("published", {"status": list(STATUSES)}), ("relevance", {}), ("published", {"status": ["active"]})],
)
def test_newest_first_pages_walk_the_publication_index(ids, order, params):
    nodes = _plan_nodes(tender_search(filters=parse_filters(params), order=order, now=NOW)[:25])
    assert "Sort" not in nodes and "Incremental Sort" not in nodes, nodes
    assert any(node.endswith("tender_published_desc_idx") for node in nodes), nodes


@pytest.mark.parametrize(
    ("params", "indexes"),
    [
        ({"status": list(STATUSES)}, ("tender_deadline_idx", "tender_deadline_idx", "tender_published_desc_idx")),
        ({"status": ["active"]}, ("tender_active_deadline_idx", "tender_active_deadline_idx", None)),
    ],
)
def test_deadline_pages_walk_the_deadline_index_in_each_part(ids, params, indexes):
    # Open deadlines first cannot be one ORDER BY over an index (it depends on the moment): each of the
    # three parts must be read in index order, so a page never sorts every match.
    results = tender_search(filters=parse_filters(params), order="deadline", now=NOW)
    assert len(results.querysets()) == 3  # a corpus smaller than a near range is read unsplit
    for part, index in zip(results.querysets(), indexes, strict=True):
        nodes = _plan_nodes(part[:25])
        assert "Sort" not in nodes, nodes  # an incremental sort only orders ties of one deadline by id
        if index:
            assert any(node.endswith(index) for node in nodes), nodes


# --- open tenders' words lead a keyword search -----------------------------------------------------------


OPEN_KEYWORD_SEARCHES = [
    {"q": "Straßenbau", "bundesland": "Bayern"},
    {"q": "Straßenbau", "bundesland": ["Bayern", "Hessen"], "deadline_days": "7"},
    {"q": "Straße", "deadline_until": "2026-10-02"},
    {"q": "Straßenbau", "cpv": "45"},
    {"q": "Straßenbau", "cpv": ["45", "45233120"], "bundesland": "Bayern", "deadline_days": "30"},
    {"q": "Reinigung", "cpv": "90", "deadline_days": "30"},
]


@pytest.mark.parametrize("params", OPEN_KEYWORD_SEARCHES)
def test_an_open_keyword_search_finds_what_the_indexed_filters_find(ids, params):
    # Among open tenders the Land, deadline range and CPV division are checked on the words' rows (no index);
    # the same filters over every status take their indexes. Both must find the same open tenders.
    open_only = set(found(ids, status="active"))
    assert set(found(ids, status="active", **params)) == set(found(ids, **params)) & open_only


def _index_conditions(queryset) -> list[str]:
    from django.db import connection

    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        raw = cursor.fetchone()[0]

    def walk(node):
        if "Index Cond" in node:
            yield node["Index Name"], node["Index Cond"]
        for child in node.get("Plans", ()):
            yield from walk(child)

    return list(walk((json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]))


@pytest.mark.parametrize("params", OPEN_KEYWORD_SEARCHES)
def test_an_open_keyword_search_asks_no_index_for_land_deadline_or_division(ids, params):
    # PostgreSQL never intersects two indexes whose predicates are the same clause (status = 'active'): an
    # open Land or deadline index would take the full-text index of every tender beside it (bench/README.md).
    # Where the server holds the Land beside the open tenders' words in one index (migration 0022), the Land is a
    # plain condition: the planner may then take that index or an open Land index, never the every-status words.
    filters = parse_filters({k: v if isinstance(v, list) else [v] for k, v in params.items()})
    conditions = _index_conditions(tender_search(filters=filters, order="published", now=NOW).order_by())
    assert not [c for _, c in conditions if any(col in c for col in ("submission_deadline", "cpv_"))]
    assert "tender_search_gin" not in [index for index, _ in conditions]
    if not land_words_indexed():
        assert not [c for _, c in conditions if "bundesland" in c]
    # Over every status the same filters stay indexable (no index predicate stands in the way there).
    every_status = str(tender_search(filters=replace(filters, status=STATUSES), order="published", now=NOW).query)
    assert "COALESCE" not in every_status


def test_an_exact_cpv_code_keeps_its_index_beside_open_tenders_words(ids):
    sql = str(
        tender_search(
            filters=parse_filters({"q": ["Straßenbau"], "cpv": ["45233120"]}), order="published", now=NOW
        ).query
    )
    assert '"tenders_tender"."cpv_prefixes" &&' in sql
    division = str(
        tender_search(filters=parse_filters({"q": ["Straßenbau"], "cpv": ["45"]}), order="published", now=NOW).query
    )
    assert '"tenders_tender"."cpv_prefixes" &&' not in division


def test_relevance_ranks_its_candidates_without_filtering_them_again(ids):
    # The candidates carry the filters; repeating them outside ran the word's bitmap twice.
    filters = parse_filters({"q": ["Straßenbau"], "bundesland": ["Bayern"]})
    sql = str(tender_search(filters=filters, order="relevance", now=NOW).query)
    assert sql.count("@@") == 1, sql
    assert sql.count("IN (Bayern)") == 1, sql
    # Without a place the last week is read first: the words once in its part and once in the part of every
    # match (only one of them runs), never outside.
    filters = parse_filters({"q": ["Straßenbau"], "cpv": ["45"]})
    sql = str(tender_search(filters=filters, order="relevance", now=NOW).query)
    assert sql.count("@@") == 2, sql
    assert 'WHERE "tenders_tender"."id" IN (WITH recent AS MATERIALIZED (' in sql
    assert sql.rsplit("AS every_match", 1)[1].count("@@") == 0, sql


def test_a_deadline_ordered_keyword_search_keeps_the_filters_indexes(ids):
    # In deadline order the open tenders' deadline (or Land and deadline) index is walked in order and the words
    # are checked on the way; an unindexed Land made "frequent Bayern active" 4 -> 33 ms at 1,000,000 tenders.
    filters = parse_filters({"q": ["Straßenbau"], "bundesland": ["Bayern"], "deadline_days": ["30"]})
    parts = tender_search(filters=filters, order="deadline", now=NOW).querysets()
    assert parts and not any("COALESCE" in str(part.query) for part in parts)
    # In relevance order the words lead: the deadline range is checked on their rows.
    relevance = str(tender_search(filters=filters, order="relevance", now=NOW).query)
    assert 'COALESCE(U0."submission_deadline", U0."submission_deadline")' in relevance, relevance


@pytest.mark.parametrize(
    ("params", "week_first"),
    [
        ({"q": ["Straßenbau"]}, True),
        ({"q": ["Straßenbau"], "deadline_days": ["30"]}, True),
        ({"q": ["Straßenbau"], "cpv": ["45"]}, True),
        ({"q": ["Straßenbau"], "bundesland": ["Bayern"]}, False),
        ({"q": ["Straßenbau"], "plz": ["80"]}, False),
        ({"q": ["Straßenbau"], "kreis": ["09162"]}, False),
        ({"q": ["Straßenbau"], "umkreis_plz": ["80331"], "umkreis_km": ["20"]}, False),
        ({"q": ["Straßenbau"], "portal": ["doe"]}, False),
        ({"q": ["Straßenbau"], "value_min": ["100000"]}, False),
        ({"q": ["Straßenbau"], "value_max": ["100000"]}, False),
        ({"q": ["Straßenbau"], "cpv": ["45233120"]}, False),
    ],
)
def test_relevance_reads_the_last_week_first_unless_a_filter_leaves_it_few(ids, params, week_first):
    sql = str(tender_search(filters=parse_filters(params), order="relevance", now=NOW).query)
    assert ("WITH recent AS MATERIALIZED" in sql) is week_first, sql
