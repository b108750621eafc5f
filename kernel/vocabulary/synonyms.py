"""The procurement thesaurus as data: groups of words a bid manager uses for the same work.

``data/synonyms.txt`` holds one group per line::

    Sanierung, Instandsetzung, Erneuerung > Sanierungsarbeiten | CPV 45453000 …

Words before ``>`` mean the same and each finds all the others; words after ``>``
are narrower kinds of the work, found by the group's words but not finding them
("Gebäudereinigung" finds "Unterhaltsreinigung", not the reverse); the text after
``|`` names where the grouping comes from. Pure: parsing and checks, no ORM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

THESAURUS_PATH = Path(__file__).resolve().parent / "data" / "synonyms.txt"
MAX_WORD_LENGTH = 80
MAX_WORDS = 40
# One search word as a user types it: letters and digits, inner hyphens ("IT-Dienstleistungen").
_WORD = re.compile(r"[^\W_](?:[\w-]*[^\W_])?")


@dataclass(frozen=True)
class SynonymEntry:
    words: tuple[str, ...]
    narrower: tuple[str, ...] = ()
    basis: str = ""


def word_problem(word: str) -> str:
    """Why ``word`` cannot be a thesaurus word ("" if it can): one search word, no operators or spaces."""
    if not word or len(word) > MAX_WORD_LENGTH:
        return f"{word!r}: ein Wort mit 1 bis {MAX_WORD_LENGTH} Zeichen angeben."
    if not _WORD.fullmatch(word):
        return f"{word!r}: nur ein Wort (Buchstaben, Ziffern, Bindestrich), keine Leerzeichen oder Suchoperatoren."
    return ""


def entry_problems(entry: SynonymEntry) -> list[str]:
    """Every rule ``entry`` breaks on its own (overlaps with other groups are the service's check)."""
    problems = [p for word in (*entry.words, *entry.narrower) if (p := word_problem(word))]
    if not entry.words:
        problems.append("Mindestens ein gleichbedeutendes Wort angeben.")
    if len(entry.words) + len(entry.narrower) > MAX_WORDS:
        problems.append(f"Höchstens {MAX_WORDS} Wörter je Gruppe.")
    folded = [word.casefold() for word in (*entry.words, *entry.narrower)]
    if len(set(folded)) != len(folded):
        problems.append("Ein Wort steht doppelt in der Gruppe.")
    return problems


def _words(text: str) -> tuple[str, ...]:
    return tuple(word.strip() for word in text.split(",") if word.strip())


def parse_thesaurus(text: str) -> tuple[SynonymEntry, ...]:
    """The entries of a thesaurus text; raises ValueError naming the line of the first broken entry."""
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line, _, basis = line.partition("|")
        same, _, narrower = line.partition(">")
        entry = SynonymEntry(words=_words(same), narrower=_words(narrower), basis=basis.strip())
        if problems := entry_problems(entry):
            raise ValueError(f"line {number}: {'; '.join(problems)}")
        entries.append(entry)
    return tuple(entries)


def shipped_thesaurus() -> tuple[SynonymEntry, ...]:
    return parse_thesaurus(THESAURUS_PATH.read_text(encoding="utf-8"))
