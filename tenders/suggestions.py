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

Where the server has no pg_trgm (the embedded PostgreSQL of a first run ships no contrib modules),
the same similarity is computed here (``trigram_similarity``, pg_trgm's rule) over the vocabulary's
words that share the typed word's first letter, read in one query: a typo in the first letter then
goes unsuggested, nothing else differs.
"""

from __future__ import annotations

from functools import cache

from django.db import connection, transaction

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


# Without pg_trgm: every vocabulary word sharing a first letter with a typed spelling, in one read.
_CANDIDATES_SQL = "SELECT word, tenders FROM tenders_search_vocabulary WHERE left(word, 1) = ANY (%s)"


@cache
def _server_has_trigrams(alias: str = "default") -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')")
        return bool(cursor.fetchone()[0])


def _trigrams(text: str) -> set[str]:
    """pg_trgm's trigrams: each alphanumeric run lower-cased, padded with two spaces before and one after."""
    found: set[str] = set()
    word = []
    for char in text.lower() + " ":
        if char.isalnum():
            word.append(char)
            continue
        if word:
            padded = "  " + "".join(word) + " "
            found.update(padded[i : i + 3] for i in range(len(padded) - 2))
            word = []
    return found


def trigram_similarity(left: str, right: str) -> float:
    """pg_trgm's ``similarity``: shared trigrams over all distinct trigrams of both."""
    a, b = _trigrams(left), _trigrams(right)
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _rows_without_trigram_index(cursor, words: list[str], spellings: list[str]) -> list[tuple[bool, str | None]]:
    """(known, nearest) per typed word, as ``_SUGGEST_SQL`` gives them, computed here in one read."""
    letters = sorted({spelling[0] for group in spellings for spelling in group.split()} | {w[0] for w in words})
    cursor.execute(_CANDIDATES_SQL, [letters])
    vocabulary = dict(cursor.fetchall())
    rows = []
    for word, group in zip(words, spellings, strict=True):
        known = any(spelling in vocabulary for spelling in group.split())
        best = None
        for candidate, tenders in vocabulary.items():
            if candidate[0] != word[0]:
                continue
            score = trigram_similarity(candidate, word)
            if score >= MIN_SIMILARITY and (
                best is None or (score, tenders, _reverse(candidate)) > (best[0], best[1], _reverse(best[2]))
            ):
                best = (score, tenders, candidate)
        rows.append((known, best[2] if best else None))
    return rows


def _reverse(word: str) -> tuple[int, ...]:
    # Ties on similarity and frequency go to the alphabetically first word, as ORDER BY … v.word does.
    return tuple(-ord(char) for char in word)


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
        if _server_has_trigrams(connection.alias):
            cursor.execute(_SUGGEST_SQL, [MIN_SIMILARITY, words, spellings])
            rows = cursor.fetchall()
        else:
            rows = _rows_without_trigram_index(cursor, words, spellings)
    suggested = list(tokens)
    for i, (known, nearest) in zip(plain, rows, strict=True):
        if not known and nearest:
            suggested[i] = nearest
    return " ".join(suggested) if suggested != tokens else ""


def search_vocabulary_refresh() -> None:
    """Read the newest titles' words again; searches keep reading the previous list meanwhile.

    The list and its generation change in one transaction: keyword answers kept per process are keyed by
    the generation (``tenders.fulltext.keywords_version``), so none outlives the words it was computed from.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("REFRESH MATERIALIZED VIEW CONCURRENTLY tenders_search_vocabulary")
        cursor.execute(
            "UPDATE tenders_search_vocabulary_state SET generation = nextval('tenders_search_vocabulary_generation')"
        )
