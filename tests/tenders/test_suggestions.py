"""tenders.suggestions: 'Meinten Sie …' from the words of tender titles."""

from __future__ import annotations

from datetime import datetime

import pytest

from kernel.vocabulary.time_zone import BERLIN
from tenders.services import notices_ingest
from tenders.suggestions import MAX_WORDS, query_suggestion, search_vocabulary_refresh
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)

pytestmark = pytest.mark.django_db


@pytest.fixture
def vocabulary() -> None:
    titles = [
        "Reinigung der Sporthalle",
        "Reinigung Rathaus",
        "Reinigungsdienste Bürgerhaus",
        "Bewachung Henning-von-Tresckow-Kaserne",
        "Straßenbau Ortsdurchfahrt",
    ]
    records = [NoticeRecordFactory(source_notice_id=f"vocabulary-{i}", title=title) for i, title in enumerate(titles)]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)
    search_vocabulary_refresh()


@pytest.mark.parametrize(
    ("q", "suggestion"),
    [
        ("Reinigungg", "reinigung"),
        ("Bewachnug Kaserne", "bewachung Kaserne"),  # a known word stays as typed
        ("Strassenbau", ""),  # its other spelling is in a title: the search finds it, nothing to suggest
        ("Reinigung", ""),
        ("xyzzy", ""),  # nothing near enough
        ('"Reinigungg" -Rathauss or', ""),  # phrases, exclusions and operators stay as typed
        ("", ""),
    ],
)
def test_suggestion(vocabulary, q, suggestion):
    assert query_suggestion(q=q) == suggestion


def test_hostile_input_is_a_parameter_and_bounded(vocabulary, django_assert_max_num_queries):
    assert query_suggestion(q="Reinigungg'); DROP TABLE tenders_tender; --") == ""
    with django_assert_max_num_queries(1):
        suggestion = query_suggestion(q=" ".join(["Reinigungg"] * (MAX_WORDS + 5)))
    assert suggestion.split().count("reinigung") == MAX_WORDS


def test_the_vocabulary_is_empty_until_refreshed(db):
    notices_ingest(records=[NoticeRecordFactory(title="Reinigung Rathaus")], now=NOW, use_fingerprint=False)
    assert query_suggestion(q="Reinigungg") == ""
    search_vocabulary_refresh()
    assert query_suggestion(q="Reinigungg") == "reinigung"


PAIRS = [
    ("reinigung", "reinigungg"),
    ("bewachung", "bewachnug"),
    ("straßenbau", "strassenbau"),
    ("kaserne", "xyzzy"),
    ("henning-von-tresckow", "tresckow"),
    ("gebäudereinigung", "gebaudereinigung"),
]


@pytest.mark.parametrize(("left", "right"), PAIRS)
def test_the_own_trigram_similarity_is_pg_trgms(left, right):
    from django.db import connection

    from tenders.suggestions import _server_has_trigrams, trigram_similarity

    if not _server_has_trigrams(connection.alias):
        pytest.skip("this server has no pg_trgm to compare with (the embedded one)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT similarity(%s, %s)", [left, right])
        expected = cursor.fetchone()[0]
    assert trigram_similarity(left, right) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("q", "suggestion"),
    [("Reinigungg", "reinigung"), ("Bewachnug Kaserne", "bewachung Kaserne"), ("Strassenbau", ""), ("xyzzy", "")],
)
def test_without_pg_trgm_the_same_suggestions_in_one_query(
    vocabulary, monkeypatch, django_assert_max_num_queries, q, suggestion
):
    # The embedded PostgreSQL of a first run ships no pg_trgm: the similarity is computed in Python then.
    monkeypatch.setattr("tenders.suggestions._server_has_trigrams", lambda alias="default": False)
    with django_assert_max_num_queries(1):
        assert query_suggestion(q=q) == suggestion
