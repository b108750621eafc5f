"""One home for search words (``kernel.vocabulary.search_words``) and one build of the keyword query.

The AST checks read the product's own modules: a second place that splits compounds or
tokenises words would let the index, the query and the highlighting drift apart.
"""

from __future__ import annotations

import ast
from datetime import datetime
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import TenderFilters
from tenders.fulltext import KeywordQuery, keyword_query_build
from tenders.highlighting import Highlighter, has_hit, tender_highlights
from tenders.search import tender_search

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("kernel", "accounts", "config", "notifications", "sources", "tenders", "bench")
HOME = Path("kernel/vocabulary/search_words.py")
SPLITTER = Path("kernel/vocabulary/compounds.py")
# The low-level word splitter; remember_compound_parts / REMEMBERED_MAX only hand its results between processes.
SPLITTER_NAMES = {"compound_split", "compound_parts", "_compound_parts", "_split", "_segment"}
WORD_PATTERN = r"[^\W\d_]"  # a run of letters: the tokeniser of search words


def _modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if "migrations" in relative.parts:
                continue
            yield relative, ast.parse(path.read_text(encoding="utf-8"), filename=str(relative))


def _splitter_uses(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "kernel.vocabulary.compounds":
            found += [alias.name for alias in node.names if alias.name in SPLITTER_NAMES]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in SPLITTER_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id == "compounds"
        ):
            found.append(f"compounds.{node.attr}")
    return found


def test_only_the_home_calls_the_compound_splitter():
    offenders = {
        str(path): uses for path, tree in _modules() if path not in (HOME, SPLITTER) and (uses := _splitter_uses(tree))
    }
    assert offenders == {}, "split words through kernel.vocabulary.search_words"


def test_only_the_home_tokenises_text_into_words():
    offenders = sorted(
        str(path)
        for path, tree in _modules()
        if path != HOME
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and WORD_PATTERN in node.value
    )
    assert offenders == [], "take words from kernel.vocabulary.search_words (text_words, text_pieces …)"


def test_nothing_builds_the_tsquery_but_the_keyword_query_builder():
    """``search_query`` (built anew by every caller) is gone; the tsquery comes from ``keyword_query_build``."""
    offenders = sorted(
        str(path)
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module == "tenders.fulltext"
        and any(alias.name in {"_tsquery", "SynonymRewrite", "search_query"} for alias in node.names)
    )
    assert offenders == []


def _synonym_reads(queries: CaptureQueriesContext) -> int:
    return sum("tenders_synonymgroup" in query["sql"] for query in queries.captured_queries)


@pytest.mark.django_db
def test_a_keyword_query_is_one_statement_and_highlighting_it_does_not_expand_again(django_assert_num_queries):
    with CaptureQueriesContext(connection) as built:
        keywords = keyword_query_build(q='Müllabfuhr "Kreisgebiet Nord" -Verwaltung')
    statements = [query["sql"] for query in built.captured_queries if not query["sql"].startswith("SET search_path")]
    # The thesaurus' version, then (unless this process asked it before) the rewrite and the stems in one round trip.
    assert statements[0].startswith("SELECT md5(") and len(statements) <= 2
    assert sum("ts_rewrite" in sql for sql in statements) <= 1
    assert isinstance(keywords, KeywordQuery) and keywords.text == 'Müllabfuhr "Kreisgebiet Nord" -Verwaltung'
    assert "abfallentsorg" in keywords.synonyms  # a thesaurus word of the plain word
    assert {"mullabfuhr", "kreisgebiet", "nord"} <= keywords.lexemes
    assert "verwalt" not in keywords.lexemes | keywords.synonyms  # excluded: never marked

    with django_assert_num_queries(0):
        highlighter = Highlighter(keywords)
    tender = type("Row", (), {"pk": 1, "title": "Abfallentsorgung Verwaltung", "description": "", "cpv_codes": []})
    with CaptureQueriesContext(connection) as queries:
        marks = tender_highlights(q=keywords, tenders=[tender])[1]
        assert has_hit(highlighter.segments("Abfallentsorgung im Kreisgebiet Nord"))
    assert _synonym_reads(queries) == 0
    assert [text for text, hit in marks.title if hit] == ["Abfallentsorgung"]


@pytest.mark.django_db
def test_empty_keywords_ask_nothing(django_assert_num_queries):
    with django_assert_num_queries(0):
        keywords = keyword_query_build(q="")
        assert not Highlighter(keywords).active


@pytest.mark.django_db
def test_keywords_built_for_other_words_are_refused():
    keywords = keyword_query_build(q="Winterdienst")
    now = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)
    with pytest.raises(ValueError, match="Winterdienst"):
        tender_search(filters=TenderFilters(q="Müllabfuhr"), order="relevance", now=now, keywords=keywords)
