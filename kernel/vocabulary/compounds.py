"""German compound splitting for the search index: "Gebäudereinigung" → "gebäude", "reinigung".

The method is the frequency-based splitter of Koehn & Knight (2003, "Empirical
Methods for Compound Splitting"): a word is split into known words (allowing the
linking elements -s-, -es-, -n-, -en-, -e-, -er-, -ens- and a dropped final -e,
"Schul|gebäude" → "schule") where the geometric mean of the parts' frequencies
beats the frequency of the whole word. A frequent word therefore stays whole
("Feuerwehr", "Beratung"), a rare compound is split ("Schlegelmäher"), and a
word nobody wrote before is split whenever all its parts are words.

Frequencies are wordfreq's German list (about 630,000 words from Wikipedia,
subtitles, news, books, web text and social media), shipped inside the package
and read offline. Parts that are stopwords, derivational suffixes ("ung",
"heit") or shorter than four letters (three for very frequent words such as
"bau" or "amt") are never produced: such fragments would match almost anything.

Words are case-folded as wordfreq does (so "ß" becomes "ss"); PostgreSQL's German
stemmer folds "ß" the same way, so index and query agree.

Only ``kernel.vocabulary.search_words`` calls the splitter: it is the one place that turns text
into search words for the index, the keyword query and the highlighting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache, lru_cache

MIN_WORD_LENGTH = 6  # the shortest compound worth trying: two parts of three letters
# The longest word split. The longest compounds in real use have about 60 letters; a longer
# "word" is a pasted string, and splitting it would cost time and cache memory quadratic in its length.
MAX_WORD_LENGTH = 64
MIN_PART_LENGTH = 4
SHORT_PART_MIN_FREQUENCY = 2e-5  # a three-letter part must be about as common as "bau" (7e-5) or "amt"
MAX_PARTS = 4
_LINKS = ("s", "es", "n", "en", "ens", "ns")
_INFLECTIONS = ("e", "n", "en", "s", "es", "er", "ern", "ns")

# PostgreSQL's German stopwords (tsearch_data/german.stop), as the parser compares them (lower case, "daß"
# but not "dass"): dropped from texts and queries alike, they keep their position, so a phrase counts them
# (``search_words.phrase_steps``).
STOPWORDS = frozenset(
    """
    aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes anderm andern
    anderr anders auch auf aus bei bin bis bist da damit dann der den des dem die das daß derselbe derselben
    denselben desselben demselben dieselbe dieselben dasselbe dazu dein deine deinem deinen deiner deines denn
    derer dessen dich dir du dies diese diesem diesen dieser dieses doch dort durch ein eine einem einen einer
    eines einig einige einigem einigen einiger einiges einmal er ihn ihm es etwas euer eure eurem euren eurer
    eures für gegen gewesen hab habe haben hat hatte hatten hier hin hinter ich mich mir ihr ihre ihrem ihren
    ihrer ihres euch im in indem ins ist jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt kann
    kein keine keinem keinen keiner keines können könnte machen man manche manchem manchen mancher manches mein
    meine meinem meinen meiner meines mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein
    seine seinem seinen seiner seines selbst sich sie ihnen sind so solche solchem solchen solcher solches soll
    sollte sondern sonst über um und uns unse unsem unsen unser unses unter viel vom von vor während war waren
    warst was weg weil weiter welche welchem welchen welcher welches wenn werde werden wie wieder will wir wird
    wirst wo wollen wollte würde würden zu zum zur zwar zwischen
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
# The stopwords case-folded as the splitter compares words, short prefixes and derivational suffixes that are
# words in the frequency list but never a meaningful part of a compound ("Unter|halt", "Berat|ung").
_NOT_PARTS = frozenset(word.casefold() for word in STOPWORDS) | frozenset(
    """
    ab ant anti bei dar ent ver zer miss fort hinten vorn wider gegen voll selbst haupt
    ung ungs ungen heit heiten keit keiten lich lichen isch ische ion ionen tät täten erung ierung ieren iert
    schaft schaften ling linge nis nisse tum tums chen lein ern end ende enden ent ens enz anz ismus ist isten
    ität itäten bar sam los haft weise mäßig artig ig ige igen ik iker ler ner er ere eren ste sten
    and the for not of off mal
    """.split()  # noqa: SIM905
)


@cache
def _frequencies() -> dict[str, float]:
    """wordfreq's German word list, loaded once per process (about 0.3 s)."""
    from kernel.vocabulary.compound_frequencies import FREQUENCIES

    return FREQUENCIES


def _frequency(word: str) -> float:
    return _frequencies().get(word, 0.0)


def _inflected_frequency(word: str) -> float:
    """The frequency of ``word`` or of its uninflected form, whichever is higher ("fahrzeugen" counts as "fahrzeug")."""
    frequency = _frequency(word)
    for ending in _INFLECTIONS:
        if word.endswith(ending) and len(word) - len(ending) >= MIN_PART_LENGTH:
            frequency = max(frequency, _frequency(word[: -len(ending)]))
    return frequency


