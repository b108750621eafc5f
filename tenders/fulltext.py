"""The keyword query: the user's words in PostgreSQL's websearch syntax, as one tsquery over ``search_vector``.

Each word is given to ``websearch_to_tsquery`` (so ``-exclusions`` and ``or`` keep
their meaning, and malformed input never raises) together with its other spellings:
umlauts written out ("Muell" also finds "Müll") and, for a compound, its parts
("Reinigungsdienste" also finds "Reinigung" and "Dienste" in one tender) and its head
offered as a service in a title ("Gebäudereinigung" also finds "Reinigungsdienste", mostly ranked
lower: ``tenders.title_forms.HeadQuery``). Words are ANDed; ``or`` between two words ORs them.

A ``"phrase"`` finds its words in order across hyphens (``PhraseQuery``): the parser indexes
"Henning-von-Tresckow-Kaserne" as the whole word followed by its pieces, so "Bewachung Henning"
stands two positions apart in the tender, not one as ``websearch_to_tsquery`` demands.

Synonyms (``tenders.models.SynonymGroup``, the procurement thesaurus) are applied by
PostgreSQL: each plain word's tsquery goes through ``ts_rewrite`` over the synonym table
(``SynonymRewrite``), and the rewritten tsquery is read back once and put into the search
as a constant, so the planner estimates its selectivity from the statistics as for any
typed word (an expression it cannot evaluate at planning gets a default selectivity and
sent a rare word down the deadline index of a million rows). SQL compiled from keywords
therefore depends on the thesaurus and the title vocabulary: cache it by ``keywords_version()``. Phrases and
exclusions stay exactly as typed, as with the other expansions.

The words come from ``kernel.vocabulary.search_words`` (the one place text becomes search words).
A query is built once, by ``keyword_query_build``, into a ``KeywordQuery``: the rewritten tsquery,
and the lexemes the highlighting marks, from one statement (one read of the thesaurus). The
result list, its count, the CSV export, the partner API, the highlighting and the matching of
saved searches all take that object; none of them expands the keywords again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache, reduce
from operator import and_, or_

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import TextField, Value
from django.db.models.expressions import RawSQL
from django.db.models.sql import Query

from kernel.vocabulary.search_words import (
    highlight_words,
    phrase_steps,
    plain_words,
    query_tokens,
    word_alternatives,
    word_head,
)
from tenders.own_tsquery import OwnTsQuery
from tenders.title_forms import MIN_GOODS_WORD, GoodsQuery, HeadQuery, tsquery_operand

_LEXEMES = re.compile(r"'((?:[^']|'')+)'")


def _websearch(text: str) -> SearchQuery:
    return SearchQuery(text, config="german", search_type="websearch")


# ts_rewrite applies its rows one after the other to the query as rewritten so far, so a group
# rewritten word by word would expand its own substitutes again (k words -> k² terms). Two stages
# avoid that: a group word becomes itself or the group's marker (a lexeme no document holds: the
# parser never keeps "§" in a word), then each marker becomes the group's words, which are not
# rewritten again. A word stands in one group only (tenders.services.synonyms checks).
SYNONYM_REWRITE_SQL = """
SELECT target, substitute FROM (
    SELECT 1 AS stage, g.id, websearch_to_tsquery('german', w) AS target,
           websearch_to_tsquery('german', w) || ('''§' || g.id || '''')::tsquery AS substitute
    FROM tenders_synonymgroup g, unnest(g.words) AS w
    UNION ALL
    SELECT 2, g.id, ('''§' || g.id || '''')::tsquery, g.substitute FROM tenders_synonymgroup g
) AS rules ORDER BY stage, id
"""
# Synonyms find the words a tender states (title, buyer, title parts: A, B; description: C), not
# weight D (labels of its CPV codes, parts of long compounds): a synonym of a word in a CPV label
# reaching the labels of neighbouring codes chains two loose links and mostly finds noise. The
# typed word itself keeps every weight.
SYNONYM_WEIGHTS = "ABC"


class SynonymRewrite(OwnTsQuery):
    """``query`` with thesaurus words replaced by their groups' words (evaluated by ``search_query``)."""

    function = "ts_rewrite"
    template = "%(function)s(%(expressions)s)"

    def __init__(self, query: SearchQuery):
        super().__init__(query, Value(SYNONYM_REWRITE_SQL))


def synonym_rewrite_text(words: list[str] | tuple[str, ...]) -> str:
    """``to_tsquery`` text finding each of ``words`` and its spellings.

    Not their compound parts: the parts of a typed word still apply (the word's other alternatives
    are not rewritten), but a synonym's parts ("Sicherheit" and "Dienst" of "Sicherheitsdienst")
    would find much the typed word does not mean.
    """
    alternatives = dict.fromkeys(alt for word in words for alt in word_alternatives(word, parts=False))
    return " | ".join(
        "(" + " & ".join(tsquery_operand(word, SYNONYM_WEIGHTS) for word in alt.split()) + ")" for alt in alternatives
    )


class TsQueryConstant(OwnTsQuery):
    """A tsquery PostgreSQL has built already, as a constant (lexemes are not normalised again)."""

    template = "%(expressions)s::tsquery"

    def __init__(self, text: str):
        super().__init__(Value(text))


class PhraseQuery(OwnTsQuery):
    """A typed phrase: each word followed by the next at its distance or one more (``phrase_steps``).

    One more, because the tender may hold the next word as the first piece of a hyphenated word,
    after the whole word ("Bewachung Henning-von-…": bewach 1, henning-von-… 2, henning 3). Each pair
    of neighbours is a condition of its own (ANDed), which keeps the query linear in the phrase's
    length; a tender must then hold every pair, nearly always at the same place.
    """

    def __init__(self, token: str):
        self.steps = phrase_steps(token)
        super().__init__(invert=token.startswith("-"))

    def as_sql(self, compiler, connection, **extra_context):
        word = "phraseto_tsquery('german', %s)"
        if not self.steps:
            sql, params = "''::tsquery", []
        elif len(self.steps) == 1:
            sql, params = word, [self.steps[0][0]]
        else:
            pairs, params = [], []
            for (left, _), (right, distance) in zip(self.steps, self.steps[1:], strict=False):
                pairs.append(f"(tsquery_phrase({word}, {word}, %s) || tsquery_phrase({word}, {word}, %s))")
                params += [left, right, distance, left, right, distance + 1]
            sql = " && ".join(pairs)
        return (f"!!({sql})" if self.invert else f"({sql})"), params


KEYWORDS_VERSION_SQL = (
    "SELECT md5(coalesce(string_agg(id || ':' || words::text || rewrite, ',' ORDER BY id), ''))"
    " || ':' || (SELECT generation FROM tenders_search_vocabulary_state)"
    " FROM tenders_synonymgroup"
)


def keywords_version() -> str:
    """Changes whenever what keywords are compiled against does: the key for caching SQL compiled from keywords.

    That is the thesaurus (its groups, by content) and the title vocabulary a compound's head and goods named
    after a word are looked up in (its generation, which every ``search_vocabulary_refresh`` advances).
    """
    with connection.cursor() as cursor:
        cursor.execute(KEYWORDS_VERSION_SQL)
        return cursor.fetchone()[0]


def keywords_version_column() -> RawSQL:
    """``keywords_version()`` as a column of a statement a page runs anyway (the tender page's tender row),
    so that its keywords compile without a statement of their own: pass the value as ``version``."""
    return RawSQL(f"({KEYWORDS_VERSION_SQL})", (), output_field=TextField())  # noqa: S611  (constant SQL, no input)


class TsQueryText(OwnTsQuery):
    """``to_tsquery('german', text)`` over operands we wrote ourselves (``tsquery_operand``)."""

    def __init__(self, text: str):
        self.text = text
        super().__init__()

    def as_sql(self, compiler, connection, **extra_context):
        return "to_tsquery('german', %s)", [self.text]


# A compound's parts ("Straßenbau": "Straße" and "Bau") count where the tender states them: title,
# buyer, title parts, description (A-C), not the labels of its CPV codes and the parts of long
# compounds (D). A part in a label chains two loose links: "Straße" in "Landesstraßen" and "Bau" in the
# label "Bauarbeiten" made every road marking and bridge a Straßenbau hit. The parts as one hyphenated or
# spaced word ("Software-Entwicklung" in a CPV label for "Softwareentwicklung") still count anywhere.
PART_WEIGHTS = "ABC"


def _word_query(token: str) -> SearchQuery:
    """One plain word: itself and its spellings anywhere, its compound parts where the tender states them."""
    whole = word_alternatives(token, parts=False)
    query = reduce(or_, (_websearch(text) for text in whole))
    for text in word_alternatives(token):
        if text not in whole:
            query |= TsQueryText(" & ".join(tsquery_operand(part, PART_WEIGHTS) for part in text.split()))
            query |= SearchQuery(text, config="german", search_type="phrase")
    return query


def _names_goods(token: str) -> bool:
    """Whether a plain word's search leaves out titles naming goods after it (``GoodsQuery``)."""
    return token.isalpha() and len(token) >= MIN_GOODS_WORD and not word_alternatives(token)[1:]


def _tsquery(q: str, *, goods: bool = True) -> SearchQuery:
    """The tsquery expression for the keywords ``q`` (see the module docstring), not yet evaluated.

    ``goods=False`` leaves out ``GoodsQuery`` (the query ``KeywordQuery.positive_tsquery`` ranks by).
    """
    groups: list[list[SearchQuery]] = []
    join_next = False
    for token in query_tokens(q):
        if token.lower() == "or":
            join_next = bool(groups)
            continue
        if token.startswith(('"', '-"')):
            query = PhraseQuery(token)  # phrases as typed, across hyphens
        elif token.startswith("-"):
            query = _websearch(token)  # exclusions exactly as typed
        else:
            query = SynonymRewrite(_word_query(token))
            if head := word_head(token):
                query = query | HeadQuery(head)
            elif goods and _names_goods(token):
                query = query & ~GoodsQuery(token.casefold())
        if join_next:
            groups[-1].append(query)
        else:
            groups.append([query])
        join_next = False
    if not groups:
        return _websearch(q)
    return reduce(and_, (reduce(or_, group) for group in groups))


@dataclass(frozen=True)
class KeywordQuery:
    """The user's keywords, compiled once: what the search matches and ranks, and what the highlighting marks.

    ``tsquery`` is the rewritten tsquery as text (synonyms are constants in it). ``lexemes`` are the
    German stems of the words a hit may carry (typed words, their spellings and parts, phrases);
    ``synonyms`` the further lexemes the thesaurus adds to the plain words (not to phrases, not to
    exclusions). Empty keywords compile to an empty object without asking the database.
    """

    text: str
    tsquery: str = ""
    lexemes: frozenset[str] = frozenset()
    synonyms: frozenset[str] = frozenset()
    # The tsquery without anything negated, typed exclusions or ``GoodsQuery`` ("" if there is none: then
    # ``tsquery``). What relevance ranks by: ts_rank gives any tsquery with a NOT the same 1e-20, so
    # "Reinigung -Straße" would be listed by deadline alone. And what a title-only search looks up in the
    # index before it reads the title (``title_search``): every tender ``tsquery`` finds matches it.
    positive_tsquery: str = ""

    @property
    def title_search(self) -> tuple[SearchQuery, SearchQuery]:
        """(index lookup, exact condition) of a search in the title only (``TenderFilters.q_scope`` "title").

        The exact condition is the whole tsquery over the title's words (A) and their compound parts (B) as
        ``title_vector`` builds them, without the buyer's name that shares weight B in ``search_vector``;
        the lookup, the tsquery without its exclusions over ``search_vector``, which every such tender
        matches (an excluded word in the description or a CPV label does not exclude it here).
        """
        return self.rank_search, self.search

    @property
    def search(self) -> SearchQuery:
        """The tsquery as a constant for ``search_vector`` lookups."""
        return TsQueryConstant(self.tsquery)

    @property
    def rank_tsquery(self) -> str:
        """What the found tenders are ranked by, as tsquery text: the tsquery without its negations."""
        return self.positive_tsquery or self.tsquery

    @property
    def rank_search(self) -> SearchQuery:
        """``rank_tsquery`` as a constant for ``SearchRank``."""
        return TsQueryConstant(self.rank_tsquery)

    def check_for(self, q: str) -> KeywordQuery:
        """``self``, if it was built for the keywords ``q``; a query built for other words would disagree silently."""
        if self.text != q:
            raise ValueError(f"keywords compiled for {self.text!r}, not for {q!r}")
        return self


def keyword_query_build(*, q: str, version: str | None = None) -> KeywordQuery:
    """The ``KeywordQuery`` for ``q``: one statement (thesaurus rewrite and stems together); none for no ``q``.

    The statement's answer is kept per process for the same statement, values and ``keywords_version``
    (``_rewrite_answer``): the rewrite evaluates every thesaurus word's tsquery, 3-9 ms a search page, where
    reading the version costs a fraction of a millisecond. ``version``: the version this request already
    read (``keywords_version_column``); without it, it is read here.
    """
    if not q:
        return KeywordQuery(text=q)
    statement, values = _keyword_statement(q)
    tsquery, rewritten, positive, stems = _rewrite_answer(statement, values, version or keywords_version())
    lexemes = frozenset(stems or ())
    synonyms = frozenset(
        lexeme.replace("''", "'") for lexeme in _LEXEMES.findall(rewritten or "") if not lexeme.startswith("§")
    )
    return KeywordQuery(
        text=q, tsquery=tsquery, lexemes=lexemes, synonyms=synonyms - lexemes, positive_tsquery=positive or ""
    )


@lru_cache(maxsize=1024)  # pure in ``q``; compiling cost a search page about a millisecond of Python
def _keyword_statement(q: str) -> tuple[str, tuple]:
    """The keyword statement for ``q`` and its values (lists as tuples): the words' spellings, parts, heads and
    goods are Python's; what the database holds (thesaurus, title vocabulary) the statement itself reads."""
    compiler = Query(None).get_compiler(connection=connection)

    def compiled(query: SearchQuery) -> tuple[str, list]:
        sql, params = compiler.compile(query.resolve_expression(compiler.query))
        return sql, list(params)

    full_sql, full_params = compiled(_tsquery(q))
    tokens = query_tokens(q)
    positive_words = [token for token in tokens if not token.startswith("-")]
    negated = len(positive_words) < len(tokens) or any(_names_goods(token) for token in positive_words)
    positive_sql, positive_params = (
        compiled(_tsquery(" ".join(positive_words), goods=False)) if negated and positive_words else ("NULL", [])
    )
    plain = plain_words(q)
    # The thesaurus words the highlighting marks: those of the plain words alone (an excluded word's are not).
    synonyms_sql, synonyms_params = compiled(_tsquery(" ".join(plain))) if plain else ("NULL", [])
    # The SQL is compiled from our own expressions; every value is a parameter.
    statement = (
        f"SELECT ({full_sql})::text, ({synonyms_sql})::text, ({positive_sql})::text, "  # noqa: S608
        "ARRAY(SELECT DISTINCT lexeme FROM unnest(%s::text[]) AS w, unnest(ts_lexize('german_stem', w)) AS lexeme)"
    )
    values = tuple(
        tuple(v) if isinstance(v, list) else v
        for v in (*full_params, *synonyms_params, *positive_params, sorted(highlight_words(q)))
    )
    return statement, values


# Keyed by everything the answer depends on: the statement and its values (the words, their parts and
# alternatives as this process compiled them), the thesaurus the database rewrites with and the title
# vocabulary it looks heads and goods up in (``keywords_version``). Keywords, thesaurus and vocabulary are no
# tenant's, so the cache holds nothing of one; it is bounded.
@lru_cache(maxsize=1024)
def _rewrite_answer(statement: str, values: tuple, version: str) -> tuple:
    """The keyword statement's one row for ``values`` (tuples become arrays) under ``keywords_version`` ``version``."""
    with connection.cursor() as cursor:
        cursor.execute(statement, [list(v) if isinstance(v, tuple) else v for v in values])
        return tuple(cursor.fetchone())
