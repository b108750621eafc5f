"""Compounds, CPV labels and the reindex: what a bid manager types finds what the notice calls it."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from django.core.management import call_command
from django.db import connection

from kernel.records import Lot
from kernel.vocabulary.cpv import cpv_labels_for
from kernel.vocabulary.search_words import label_compound_parts
from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import TenderFilters
from tenders.fulltext import keyword_query_build
from tenders.models import Tender
from tenders.search import RelevanceListed, relevance_listed, tender_search
from tenders.services import notices_ingest
from tests.factories.records import OCDS_NO_CPV, NoticeRecordFactory, ocds_records

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)

pytestmark = pytest.mark.django_db

_TITLES = {
    "gebaeude": ("Gebäudereinigung Rathaus und Bürgerhaus", ("90911200",)),
    "unterhalt": ("Unterhaltsreinigung in drei Schulen", ("90919300",)),
    "buero": ("Büroreinigung Landratsamt", ("90919200",)),
    "reinigung": ("Reinigung der Sporthalle", ("90910000",)),
    "bruecke": ("Brückensanierung Talbrücke Nord", ("45221111",)),
    "wache": ("Objektschutz Verwaltungsgebäude", ("79713000",)),
    "dach": ("Dachdeckerarbeiten Kita", ("45261210",)),
}


@pytest.fixture
def ids() -> dict[str, int]:
    records = {
        key: NoticeRecordFactory(
            source_notice_id=f"compound-{key}",
            title=title,
            description="Leistungen nach Leistungsverzeichnis.",
            cpv_codes=codes,
        )
        for key, (title, codes) in _TITLES.items()
    }
    records["lot"] = NoticeRecordFactory(
        source_notice_id="compound-lot",
        title="Bewirtschaftung Liegenschaften",
        description="Siehe Lose.",
        cpv_codes=("70000000",),
        lots=(Lot(lot_id="LOT-1", title="Los 1: Grünflächenpflege"),),
    )
    records["maeher"] = ocds_records(OCDS_NO_CPV)[0]  # real DÖE notice: "… Raupen- Schlegelmäher mit Frontmähwerk"
    notices_ingest(records=list(records.values()), now=NOW, use_fingerprint=False)
    by_notice = dict(Tender.objects.values_list("sources__source_notice_id", "id"))
    return {key: by_notice[record.source_notice_id] for key, record in records.items()}


def found(ids, q: str) -> list[str]:
    by_id = {tender_id: key for key, tender_id in ids.items()}
    results = tender_search(filters=TenderFilters(q=q), order="relevance", now=NOW)
    return [by_id[pk] for pk in results.values_list("id", flat=True)]


def test_reinigung_finds_the_cleaning_compounds_and_ranks_the_word_itself_first(ids):
    results = found(ids, "Reinigung")
    assert results[0] == "reinigung"
    assert {"gebaeude", "unterhalt", "buero"} <= set(results)


def test_maeher_finds_the_real_schlegelmaeher_notice(ids):
    assert found(ids, "Mäher") == ["maeher"]
    assert found(ids, "Maeher") == ["maeher"]


def test_two_words_find_their_compound(ids):
    assert found(ids, "Sanierung Brücke") == ["bruecke"]
    assert found(ids, '"Sanierung Brücke"') == []  # a phrase still means those words in that order


def test_a_compound_query_finds_its_parts(ids):
    assert "gebaeude" in found(ids, "Gebäudereinigungen")
    assert found(ids, "Reinigung -Büroreinigung") == [
        key for key in found(ids, "Reinigung") if key != "buero"
    ]  # exclusions keep working


def test_cpv_label_words_are_searchable(ids):
    # 79713000 "Bewachungsdienste": the title says "Objektschutz", the label's part "Bewachung" finds it.
    assert found(ids, "Bewachung") == ["wache"]
    assert found(ids, "Bewachungsdienste") == ["wache"]


def test_lot_titles_are_split_too(ids):
    assert found(ids, "Pflege") == ["lot"]


def _weights(tender_id: int, lexeme: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM tenders_tender WHERE id = %s", [tender_id])
        vector = cursor.fetchone()[0]
    positions = vector.split(f"'{lexeme}':")[1].split(" ")[0].split(",")
    return {position.lstrip("0123456789") or "D" for position in positions}


def test_parts_rank_below_whole_words(ids):
    title_parts, search_parts = Tender.objects.values_list("title_parts", "search_parts").get(pk=ids["gebaeude"])
    assert "reinigung" in title_parts.split() and "reinigung" not in search_parts.split()
    # A title's part weighs B, below the title's own words (A); the CPV parents' "Reinigungs- und Hygienedienste"
    # adds a D with its word "Reinigungs-" (a parent's label counts by its whole words, not its parts: issue 30).
    assert _weights(ids["gebaeude"], "reinig") == {"B", "D"}
    assert "A" in _weights(ids["reinigung"], "reinig")
    assert _weights(ids["wache"], "bewach") == {"D"}  # a CPV label's part: lowest
    assert "bewachung" in Tender.objects.get(pk=ids["wache"]).search_parts.split()


def test_reindex_fills_tenders_stored_before_the_splitter(ids, capsys):
    Tender.objects.update(title_parts="", search_parts="", cpv_labels="")
    assert found(ids, "Mäher") == []
    call_command("reindex_search", "--batch-size", "3")
    out = capsys.readouterr().out
    assert f"3/{len(ids)} tenders" in out
    assert f"done: {len(ids)} tenders looked at, {len(ids)} updated" in out
    assert found(ids, "Mäher") == ["maeher"]
    assert found(ids, "Bewachung") == ["wache"]
    call_command("reindex_search")  # a rerun writes nothing
    assert "0 updated" in capsys.readouterr().out


def test_a_group_or_class_labels_compound_parts_find_nothing(ids):
    # 45261210 "Dachdeckarbeiten" sits under 45261200 "Dachdeck- und Dachanstricharbeiten": a roof is no
    # painting job. The class label's whole words still find it.
    assert "Dachanstricharbeiten" in Tender.objects.get(pk=ids["dach"]).cpv_labels
    assert found(ids, "Anstricharbeiten") == []
    assert found(ids, "Dachanstricharbeiten") == ["dach"]


def test_a_hit_in_a_codes_own_label_ranks_below_a_description_hit():
    records = {
        # "Computer" only as a part of its code's own label 30213000 "Personalcomputer"
        "label": NoticeRecordFactory(
            source_notice_id="own-label", title="Ausstattung Schulungsräume", cpv_codes=("30213000",)
        ),
        "beschreibung": NoticeRecordFactory(
            source_notice_id="description",
            title="Ausstattung Verwaltung Nord",
            description="Lieferung von 40 Computern mit Zubehör.",
            cpv_codes=("39100000",),
        ),
        # "… in Verbindung mit Personalcomputern …" is the label of its code's class only: not found
        "klasse": NoticeRecordFactory(
            source_notice_id="class-label", title="Wartung der Telefonanlage", cpv_codes=("50334400",)
        ),
    }
    notices_ingest(records=list(records.values()), now=NOW, use_fingerprint=False)
    ids = {
        key: Tender.objects.get(sources__source_notice_id=record.source_notice_id).pk for key, record in records.items()
    }
    assert found(ids, "Computer") == ["beschreibung", "label"]


def test_reindex_drops_the_parts_of_group_and_class_labels_stored_before(ids):
    # What the ingest stored before issue 30: the parts of every label, the groups' and classes' too.
    stale = " ".join(label_compound_parts(cpv_labels_for(("45261210",))))
    Tender.objects.filter(pk=ids["dach"]).update(search_parts=stale)
    assert found(ids, "Anstricharbeiten") == ["dach"]
    call_command("reindex_search")
    assert found(ids, "Anstricharbeiten") == []
    assert "anstricharbeiten" not in Tender.objects.get(pk=ids["dach"]).search_parts.split()


def test_reindex_skips_a_row_the_ingest_rewrote_meanwhile(ids):
    from tenders.services.search_index import _write

    tender_id = ids["buero"]
    assert _write([(tender_id, "alt", "alt", "alt", "not-the-stored-hash")]) == 0
    assert Tender.objects.get(pk=tender_id).cpv_labels != "alt"


def test_search_command_prints_the_portal_ranking(ids, capsys):
    call_command("search", "Reinigung", "--limit", "2", "--format", "jsonl")
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["id"] for row in rows] == [ids[key] for key in found(ids, "Reinigung")[:2]]
    assert rows[0]["title"] == "Reinigung der Sporthalle"
    assert rows[0]["rank"] > rows[1]["rank"] > 0
    call_command("search", "Mäher")
    assert capsys.readouterr().out.startswith(f"{ids['maeher']}\t")


def test_relevance_ranks_only_the_newest_candidates_but_counts_every_match(ids, monkeypatch):
    import tenders.search
    from tenders.pagination import EstimatedCountPaginator

    monkeypatch.setattr(tenders.search, "RANK_CANDIDATES", 2)
    ranked = tender_search(filters=TenderFilters(q="Reinigung"), order="relevance", now=NOW)
    every = tender_search(filters=TenderFilters(q="Reinigung"), order="published", now=NOW)
    newest_two = list(every.values_list("id", flat=True)[:2])
    assert sorted(ranked.values_list("id", flat=True)) == sorted(newest_two)
    assert EstimatedCountPaginator(ranked, 25, count_basis=every).count == every.count() == 4


def test_relevance_leaves_out_a_better_match_older_than_the_newest_candidates(ids, monkeypatch):
    """The documented limit (docs/architecture.md, "Known limits"): ranking sees the newest candidates only."""
    from datetime import timedelta

    import tenders.search

    Tender.objects.filter(pk=ids["reinigung"]).update(published_at=NOW - timedelta(days=30))
    assert tenders.search.RANK_CANDIDATES == 1000
    best = tender_search(filters=TenderFilters(q="Reinigung"), order="relevance", now=NOW).first()
    assert best.pk == ids["reinigung"]  # the word itself in the title ranks first among all four
    monkeypatch.setattr(tenders.search, "RANK_CANDIDATES", 3)
    ranked = list(tender_search(filters=TenderFilters(q="Reinigung"), order="relevance", now=NOW))
    assert len(ranked) == 3 and ids["reinigung"] not in {tender.pk for tender in ranked}


# Days before NOW the four "Reinigung" tenders were published (None: never); RECENT_CANDIDATES_WINDOW is 7 days.
@pytest.mark.parametrize(
    "published_days_ago",
    [
        {"gebaeude": 1, "unterhalt": 2, "buero": 3, "reinigung": 30},  # the last week holds the two newest
        {"gebaeude": 1, "unterhalt": 12, "buero": 20, "reinigung": 30},  # one of them is older
        {"gebaeude": 10, "unterhalt": 12, "buero": 20, "reinigung": 30},  # none in the last week
        {"gebaeude": None, "unterhalt": 2, "buero": None, "reinigung": 30},  # never published sorts last
        {"gebaeude": -2, "unterhalt": 6, "buero": 8, "reinigung": 7},  # dated ahead; the window's edge
    ],
)
def test_relevance_candidates_are_the_newest_whether_the_last_week_holds_them_or_not(
    ids, monkeypatch, published_days_ago
):
    from datetime import timedelta

    import tenders.search

    for key, days in published_days_ago.items():
        Tender.objects.filter(pk=ids[key]).update(published_at=None if days is None else NOW - timedelta(days=days))
    monkeypatch.setattr(tenders.search, "RANK_CANDIDATES", 2)
    ranked = tender_search(filters=TenderFilters(q="Reinigung"), order="relevance", now=NOW)
    every = tender_search(filters=TenderFilters(q="Reinigung"), order="published", now=NOW)
    assert sorted(ranked.values_list("id", flat=True)) == sorted(every.values_list("id", flat=True)[:2])


@pytest.mark.parametrize(("days_ago", "every_match_read"), [((1, 2, 3, 30), False), ((1, 12, 20, 30), True)])
def test_relevance_reads_every_match_only_if_the_last_week_holds_too_few(ids, monkeypatch, days_ago, every_match_read):
    from datetime import timedelta

    import tenders.search

    for key, days in zip(("gebaeude", "unterhalt", "buero", "reinigung"), days_ago, strict=True):
        Tender.objects.filter(pk=ids[key]).update(published_at=NOW - timedelta(days=days))
    monkeypatch.setattr(tenders.search, "RANK_CANDIDATES", 2)
    sql, params = tender_search(
        filters=TenderFilters(q="Reinigung"), order="relevance", now=NOW
    ).query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan

    def gated_parts(node):
        # The part of every match sits below a Result whose one-time filter says "fewer than the bound".
        if "< " in node.get("One-Time Filter", ""):
            yield node["Plans"][-1]
        for child in node.get("Plans", []):
            yield from gated_parts(child)

    (every_match,) = gated_parts(plan[0]["Plan"])
    assert (every_match["Actual Loops"] > 0) is every_match_read


@pytest.mark.parametrize(
    "published_days_ago",
    [
        {"gebaeude": 1, "unterhalt": 2, "buero": 3, "reinigung": 30},  # the week holds the candidates
        {"gebaeude": 10, "unterhalt": 12, "buero": None, "reinigung": 1},  # it does not: every match is read
    ],
)
@pytest.mark.parametrize(
    "filters", [TenderFilters(q="Reinigung"), TenderFilters(q="Reinigung", bundesland=("Bayern",))]
)
def test_a_list_of_the_shown_rows_is_the_first_rows_of_the_whole_list(ids, monkeypatch, published_days_ago, filters):
    from datetime import timedelta

    import tenders.search

    for key, days in published_days_ago.items():
        Tender.objects.filter(pk=ids[key]).update(published_at=None if days is None else NOW - timedelta(days=days))
    Tender.objects.filter(pk__in=ids.values()).update(bundesland="Bayern")
    monkeypatch.setattr(tenders.search, "RANK_CANDIDATES", 3)
    whole = list(tender_search(filters=filters, order="relevance", now=NOW).values_list("id", "rank"))
    assert len(whole) == 3
    for shown in (1, 2, 3, 4):
        listed = tender_search(filters=filters, order="relevance", now=NOW, shown=shown)
        assert list(listed.values_list("id", "rank")) == whole[:shown]
        # The portal's way: the ids and the candidates' count from one statement, then the rows of those ids.
        read = relevance_listed(
            filters=filters, now=NOW, keywords=keyword_query_build(q="Reinigung"), candidates=3, shown=shown
        )
        assert read.candidates == 3
        rows = tender_search(filters=filters, order="relevance", now=NOW, listed=read.ids)
        assert list(rows.values_list("id", flat=True)) == [pk for pk, _rank in whole[:shown]]


@pytest.mark.parametrize(("candidates", "counted"), [(2, 2), (4, 4), (10, 4)])
def test_the_portals_relevance_read_counts_the_candidates_up_to_the_bound(ids, candidates, counted):
    """Four tenders match "Reinigung": the count is every candidate, however few of them are shown."""
    keywords = keyword_query_build(q="Reinigung")
    read = relevance_listed(
        filters=TenderFilters(q="Reinigung"), now=NOW, keywords=keywords, candidates=candidates, shown=1
    )
    assert read.candidates == counted and len(read.ids) == 1
    nothing = relevance_listed(
        filters=TenderFilters(q="Glockenstuhl"),
        now=NOW,
        keywords=keyword_query_build(q="Glockenstuhl"),
        candidates=candidates,
        shown=1,
    )
    assert nothing == RelevanceListed(ids=(), candidates=0)


def test_a_list_of_the_shown_rows_fetches_no_other_row(ids):
    sql, params = tender_search(
        filters=TenderFilters(q="Reinigung"), order="relevance", now=NOW, shown=2
    ).query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan

    node = plan[0]["Plan"]
    while node["Node Type"] in ("Limit", "Sort"):  # the list's order, over the rows it holds
        node = node["Plans"][0]
    # The rows the list's statement fetches and ranks: the two shown, not the four candidates.
    assert node["Actual Rows"] == 2
