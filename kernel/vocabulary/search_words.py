"""Search words: the one place where text becomes the words the search index holds and a query looks for. Pure.

Every path that turns text into search words comes here, so the index, the keyword query
and the highlighting cannot drift apart:

- the ingest (``tenders.merging.compiling``; the parse workers in ``sources.adapters.doe.reading``):
  the compound parts of titles, lots, descriptions and CPV labels (``text_compound_parts``,
  ``label_compound_parts``, ``words_compound_parts``) for the ``title_parts`` and ``search_parts``
  columns of ``search_vector``;
- the keyword query (``tenders.fulltext``): the user's tokens as websearch reads them
  (``query_tokens``), the plain words among them (``plain_words``), what each plain word
  stands for (``word_alternatives``: itself, its umlaut spellings, its hyphen pieces, its compound parts;
  ``word_head``: the head of a compound, found on its own at a lower rank) and the words of a phrase
  with their distances (``phrase_steps``);
- the highlighting (``tenders.highlighting``): a text's words and the gaps between them
  (``text_pieces``, ``text_words``), a word's compound parts (``word_parts``) and the words of a
  query that can be marked (``highlight_words``).

Compounds are split by ``kernel.vocabulary.compounds``, which nothing else calls; lexemes are
PostgreSQL's German stems of these words, in the index, the tsquery and the highlighting alike.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from functools import lru_cache

from kernel.vocabulary.compounds import MIN_WORD_LENGTH, STOPWORDS, compound_parts, compound_split

_UMLAUT_SPELLINGS = (("ae", "ä"), ("oe", "ö"), ("ue", "ü"), ("ss", "ß"))
_TOKENS = re.compile(r'-?"[^"]*"|\S+')
_WORD = re.compile(r"[^\W\d_]+")  # letters only: numbers and codes are never compounds
_PIECES = re.compile(r"[^\W\d_]+|[\W\d_]+")
_WORD_OR_NUMBER = re.compile(r"[^\W\d_]+|\d+")
# The words worth splitting, found by the regex engine alone: a run of letters shorter than
# MIN_WORD_LENGTH fails at its first letter and no later start inside it can match.
_LONG_WORD = re.compile(rf"[^\W\d_]{{{MIN_WORD_LENGTH},}}")
# The words of a phrase: what lies between spaces and hyphens (dashes too), if it holds a letter or digit.
_PHRASE_PIECE = re.compile(r"[^\s\-\u2010-\u2015]*[^\W_][^\s\-\u2010-\u2015]*")
# Heads that name a kind of contract rather than the work: "Winterdienst" is no "Dienst" of any
# kind, "Malerarbeiten" no "Arbeiten" of any kind. The head of such a compound is not searched alone.
_GENERIC_HEADS = frozenset(
    """
    arbeit arbeiten leistung leistungen dienst dienste dienstleistung dienstleistungen bau bauten
    lieferung lieferungen maßnahme massnahme maßnahmen massnahmen vergabe auftrag aufträge vertrag
    verträge anlage anlagen system systeme mittel material materialien gerät geräte teil teile werk
    werke sachen waren artikel stoffe bedarf service services betrieb objekt objekte
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
# The words of a title that offer work as a service: "Reinigungsdienste" is what "Gebäudereinigung" may
# mean, "Reinigungsmittel" is not (``word_head``, ``tenders.title_forms.HeadQuery``).
SERVICE_WORDS = ("dienst", "dienste", "dienstleistung", "dienstleistungen", "leistung", "leistungen", "arbeiten")
# A shorter head ("bus", "halt", "ecke") is as often a splitting accident as a word of its own.
MIN_HEAD_LENGTH = 5


# --- the keyword query ---------------------------------------------------------------------------------------


def query_tokens(q: str) -> list[str]:
    """The tokens of a keyword query as websearch reads them: ``"phrases"``, ``-exclusions``, ``or`` and words."""
    return _TOKENS.findall(q or "")


def is_operator(token: str) -> bool:
    return token.lower() == "or"


def is_plain(token: str) -> bool:
    """A word searched with its alternatives and synonyms; phrases, exclusions and ``or`` are taken as typed."""
    return not token.startswith(('"', "-")) and not is_operator(token)


def plain_words(q: str) -> list[str]:
    """The plain words of ``q`` (no phrases, no exclusions, no ``or``): the ones the thesaurus expands."""
    return [token for token in query_tokens(q) if is_plain(token)]


def umlaut_variants(word: str) -> list[str]:
    """ "Muell" also finds "Müll": the German stemmer folds ü to u, but not ue."""
    variants = [word]
    lowered = word.lower()
    for plain, umlaut in _UMLAUT_SPELLINGS:
        if plain in lowered:
            variants.append(lowered.replace(plain, umlaut))
    return variants


def websearch_text(q: str) -> str:
    """The user's query in PostgreSQL websearch syntax, umlaut spellings expanded with ``or``.

    For callers that need one websearch string (the relevance bench's "previous" search);
    ``tenders.fulltext`` builds the tsquery word by word instead, so a word's spellings group correctly.
    """
    out = []
    for token in query_tokens(q):
        if token.startswith(('"', "-")) or is_operator(token):
            out.append(token)
            continue
        variants = umlaut_variants(token)
        out.append(" or ".join(variants) if len(variants) > 1 else token)
    return " ".join(out)


