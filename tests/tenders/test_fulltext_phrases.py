"""tenders.fulltext: phrases across hyphens, a compound's head offered as a service, on real and worded tenders."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.db import connection

from kernel.vocabulary.compounds import STOPWORDS
from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import TenderFilters
from tenders.fulltext import keyword_query_build
from tenders.models import Tender
from tenders.search import tender_search
from tenders.services import notices_ingest
from tenders.suggestions import search_vocabulary_refresh
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)

pytestmark = pytest.mark.django_db

_TITLES = {
    # The title of a real DÖE notice (sources/demo_data/ted_search_2026-07.json).
    "kaserne": "Bewachung Henning-von-Tresckow-Kaserne",
    "wache": "Bewachung des Rathauses Henning",
    "gebaeude": "Gebäudereinigung Rathaus",
    "dienste": "Reinigungsdienste Bürgerhaus",
    "strasse": "Straßenreinigung Innenstadt",
    "mittel": "Lieferung von Reinigungsmitteln",
    "hlf": "Feuerwehr HLF 20 – Los 1 Winterdienst",
}


@pytest.fixture
def ids() -> dict[str, int]:
    records = {
        key: NoticeRecordFactory(
            source_notice_id=f"phrase-{key}",
            title=title,
            description="Siehe Vergabeunterlagen.",
            cpv_codes=("79000000",),  # a label naming none of the words searched
            submission_deadline=datetime(2027, 1, 1, tzinfo=BERLIN),
        )
        for key, title in _TITLES.items()
    }
    notices_ingest(records=list(records.values()), now=NOW, use_fingerprint=False)
    search_vocabulary_refresh()  # the title words a compound's head is searched in
    by_notice = dict(Tender.objects.values_list("sources__source_notice_id", "id"))
    return {key: by_notice[record.source_notice_id] for key, record in records.items()}


def found(ids, q: str) -> list[str]:
    by_id = {tender_id: key for key, tender_id in ids.items()}
    rows = tender_search(filters=TenderFilters(q=q), order="relevance", now=NOW).values_list("id", flat=True)
    return [by_id[pk] for pk in rows]


@pytest.mark.parametrize(
    "q",
    [
        '"Bewachung Henning"',  # the tender indexes the whole hyphenated word before "Henning"
        '"Henning-von-Tresckow"',  # a hyphenated part of a longer hyphenated word
        '"Henning von Tresckow Kaserne"',
        '"Bewachung Henning-von-Tresckow-Kaserne"',
        '"tresckow-kaserne"',
    ],
)
def test_a_phrase_finds_its_words_across_hyphens(ids, q):
    assert found(ids, q) == ["kaserne"]


def test_a_phrase_still_needs_its_words_in_order_and_together(ids):
    assert found(ids, '"Henning Bewachung"') == []
    # One word more between two is tolerated (where a hyphenated word stands in full), two are not.
    assert found(ids, '"Bewachung Rathauses"') == ["wache"]
    assert found(ids, '"Bewachung Henning"') == ["kaserne"]
    assert found(ids, '"HLF 20"') == ["hlf"]


def test_an_excluded_phrase_excludes_across_hyphens(ids):
    assert sorted(found(ids, 'Bewachung -"Bewachung Henning"')) == ["wache"]


def test_a_compound_finds_its_head_offered_as_a_service_ranked_below_itself(ids):
    # Not the head of other work ("Straßenreinigung") nor a supply ("Reinigungsmittel").
    assert found(ids, "Gebäudereinigung") == ["gebaeude", "dienste"]
    assert found(ids, "Gebäudereinigung Bürgerhaus") == ["dienste"]


def test_the_heads_forms_are_the_title_words_that_exist(ids):
    # Real lexemes the planner estimates from the statistics, not a prefix: a rare word stays rare.
    assert "reinigungsdien':a" in keyword_query_build(q="Gebäudereinigung").tsquery.lower()
    assert ":*" not in keyword_query_build(q="Glockenstuhl").tsquery


def test_the_german_configuration_drops_exactly_the_stopwords_phrases_count(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w FROM unnest(%s::text[]) AS w WHERE ts_lexize('german_stem', w) <> '{}'", [sorted(STOPWORDS)]
        )
        assert cursor.fetchall() == []


def test_a_plain_word_leaves_out_titles_naming_goods_after_it(ids):
    # "Reinigungsmitteln" are supplies, not the work "Reinigung"; the titles stating the work still count.
    hits = found(ids, "Reinigung")
    assert "mittel" not in hits
    assert {"gebaeude", "strasse"} <= set(hits)
