"""Why a tender matched: the words of its title, description and CPV labels that the keywords hit.

A text becomes segments, ``(text, hit)`` pairs, which templates render with
autoescaping on (``{% if hit %}<mark>{{ text }}</mark>{% else %}{{ text }}{% endif %}``):
nothing here produces HTML, so a hostile title cannot inject any.

A word is a hit when its German stem, or the stem of one of its compound parts,
is the stem of a query word, of one of its umlaut spellings or of one of its
compound parts: the same rules ``tenders.fulltext`` searches with, so
"Reinigung" marks "Gebäudereinigung" and "Bewachung" the label "Bewachungsdienste".
Words the thesaurus adds (``tenders.fulltext``: "Müllabfuhr" finds "Abfallentsorgung") are
marked in titles and descriptions, not in CPV labels, where the search does not look for them.
The search also carries the labels of a code's groups and classes ("Dienstleistungen von
Sicherheitsdiensten" above "Bewachungsdienste"), by their whole words only (not their compound
parts: ``kernel.vocabulary.cpv.cpv_code_labels``); when only such a label explains a hit, it is
shown as well, named as the parent of the tender's code.
Stems come from PostgreSQL's own German stemmer, so marks and matches agree. The query's own
lexemes and its thesaurus words come with the ``KeywordQuery`` the search was built from
(``tenders.fulltext``), so highlighting a result page does not expand the keywords again; the
page's words are stemmed in one more query, whatever its length, and only the words this process
has not stemmed before (a word's stems depend on the word alone). Words, their pieces and their
compound parts come from ``kernel.vocabulary.search_words``, as the index's and the query's do.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import connection

from kernel.vocabulary.cpv import cpv_indexed_ancestors, cpv_label
from kernel.vocabulary.search_words import text_pieces, text_words, word_parts
from tenders.filter_limits import normalise_whitespace, query_problem
from tenders.filters import FilterError
from tenders.fulltext import KeywordQuery, keyword_query_build

Segment = tuple[str, bool]
_FOLD = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "ss"})
SNIPPET_WORDS = 30


@dataclass(frozen=True)
class CpvHit:
    code: str
    label: tuple[Segment, ...]
    hit: bool
    parent_of: str = ""  # set on a group or class label that explains a hit on this tender code


@dataclass(frozen=True)
class TenderHighlight:
    title: tuple[Segment, ...]
    snippet: tuple[Segment, ...] = ()  # a window of the description around its first hit; () without one
    cpv: tuple[CpvHit, ...] = ()  # every code with its exact label, hits marked


# A word's stems are the server's built-in German stemmer's output for that word alone: no tenant, no tender
# and no setting of ours changes them, so a process keeps them and a page of known words asks the server
# nothing. Bounded: past the bound the memo starts over (a few MB at most).
STEMS_REMEMBERED = 50_000
_known_stems: dict[str, frozenset[str]] = {}
_known_stems_lock = threading.Lock()


def _stems(words_: Iterable[str]) -> dict[str, frozenset[str]]:
    stems: dict[str, frozenset[str]] = {}
    unknown = []
    for word in {w.casefold() for w in words_ if w}:
        known = _known_stems.get(word)
        if known is None:
            unknown.append(word)
        else:
            stems[word] = known
    if not unknown:
        return stems
    with connection.cursor() as cursor:
        cursor.execute("SELECT w, ts_lexize('german_stem', w) FROM unnest(%s::text[]) AS w", [sorted(unknown)])
        read = {word: frozenset(lexemes or ()) for word, lexemes in cursor.fetchall()}
    with _known_stems_lock:
        if len(_known_stems) + len(read) > STEMS_REMEMBERED:
            _known_stems.clear()
        _known_stems.update(read)
    stems.update(read)
    return stems


def stems_forget() -> None:
    """Drop the stems this process keeps: each test starts as a fresh process would."""
    with _known_stems_lock:
        _known_stems.clear()


def keywords_check(keywords: str) -> None:
    """``FilterError`` for keywords the search refuses (a NUL, more than its box holds), before any query runs."""
    if problem := query_problem(normalise_whitespace(keywords).strip()):
        raise FilterError({"q": problem})


class Highlighter:
    """Marks the words a keyword query hits; ``prepare`` the texts of a page once, then ask per text.

    Pass the ``KeywordQuery`` the search was built from; keywords as text are built here (one query),
    after the search's own checks: text the search refuses (a NUL, which PostgreSQL cannot take, or
    more than its box holds) raises ``FilterError`` (400 at every edge) instead of failing in the query.
    """

    def __init__(self, keywords: KeywordQuery | str, *, version: str | None = None):
        """``version``: the keywords version this request already read (``tenders.fulltext.keyword_query_build``)."""
        if isinstance(keywords, str):
            keywords_check(keywords)
            keywords = keyword_query_build(q=keywords, version=version)
        self.lexemes: frozenset[str] = keywords.lexemes
        self.synonyms: frozenset[str] = keywords.synonyms
        self._every = self.lexemes | self.synonyms
        self.active = bool(self._every)  # False without keywords: nothing can be marked
        self._found: dict[str, frozenset[str]] = {}  # word -> the query's lexemes it (or one of its parts) carries
        self._whole: dict[str, frozenset[str]] = {}  # word -> the query's lexemes the word itself carries
        self._prepared: set[str] = set()  # texts whose every word is decided
        self._segmented: dict[tuple[str, bool, bool], tuple[Segment, ...]] = {}  # rows share CPV labels

    def _candidate(self, word: str) -> bool:
        folded = word.casefold().translate(_FOLD)
        return any(lexeme in folded for lexeme in self._every)

    def prepare(self, texts: Iterable[str]) -> None:
        """Decide every word of ``texts`` in one query (words that cannot hit are never stemmed)."""
        if not self._every:
            return
        # segments() and snippet() prepare their own text again: a page prepared in one go skips them here.
        fresh = [text for text in texts if text not in self._prepared]
        if fresh:
            highlighters_prepare([self], fresh)

    def _pending(self, words_: set[str]) -> tuple[set[str], dict[str, tuple[str, ...]]]:
        """Of ``words_``, those not decided yet that may hit, with their compound parts; the rest are decided."""
        pending = words_ - self._found.keys()
        candidates = {w for w in pending if self._candidate(w)}
        for word in pending - candidates:
            self._found[word] = self._whole[word] = frozenset()
        return candidates, {word: word_parts(word) for word in candidates}

    def _decide(self, candidates: set[str], parts: dict[str, tuple[str, ...]], stems: dict[str, frozenset[str]]):
        for word in candidates:
            carried = stems.get(word, frozenset()).union(*(stems.get(part, frozenset()) for part in parts[word]))
            self._found[word] = carried & self._every
            self._whole[word] = stems.get(word, frozenset()) & self._every

    def is_hit(self, word: str, *, synonyms: bool = True, parts: bool = True) -> bool:
        """Whether ``word`` carries a lexeme of the query; ``parts=False``: by its own stem, not its compound parts."""
        folded = word.casefold()
        if folded not in self._found:
            self.prepare([word])
        found = (self._found if parts else self._whole).get(folded, frozenset())
        return bool(found if synonyms else found & self.lexemes)

    def segments(self, text: str, *, synonyms: bool = True, parts: bool = True) -> tuple[Segment, ...]:
        """``text`` in pieces, each word marked as hit or not; joined, the pieces are ``text`` again.

        ``synonyms=False`` for CPV labels: the search does not look for thesaurus words there;
        ``parts=False`` for the labels of a code's groups and classes, whose compound parts it does not hold.
        """
        if not self._every:
            return ((text, False),) if text else ()
        key = (text, synonyms, parts)
        if (known := self._segmented.get(key)) is not None:
            return known
        self.prepare([text])  # a text nobody prepared costs one query, not one per word
        segments = self._segmented[key] = _merged(
            (piece, piece[0].isalpha() and self.is_hit(piece, synonyms=synonyms, parts=parts))
            for piece in text_pieces(text)
        )
        return segments

    def snippet(self, text: str, *, size: int = SNIPPET_WORDS) -> tuple[Segment, ...]:
        """About ``size`` words of ``text`` around its first hit, with "…" where it was cut; () without a hit."""
        self.prepare([text or ""])
        pieces = text_pieces(text)
        first = next((i for i, p in enumerate(pieces) if p[0].isalpha() and self.is_hit(p)), None)
        if first is None:
            return ()
        start = max(0, first - size // 3 * 2)  # pieces alternate word / gap: a third of the words before the hit
        end = min(len(pieces), start + size * 2)
        window = [(p, p[0].isalpha() and self.is_hit(p)) for p in pieces[start:end]]
        if start > 0:
            window.insert(0, ("… ", False))
        if end < len(pieces):
            window.append((" …", False))
        return _merged(window)


def highlighters_prepare(highlighters: Iterable[Highlighter], texts: Iterable[str]) -> None:
    """``prepare`` for several highlighters over the same texts (a tender's "Warum gefunden" for each profile
    that matched it): every word any of them may hit is stemmed in one query."""
    active = [highlighter for highlighter in highlighters if highlighter._every]
    if not active:
        return
    texts = set(texts)
    words_ = {w.casefold() for text in texts for w in text_words(text)}
    pending = [highlighter._pending(words_) for highlighter in active]
    stems = _stems({w for candidates, parts in pending for w in candidates | {p for ps in parts.values() for p in ps}})
    for highlighter, (candidates, parts) in zip(active, pending, strict=True):
        highlighter._decide(candidates, parts, stems)
        highlighter._prepared |= texts


def _merged(segments: Iterable[Segment]) -> tuple[Segment, ...]:
    """Neighbouring segments of the same kind joined, so templates emit one element per run of hits."""
    out: list[list] = []
    for text, hit in segments:
        if out and out[-1][1] == hit:
            out[-1][0] += text
        else:
            out.append([text, hit])
    return tuple((text, hit) for text, hit in out)


def has_hit(segments: Sequence[Segment]) -> bool:
    return any(hit for _text, hit in segments)


_EDGE_PUNCTUATION = " \t\n.,;:–—-_/|…"


def _comparable(text: str) -> str:
    return " ".join(text.casefold().split()).strip(_EDGE_PUNCTUATION)


def description_beyond_title(title: str, description: str) -> str:
    """The description without a leading repeat of the title; "" when it says nothing more.

    Many notices fill the description with the title (DÖE's OCDS twin, RSS items, alert mails), or
    open it with the title: shown under the title, that is the same line twice. A description the
    title starts with (a cut copy) says nothing more either.
    """
    description = description or ""
    wanted, full = _comparable(title or ""), _comparable(description)
    if not full or not wanted:
        return description
    if wanted.startswith(full):
        return ""
    if not full.startswith(wanted) or full[len(wanted) : len(wanted) + 1].isalnum():
        return description  # "Reinigung Schulen" does not repeat the title "Reinigung Schule"
    # Walk the original text word by word until the title's words are used up: spacing and case may differ.
    remaining = len(wanted.split())
    words = description.split()
    rest = description
    for word in words[:remaining]:
        rest = rest[rest.index(word) + len(word) :]
    rest = rest.lstrip(_EDGE_PUNCTUATION)
    return rest if _comparable(rest) else ""


def cpv_label_texts(codes: Iterable[str], language: str) -> list[str]:
    """Every label ``cpv_hits`` may show for ``codes``: pass them to ``Highlighter.prepare``."""
    texts = []
    for code in codes:
        texts += [cpv_label(code), cpv_label(code, language)]
        for entry in cpv_indexed_ancestors(code):
            texts += [entry.label, entry.label_in(language)]
    return texts


def cpv_hits(highlighter: Highlighter, codes: Sequence[str], language: str) -> tuple[CpvHit, ...]:
    """Each code with its label, hits marked; after a code whose own label has no hit, the nearest
    group or class label that has one (the search found the tender through it), once per tender.
    """
    hits: list[CpvHit] = []
    shown_parents: set[str] = set()

    def marked(german: str, shown: str, *, parts: bool) -> tuple[tuple[Segment, ...], bool]:
        # The search looks at the German label: it decides the hit; English mode shows the English label.
        segments = highlighter.segments(german, synonyms=False, parts=parts)
        if shown == german:
            return segments, has_hit(segments)
        return highlighter.segments(shown, synonyms=False, parts=parts), has_hit(segments)

    for code in codes:
        label, hit = marked(cpv_label(code), cpv_label(code, language), parts=True)
        hits.append(CpvHit(code=code, label=label, hit=hit))
        if hit or not highlighter.active:
            continue
        for entry in cpv_indexed_ancestors(code):
            if entry.code in shown_parents or entry.code in codes:
                continue
            parent, parent_hit = marked(entry.label, entry.label_in(language), parts=False)
            if parent_hit:
                shown_parents.add(entry.code)
                hits.append(CpvHit(code=entry.code, label=parent, hit=True, parent_of=code))
                break
    return tuple(hits)


def tender_highlights(
    *,
    q: KeywordQuery | str,
    tenders: Sequence,
    language: str = "de",
    description_attr: str = "description",
    highlighter: Highlighter | None = None,
) -> dict[int, TenderHighlight]:
    """Highlights by tender id for ``tenders`` (objects with id, title, cpv_codes and ``description_attr``).

    ``q``: the ``KeywordQuery`` the list was searched with (the portal's result page), or keywords as text.
    ``highlighter``: one the page already prepared (``tenders.match_reasons`` on the same rows).
    """
    highlighter = highlighter or Highlighter(q)
    texts: list[str] = []
    descriptions = {
        tender.pk: description_beyond_title(tender.title, getattr(tender, description_attr, "") or "")
        for tender in tenders
    }
    for tender in tenders:
        texts += [tender.title, descriptions[tender.pk]]
        texts += cpv_label_texts(tender.cpv_codes or (), language)
    highlighter.prepare(texts)
    return {
        tender.pk: TenderHighlight(
            title=highlighter.segments(tender.title),
            # never the title again: a description that only repeats it has no snippet
            snippet=highlighter.snippet(descriptions[tender.pk]),
            cpv=cpv_hits(highlighter, list(tender.cpv_codes or ()), language),
        )
        for tender in tenders
    }
