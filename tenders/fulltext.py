"""The keyword query: the user's words in PostgreSQL's websearch syntax, as one tsquery over ``search_vector``.

Each word is given to ``websearch_to_tsquery`` (so ``"phrases"``, ``-exclusions``
and ``or`` keep their meaning, and malformed input never raises) together with
its other spellings: umlauts written out ("Muell" also finds "Müll") and, for
a compound, its parts ("Reinigungsdienste" also finds "Reinigung" and "Dienste"
in one tender). Words are ANDed; ``or`` between two words ORs them.

Synonyms (``tenders.models.SynonymGroup``, the procurement thesaurus) are applied by
PostgreSQL: each plain word's tsquery goes through ``ts_rewrite`` over the synonym table
(``SynonymRewrite``), and the rewritten tsquery is read back once and put into the search
as a constant, so the planner estimates its selectivity from the statistics as for any
typed word (an expression it cannot evaluate at planning gets a default selectivity and
sent a rare word down the deadline index of a million rows). SQL compiled from keywords
therefore depends on the thesaurus: cache it by ``thesaurus_version()``. Phrases and
exclusions stay exactly as typed, as with the other expansions.
"""

from __future__ import annotations

import re
from functools import reduce
from operator import and_, or_

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import Func, Value
from django.db.models.sql import Query

from kernel.vocabulary.compounds import compound_split

_UMLAUT_SPELLINGS = (("ae", "ä"), ("oe", "ö"), ("ue", "ü"), ("ss", "ß"))
_TOKENS = re.compile(r'-?"[^"]*"|\S+')


def query_tokens(q: str) -> list[str]:
    """The tokens of a keyword query as websearch reads them: ``"phrases"``, ``-exclusions``, ``or`` and words."""
    return _TOKENS.findall(q or "")


def _umlaut_variants(word: str) -> list[str]:
    """ "Muell" also finds "Müll": the German stemmer folds ü to u, but not ue."""
    variants = [word]
    lowered = word.lower()
    for plain, umlaut in _UMLAUT_SPELLINGS:
        if plain in lowered:
            variants.append(lowered.replace(plain, umlaut))
    return variants


def websearch_text(q: str) -> str:
    """The user's query in PostgreSQL websearch syntax, umlaut spellings expanded with ``or``.

    Kept for callers that need one websearch string; ``search_query`` builds the
    tsquery word by word instead, so that a word's spellings group correctly.
    """
    out = []
    for token in query_tokens(q):
        if token.startswith(('"', '-"', "-")) or token.lower() == "or":
            out.append(token)
            continue
        variants = _umlaut_variants(token)
        out.append(" or ".join(variants) if len(variants) > 1 else token)
    return " ".join(out)


def word_alternatives(token: str, *, parts: bool = True) -> list[str]:
    """The websearch texts one plain query word stands for: itself, its umlaut spellings, its compound parts."""
    alternatives = _umlaut_variants(token)
    for variant in list(alternatives):
        pieces = re.findall(r"[^\W\d_]+|\d+", variant)
        if len(pieces) > 1 and "-" in variant:  # "IT-Dienstleistungen" also as "IT Dienstleistungen", not only a phrase
            alternatives.append(" ".join(pieces))
        split = compound_split(variant) if parts and variant.isalpha() else ()
        if split:
            alternatives.append(" ".join(split))
    return list(dict.fromkeys(alternatives))


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


class SynonymRewrite(SearchQuery):
    """``query`` with thesaurus words replaced by their groups' words (evaluated by ``search_query``)."""

    # A SearchQuery, so lookups and SearchRank take it as the tsquery it is (they wrap anything else).
    function = "ts_rewrite"
    template = "%(function)s(%(expressions)s)"

    def __init__(self, query: SearchQuery):
        self.config, self.invert = None, False
        Func.__init__(self, query, Value(SYNONYM_REWRITE_SQL))


def _tsquery_operand(word: str) -> str:
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "':" + SYNONYM_WEIGHTS


def synonym_rewrite_text(words: list[str] | tuple[str, ...]) -> str:
    """``to_tsquery`` text finding each of ``words`` and its spellings.

    Not their compound parts: the parts of a typed word still apply (the word's other alternatives
    are not rewritten), but a synonym's parts ("Sicherheit" and "Dienst" of "Sicherheitsdienst")
    would find much the typed word does not mean.
    """
    alternatives = dict.fromkeys(alt for word in words for alt in word_alternatives(word, parts=False))
    return " | ".join("(" + " & ".join(map(_tsquery_operand, alt.split())) + ")" for alt in alternatives)


class TsQueryConstant(SearchQuery):
    """A tsquery PostgreSQL has built already, as a constant (lexemes are not normalised again)."""

    template = "%(expressions)s::tsquery"

    def __init__(self, text: str):
        self.config, self.invert = None, False
        Func.__init__(self, Value(text))


def _evaluated(query: SearchQuery) -> TsQueryConstant:
    compiler = Query(None).get_compiler(connection=connection)
    sql, params = compiler.compile(query.resolve_expression(compiler.query))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT ({sql})::text", params)
        return TsQueryConstant(cursor.fetchone()[0])


def thesaurus_version() -> str:
    """Changes whenever the thesaurus does: the key for caching SQL compiled from keywords."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT md5(coalesce(string_agg(id || ':' || words::text || rewrite, ',' ORDER BY id), ''))"
            " FROM tenders_synonymgroup"
        )
        return cursor.fetchone()[0]


def search_query(q: str) -> SearchQuery:
    """The tsquery for the keywords ``q`` (see the module docstring); reads the thesaurus."""
    groups: list[list[SearchQuery]] = []
    join_next = False
    for token in query_tokens(q):
        if token.lower() == "or":
            join_next = bool(groups)
            continue
        if token.startswith(('"', "-")):
            query = _websearch(token)  # phrases and exclusions exactly as typed
        else:
            query = SynonymRewrite(reduce(or_, (_websearch(text) for text in word_alternatives(token))))
        if join_next:
            groups[-1].append(query)
        else:
            groups.append([query])
        join_next = False
    if not groups:
        return _websearch(q)
    return _evaluated(reduce(and_, (reduce(or_, group) for group in groups)))
