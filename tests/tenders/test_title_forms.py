"""A query word's title forms: operands that stay one word whatever is typed, and the forms looked up in the
title vocabulary (a compound's head as a service, goods named after a word)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.db.models.sql import Query

from tenders.title_forms import GoodsQuery, HeadQuery, tsquery_operand


@pytest.mark.parametrize("word", ["Reinigung", "O'Brien", "a\\' | b", "x' & !y", "':*"])
@pytest.mark.django_db
def test_an_operand_is_one_word_restricted_to_its_weights(word):
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_tsquery('simple', %s)::text", [tsquery_operand(word, "A")])
        (text,) = cursor.fetchone()
    # Whatever the word holds, PostgreSQL reads one operand (its parser may split it into words that follow each
    # other, or find none), never an operator the user typed, and every lexeme keeps the weight.
    assert "|" not in text and "!" not in text and "&" not in text
    lexemes = re.findall(r"'(?:[^']|'')*'(:[A-D]+)?", text)
    assert all(weight == ":A" for weight in lexemes)


def _compiled(query) -> str:
    compiler = Query(None).get_compiler(connection=connection)
    sql, params = compiler.compile(query.resolve_expression(compiler.query))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT ({sql})::text", params)  # noqa: S608 (our own expression; values are parameters)
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_head_and_goods_forms_are_the_title_words_the_vocabulary_holds():
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE tenders_search_vocabulary (word text, tenders integer);"
            "INSERT INTO tenders_search_vocabulary VALUES"
            " ('reinigungsdienste', 3), ('reinigungsmitteln', 2), ('reinigungsplan', 1), ('reinigung', 9)"
        )
    try:
        assert _compiled(HeadQuery("reinigung")) == "'reinigungsdien':A"
        goods = _compiled(GoodsQuery("reinigung"))
        # Titles naming cleaning agents, unless they also say the word itself.
        assert goods == "'reinigungsmitteln':A & !'reinig':A"
        assert _compiled(HeadQuery("straßenbau")) == ""  # no such title word: an empty query, never an error
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE pg_temp.tenders_search_vocabulary")
