"""A search request compiles its keywords once: the rows, the count and the highlighting share them."""

from __future__ import annotations

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tenders.highlighting import has_hit
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

# A thesaurus word ("Müllabfuhr": "Abfallentsorgung", "Sperrmüllabfuhr" …), a phrase and an exclusion.
QUERY = 'Müllabfuhr "Kreisgebiet Nord" -Verwaltung'
_TENDERS = {
    "rest": ("Abfallentsorgung Restmüll und Bioabfall", "Sammlung im Kreisgebiet Nord, zwei Jahre."),
    "sperr": ("Sperrmüllabfuhr auf Abruf", "Abholung im Kreisgebiet Nord."),
    "papier": ("Altpapierentsorgung Verwaltung", "Abholung im Kreisgebiet Nord."),  # excluded
    "sued": ("Müllentsorgung Wertstoffhof", "Im Kreisgebiet Süd."),  # the phrase is not there
    "winter": ("Winterdienst Gemeindestraßen", "Im Kreisgebiet Nord."),  # no word of the search
}
FOUND = {"rest", "sperr"}


@pytest.fixture
def tenders(db) -> dict[str, int]:
    now = timezone.now()
    records = {
        key: NoticeRecordFactory(source_notice_id=f"once-{key}", title=title, description=text, cpv_codes=("90511000",))
        for key, (title, text) in _TENDERS.items()
    }
    notices_ingest(records=list(records.values()), now=now, use_fingerprint=False)
    from tenders.models import Tender

    by_notice = dict(Tender.objects.values_list("sources__source_notice_id", "id"))
    return {key: by_notice[record.source_notice_id] for key, record in records.items()}


def _synonym_reads(queries: CaptureQueriesContext) -> int:
    """Builds of the keywords: each reads the thesaurus' version once, and rewrites them only when this process
    has not compiled them against that version yet (``tenders.fulltext.keyword_query_build``)."""
    sql = [query["sql"] for query in queries.captured_queries]
    assert sum("ts_rewrite" in text for text in sql) <= sum("md5(" in text for text in sql)
    return sum("md5(" in text and "tenders_synonymgroup" in text for text in sql)


@pytest.mark.parametrize("order", ["relevance", "deadline", "published"])
def test_a_search_page_reads_the_thesaurus_once(alpha_client, tenders, order):
    alpha_client.get("/suche/")  # warm the session
    with CaptureQueriesContext(connection) as queries:
        response = alpha_client.get("/suche/", {"q": QUERY, "order": order})
    assert response.status_code == 200
    assert _synonym_reads(queries) == 1  # list, count and highlighting: one build of the keywords


def test_the_csv_export_reads_the_thesaurus_once(alpha_client, tenders):
    with CaptureQueriesContext(connection) as queries:
        response = alpha_client.get("/suche/export.csv", {"q": QUERY})
        body = b"".join(response.streaming_content).decode("utf-8-sig")
    assert _synonym_reads(queries) == 1
    rows = list(csv.reader(io.StringIO(body), delimiter=";"))
    titles = {row[1] for row in rows[1:] if len(row) > 1}
    assert {_TENDERS[key][0] for key in FOUND} <= titles
    assert not titles & {_TENDERS[key][0] for key in set(_TENDERS) - FOUND}


@pytest.mark.parametrize("order", ["relevance", "deadline", "published"])
def test_list_count_and_highlighting_agree(alpha_client, tenders, order):
    response = alpha_client.get("/suche/", {"q": QUERY, "order": order})
    page = response.context["page"]
    by_id = {tender_id: key for key, tender_id in tenders.items()}
    listed = {by_id[tender.pk] for tender in page.object_list if tender.pk in by_id}
    assert listed == FOUND
    assert page.paginator.count == len(page.object_list) == len(FOUND)
    for tender in page.object_list:
        marks = tender.highlight
        assert has_hit(marks.title), tender.title  # every row shows why it matched: the word or its synonym
        marked = {text for text, hit in marks.snippet if hit}
        assert marked == {"Kreisgebiet", "Nord"}, marked  # the phrase's words
        assert "Verwaltung" not in {text for text, hit in marks.title if hit}
    rest = next(t for t in page.object_list if t.pk == tenders["rest"])
    assert [text for text, hit in rest.highlight.title if hit] == ["Abfallentsorgung", "Restmüll", "Bioabfall"]


def test_a_search_that_finds_nothing_suggests_title_words(alpha_client, tenders):
    from tenders.suggestions import search_vocabulary_refresh

    search_vocabulary_refresh()
    response = alpha_client.get("/suche/", {"q": "Sperrmüllabfuhrr"})
    assert response.status_code == 200
    assert 'data-testid="suggestion"' in response.content.decode()
    assert "?q=sperrm%C3%BCllabfuhr" in response.content.decode()
    found = alpha_client.get("/suche/", {"q": "Sperrmüllabfuhr"})
    assert 'data-testid="suggestion"' not in found.content.decode()  # a search that finds something suggests nothing