def word_alternatives(token: str, *, parts: bool = True) -> list[str]:
    """The websearch texts one plain query word stands for: itself, its umlaut spellings, its compound parts."""
    alternatives = umlaut_variants(token)
    for variant in list(alternatives):
        pieces = _WORD_OR_NUMBER.findall(variant)
        if len(pieces) > 1 and "-" in variant:  # "IT-Dienstleistungen" also as "IT Dienstleistungen", not only a phrase
            alternatives.append(" ".join(pieces))
        split = compound_split(variant) if parts and variant.isalpha() else ()
        if split:
            alternatives.append(" ".join(split))
    return list(dict.fromkeys(alternatives))


def word_head(token: str) -> str:
    """The head of a compound query word, also searched as a service's first part ("Gebäudereinigung" → "reinigung").

    "" if none. A "Reinigungsdienste" tender is what someone typing "Gebäudereinigung" may want, though
    it never says "Gebäude". Not for generic heads ("Malerarbeiten" → "arbeiten") nor short ones, which would
    find much the word does not mean; hyphenated words count too ("Gebäude-Reinigung").
    """
    for variant in umlaut_variants(token):
        pieces = _WORD_OR_NUMBER.findall(variant)
        split = compound_split(variant) if variant.isalpha() else (tuple(pieces) if "-" in variant else ())
        if len(split) < 2:
            continue
        head = split[-1].casefold()
        if len(head) >= MIN_HEAD_LENGTH and head.isalpha() and head not in _GENERIC_HEADS:
            return head
        return ""
    return ""


def phrase_steps(token: str) -> list[tuple[str, int]]:
    """The words of a phrase token to find in order, each with its distance from the word before (0 for the first).

    Hyphens separate words as spaces do: PostgreSQL's parser indexes "Henning-von-Tresckow-Kaserne"
    as the whole word and then each piece, so the pieces are what a phrase can find in order
    ("Bewachung Henning", "Henning-von-Tresckow" alike). Stopwords are dropped by the parser but
    keep their position, so they widen the distance to the next word ("Henning von Tresckow": 2).
    """
    inner = token.lstrip("-").strip('"')
    steps: list[tuple[str, int]] = []
    distance = 0
    for piece in _PHRASE_PIECE.findall(inner):
        distance += 1
        if piece.lower() in STOPWORDS:
            continue
        steps.append((piece, distance if steps else 0))
        distance = 0
    return steps


def highlight_words(q: str) -> frozenset[str]:
    """The words a hit may carry, case-folded: those of every positive token's alternatives, phrases' as typed.

    Excluded words are left out (a tender showing one is not in the list); synonyms are the
    thesaurus's and come from PostgreSQL (``tenders.fulltext.KeywordQuery.synonyms``).
    """
    positive = [token for token in query_tokens(q) if not token.startswith("-") and not is_operator(token)]
    return frozenset(
        word.casefold()
        for token in positive
        for alternative in (word_alternatives(token) if not token.startswith('"') else [token])
        for word in text_words(alternative)
    )


# --- texts: highlighting and the index --------------------------------------------------------------------


def text_words(text: str) -> list[str]:
    """The letter-only words of ``text`` (hyphenated words come apart: "IT-Dienstleistungen")."""
    return _WORD.findall(text or "")


def text_pieces(text: str) -> list[str]:
    """``text`` as alternating runs of letters (words) and of anything else; joined, they are ``text`` again."""
    return _PIECES.findall(text or "")


def word_parts(word: str) -> tuple[str, ...]:
    """The compound parts of one word, with the parts of those parts (case-folded); () for a simple word."""
    return compound_parts(word)


def words_compound_parts(texts: Iterable[str], *, skip: Container[str] = ()) -> dict[str, tuple[str, ...]]:
    """``word_parts`` of every word of ``texts`` that ``text_compound_parts`` would split, except ``skip``."""
    found: dict[str, tuple[str, ...]] = {}
    for text in texts:
        for word in _LONG_WORD.findall(text):
            if word not in found and word not in skip:
                found[word] = compound_parts(word)
    return found


def text_compound_parts(texts: Iterable[str], *, limit: int = 4000) -> list[str]:
    """The distinct compound parts of every word in ``texts``, in order of first appearance, at most ``limit``."""
    found: dict[str, None] = {}
    seen: set[str] = set()
    for text in texts:
        for word in _LONG_WORD.findall(text):
            if word in seen:
                continue
            seen.add(word)
            parts = compound_parts(word)
            if parts:  # most words are not compounds
                found.update(dict.fromkeys(parts))
                if len(found) >= limit:
                    return list(found)[:limit]
    return list(found)


@lru_cache(maxsize=4096)  # the labels of one CPV code set recur across thousands of tenders
def label_compound_parts(labels: str) -> tuple[str, ...]:
    """``text_compound_parts`` of one CPV label text, remembered."""
    return tuple(text_compound_parts([labels]))