def _part_frequency(form: str, *, head: bool = False) -> float:
    """The frequency of ``form`` as a compound part, or 0 when it may not be one."""
    if len(form) < 3 or form in _NOT_PARTS:
        return 0.0
    frequency = _inflected_frequency(form) if head else _frequency(form)
    if len(form) < MIN_PART_LENGTH and frequency < SHORT_PART_MIN_FREQUENCY:
        return 0.0
    return frequency


def _best_modifier(surface: str) -> tuple[str, float]:
    """The dictionary form a non-final part stands for, with its frequency ("", 0 when none may).

    That is the part itself, or the part without a linking element when that is
    more frequent ("reinigungs" → "reinigung"), or with a dropped -e restored
    when that is far more frequent ("schul" → "schule", not "fahr" → "fahre").
    """
    if surface in _NOT_PARTS:
        return "", 0.0
    best, best_frequency = surface, _part_frequency(surface)
    for link in _LINKS:
        if surface.endswith(link) and len(surface) - len(link) >= 3:
            form = surface[: -len(link)]
            frequency = _part_frequency(form)
            if frequency > best_frequency:
                best, best_frequency = form, frequency
    with_e = _part_frequency(surface + "e")
    if with_e > 10 * best_frequency:
        best, best_frequency = surface + "e", with_e
    return (best, best_frequency) if best_frequency else ("", 0.0)


@lru_cache(maxsize=65536)
def _segment(rest: str, parts_left: int) -> tuple[tuple[str, ...], float]:
    """The segmentation of ``rest`` into known parts with the highest product of frequencies ((), -inf if none).

    The product (a sum of logs) prefers few long parts ("fahrbahn|erneuerung"
    over "fahr|bahn|erneuerung"); whether to split at all is decided by the
    geometric mean (``compound_parts``), as Koehn & Knight do.
    """
    best: tuple[str, ...] = ()
    best_score = -math.inf
    head_frequency = _part_frequency(rest, head=True)
    if head_frequency:
        best, best_score = (rest,), math.log(head_frequency)
    if parts_left >= 2:
        parts, score = _split(rest, parts_left)
        if score > best_score:
            best, best_score = parts, score
    return best, best_score


def _split(word: str, max_parts: int) -> tuple[tuple[str, ...], float]:
    """The best segmentation of ``word`` into two to ``max_parts`` parts ((), -inf if none)."""
    best: tuple[str, ...] = ()
    best_score = -math.inf
    for cut in range(3, len(word) - 2):
        form, frequency = _best_modifier(word[:cut])
        if not frequency:
            continue
        tail, tail_score = _segment(word[cut:], max_parts - 1)
        if not tail:
            continue
        score = math.log(frequency) + tail_score
        if score > best_score:
            best, best_score = (form, *tail), score
    return best, best_score


@lru_cache(maxsize=65536)
def compound_split(word: str) -> tuple[str, ...]:
    """The best split of ``word`` into its parts (not the parts' parts), or () if it stays whole."""
    folded = word.casefold()
    if not MIN_WORD_LENGTH <= len(folded) <= MAX_WORD_LENGTH or not folded.isalpha():
        return ()
    parts, score = _split(folded, MAX_PARTS)
    if len(parts) < 2:
        return ()
    whole = _inflected_frequency(folded)
    if whole and math.log(whole) >= score / len(parts):  # the geometric mean of the parts' frequencies
        return ()
    return parts


def compound_parts(word: str) -> tuple[str, ...]:
    """The parts of ``word`` if it is a compound, with the parts of those parts; () otherwise.

    Parts come case-folded in dictionary form ("Brückensanierung" → "brücke",
    "sanierung"); the word itself is never among them.
    """
    parts = _REMEMBERED.get(word)
    return _compound_parts(word) if parts is None else parts


@lru_cache(maxsize=200_000)  # words recur across tenders: most lookups are hits
def _compound_parts(word: str) -> tuple[str, ...]:
    parts = compound_split(word)
    if not parts:
        return ()
    folded = word.casefold()
    found = dict.fromkeys(parts)
    for part in parts:  # "straßenbau|arbeiten": "straßenbau" is a compound too
        found.update(dict.fromkeys(compound_parts(part)))
    found.pop(folded, None)
    return tuple(found)


# Parts computed in another process (the parse workers split the words of what they parse, so
# the one process that writes tenders neither loads the frequency list nor splits): see
# ``remember_compound_parts``. Bounded like the memo above; emptied when full.
_REMEMBERED: dict[str, tuple[str, ...]] = {}
REMEMBERED_MAX = 200_000


def remember_compound_parts(parts: Mapping[str, tuple[str, ...]]) -> None:
    """Take ``compound_parts`` results computed elsewhere (the same function, the same word list)."""
    if len(_REMEMBERED) + len(parts) > REMEMBERED_MAX:
        _REMEMBERED.clear()
    _REMEMBERED.update(parts)
