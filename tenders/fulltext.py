"""The keyword query: the user's words in PostgreSQL's websearch syntax, as one tsquery over ``search_vector``.

Each word is given to ``websearch_to_tsquery`` (so ``"phrases"``, ``-exclusions``
and ``or`` keep their meaning, and malformed input never raises) together with
its other spellings: umlauts written out ("Muell" also finds "Müll") and, for
a compound, its parts ("Reinigungsdienste" also finds "Reinigung" and "Dienste"
in one tender). Words are ANDed; ``or`` between two words ORs them.
"""

from __future__ import annotations

import re
from functools import reduce
from operator import and_, or_

from django.contrib.postgres.search import SearchQuery

from tenders.vocabulary.compounds import compound_split

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


def word_alternatives(token: str) -> list[str]:
    """The websearch texts one plain query word stands for: itself, its umlaut spellings, its compound parts."""
    alternatives = _umlaut_variants(token)
    for variant in list(alternatives):
        pieces = re.findall(r"[^\W\d_]+|\d+", variant)
        if len(pieces) > 1 and "-" in variant:  # "IT-Dienstleistungen" also as "IT Dienstleistungen", not only a phrase
            alternatives.append(" ".join(pieces))
        parts = compound_split(variant) if variant.isalpha() else ()
        if parts:
            alternatives.append(" ".join(parts))
    return list(dict.fromkeys(alternatives))


def _websearch(text: str) -> SearchQuery:
    return SearchQuery(text, config="german", search_type="websearch")


def search_query(q: str) -> SearchQuery:
    """The tsquery for the keywords ``q`` (see the module docstring)."""
    groups: list[list[SearchQuery]] = []
    join_next = False
    for token in query_tokens(q):
        if token.lower() == "or":
            join_next = bool(groups)
            continue
        if token.startswith(('"', "-")):
            query = _websearch(token)  # phrases and exclusions exactly as typed
        else:
            query = reduce(or_, (_websearch(text) for text in word_alternatives(token)))
        if join_next:
            groups[-1].append(query)
        else:
            groups.append([query])
        join_next = False
    if not groups:
        return _websearch(q)
    return reduce(and_, (reduce(or_, group) for group in groups))
