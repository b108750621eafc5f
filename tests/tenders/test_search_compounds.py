"""Compounds, CPV labels and the reindex: what a bid manager types finds what the notice calls it."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from django.core.management import call_command
from django.db import connection

from kernel.records import Lot
from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import TenderFilters
from tenders.models import Tender
from tenders.search import tender_search
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
    # A title's part weighs B, below the title's own words (A); the CPV parents' "Reinigungsdienste" adds a D.
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
