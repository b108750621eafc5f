"""'Meinten Sie …': a search that finds nothing suggests the nearest words of tender titles (pg_trgm).

The vocabulary is a materialised view (``tenders_search_vocabulary``, migration 0016) of the
words in the titles of the newest 200,000 tenders (``ts_stat`` over the ``simple`` configuration: lower case,
not stemmed, so a suggestion is a word as tenders write it), refreshed by the periodic
task ``tenders.refresh_search_vocabulary`` without blocking searches (``CONCURRENTLY``).
A word typed that the vocabulary holds is kept; a word it does not hold is replaced by the
most similar word (trigram similarity at least ``MIN_SIMILARITY``, the more frequent one
on a tie). Only plain words are corrected: phrases, exclusions and ``or`` stay as typed.

Everything typed is a parameter; at most ``MAX_WORDS`` words of at most ``MAX_WORD_LENGTH``
letters are looked up, so a long query costs no more than a short one.
"""

from __future__ import annotations

from django.db import connection

from kernel.vocabulary.search_words import query_tokens, umlaut_variants

MIN_SIMILARITY = 0.4  # "Bewachnug" and "Bewachung" share 6 of 14 trigrams (0.43)
MAX_WORDS = 8
MAX_WORD_LENGTH = 40

_SUGGEST_SQL = """
SELECT EXISTS (SELECT 1 FROM tenders_search_vocabulary v WHERE v.word = ANY (string_to_array(typed.spellings, ' '))),
       (SELECT v.word FROM tenders_search_vocabulary v
        WHERE v.word %% typed.word AND similarity(v.word, typed.word) >= %s
        ORDER BY similarity(v.word, typed.word) DESC, v.tenders DESC, v.word LIMIT 1)
FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS typed(word, spellings, position)
ORDER BY typed.position
"""


def _checkable(token: str) -> bool:
    return token.isalpha() and len(token) <= MAX_WORD_LENGTH


def query_suggestion(*, q: str) -> str:
    """``q`` with its unknown words replaced by the nearest title words; "" when there is nothing to suggest."""
    tokens = query_tokens(q)
    plain = [i for i, token in enumerate(tokens) if _checkable(token) and token.lower() != "or"][:MAX_WORDS]
    if not plain:
        return ""
    # Lower case as the vocabulary is (not casefold, which would spell "ß" as "ss").
    words = [tokens[i].lower() for i in plain]
    spellings = [" ".join(dict.fromkeys(v.lower() for v in umlaut_variants(word))) for word in words]
    with connection.cursor() as cursor:
        cursor.execute(_SUGGEST_SQL, [MIN_SIMILARITY, words, spellings])
        rows = cursor.fetchall()
    suggested = list(tokens)
    for i, (known, nearest) in zip(plain, rows, strict=True):
        if not known and nearest:
            suggested[i] = nearest
    return " ".join(suggested) if suggested != tokens else ""


def search_vocabulary_refresh() -> None:
    """Read the newest titles' words again; searches keep reading the previous list meanwhile."""
    with connection.cursor() as cursor:
        cursor.execute("REFRESH MATERIALIZED VIEW CONCURRENTLY tenders_search_vocabulary")
