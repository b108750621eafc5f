"""The CPV 2008 vocabulary: every code with its label, its place in the hierarchy, and a search over both.

CPV is hierarchical by trailing zeros: ``45000000`` is a division (2 digits),
``45200000`` a group (3), ``45210000`` a class (4), ``45212000`` and longer are
categories. Codes here are the 8 digits without the check digit, as everywhere
in the project (``normalise_cpv``).

Every code has its German label and its official English one (``data/cpv_labels_en.csv.gz``, see
``data/README.md``); English mode shows the English label. The search vector carries the German
labels only: the notices are German.
"""

from __future__ import annotations

import csv
import gzip
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from kernel.vocabulary.folding import typed_fold

_DATA = Path(__file__).resolve().parent / "data"
LEVELS = ("division", "group", "class", "category")


_CPV_RE = re.compile(r"(\d{8})(?:-\d)?")


def normalise_cpv(raw: str | None) -> str:
    """ "45233140-2", "45233140", " 45233140 -2" -> "45233140"; anything else -> ""."""
    return _cpv_of_text(str(raw)) if raw else ""


@lru_cache(maxsize=8192)  # a notice names its codes several times, and codes recur across notices
def _cpv_of_text(text: str) -> str:
    compact = re.sub(r"\s+", "", text)
    match = _CPV_RE.fullmatch(compact) or _CPV_RE.match(compact)
    return match.group(1) if match else ""


def unique_cpv(codes) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c for c in (normalise_cpv(x) for x in codes) if c))


def cpv_prefix(code: str) -> str:
    """The digits that place a code in the tree: CPV is hierarchical by trailing zeros (``45000000`` is
    division 45, ``45210000`` class 4521; a division keeps its two digits)."""
    stripped = code.rstrip("0")
    return stripped if len(stripped) >= 2 else code[:2]


@dataclass(frozen=True)
class CpvCode:
    code: str  # 8 digits, no check digit
    label: str  # German
    label_en: str = ""

    @property
    def significant(self) -> str:
        """The digits that place the code in the tree (``45210000`` → ``4521``; a division keeps two)."""
        return cpv_prefix(self.code)

    @property
    def level(self) -> str:
        return LEVELS[min(len(self.significant), 5) - 2]

    def label_in(self, language: str) -> str:
        return self.label_en if language.startswith("en") and self.label_en else self.label


def _read(path: Path) -> dict[str, str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        return {row["code"].split("-", 1)[0]: row["name"].strip() for row in csv.DictReader(handle)}


@cache
def vocabulary() -> dict[str, CpvCode]:
    """Every CPV code by its 8 digits, in code order (loaded once per process, about 10 ms)."""
    german = _read(_DATA / "cpv_labels.csv")
    english = _read(_DATA / "cpv_labels_en.csv.gz")
    return {code: CpvCode(code, label, english.get(code, "")) for code, label in sorted(german.items())}


@cache
def _by_significant() -> dict[str, CpvCode]:
    return {entry.significant: entry for entry in vocabulary().values()}


def cpv_entry(code: str) -> CpvCode | None:
    return vocabulary().get(code)


def cpv_label(code: str, language: str = "de") -> str:
    """The exact label of ``code``, or "" for a code the vocabulary does not know."""
    entry = vocabulary().get(code)
    return entry.label_in(language) if entry else ""


def cpv_labels_for(codes: Iterable[str]) -> str:
    """The German labels of ``codes`` and of their groups and classes, once each: what the search vector carries.

    The parents name the trade more generally ("Büroreinigung" sits under
    "Reinigungsdienste"), so a general word finds the specific code. Divisions are
    left out: they are so broad ("Abwasser- und Abfallbeseitigungs-, Reinigungs- und
    Umweltschutzdienste") that every code in them would match words of all their trades.
    """
    labels: dict[str, None] = {}
    for code in codes:
        chain = cpv_hierarchy(code) if code else []
        for entry in chain[1:] if len(chain) > 1 else chain:
            labels[entry.label] = None
    return " ".join(labels)


def cpv_code_labels(codes: Iterable[str]) -> str:
    """The German labels of ``codes`` themselves, once each: the labels whose compound parts the search holds.

    Not those of their groups and classes: a class label lists many trades ("… in Verbindung mit
    Personalcomputern, Büromaschinen, Fernmeldeanlagen …"), so its parts made a telephone system's
    maintenance a "Computer" hit and every roofing job an "Anstricharbeiten" hit (issue 30). Their whole words
    stay searchable (``cpv_labels_for``).
    """
    return " ".join(dict.fromkeys(label for code in codes if code and (label := cpv_label(code))))


def cpv_indexed_ancestors(code: str) -> list[CpvCode]:
    """The ancestors whose labels the search vector carries for ``code`` (``cpv_labels_for``), nearest first."""
    chain = cpv_hierarchy(code) if code else []
    return list(reversed(chain[1:-1]))


def cpv_hierarchy(code: str) -> list[CpvCode]:
    """The code's ancestors and itself, division first (division → group → class → category)."""
    entry = vocabulary().get(code)
    if entry is None:
        return []
    significant = entry.significant
    index = _by_significant()
    chain = [index[significant[:n]] for n in range(2, len(significant)) if significant[:n] in index]
    return [*chain, entry]


@cache
def _children_index() -> dict[str, list[CpvCode]]:
    """Significant digits → the codes one level below ("" → the divisions).

    A code's parent is its longest listed prefix: 35 codes skip a level (no code
    with one digit less exists), and they belong under the next code up.
    """
    known = _by_significant()
    index: dict[str, list[CpvCode]] = {}
    for entry in vocabulary().values():
        digits = entry.significant
        parent = next((digits[:n] for n in range(len(digits) - 1, 1, -1) if digits[:n] in known), "")
        index.setdefault(parent, []).append(entry)
    return index


def cpv_children(code: str) -> list[CpvCode]:
    """The codes one level below ``code`` (the divisions for "")."""
    if not code:
        return list(_children_index().get("", ()))
    entry = vocabulary().get(code)
    if entry is None:
        return []
    return list(_children_index().get(entry.significant, ()))


@cache
def _search_index() -> list[tuple[str, CpvCode]]:
    return [(typed_fold(f"{entry.label} {entry.label_en}"), entry) for entry in vocabulary().values()]


def _match_tier(label: str, word: str) -> int:
    """How central ``word`` is to a label: 0 it opens the label or is the head of its first word
    ("Reinigungsdienste", "Büroreinigung"), 1 a later word starts or ends with it, 2 it is inside a word
    ("Vereinigungen" for "reinigung"), 3 absent."""
    words = re.findall(r"\w+", typed_fold(label))
    if words and (words[0].startswith(word) or words[0].endswith(word)):
        return 0
    if any(w.startswith(word) or w.endswith(word) for w in words):
        return 1
    return 2 if any(word in w for w in words) else 3


def cpv_search(term: str, *, limit: int = 20) -> list[CpvCode]:
    """Codes whose number starts with the digits of ``term``, or whose label contains every word of it.

    Numbers: broader codes first (``9091`` → the class 90910000, then its categories), then code order.
    Words: first the codes the words are central to (``_match_tier``: for "Reinigung" the labels that
    open with it, before "Möbel … und Reinigungsmittel", where it is an afterthought); among those the
    codes whose branch holds most hits (the cleaning services 909…, where the word lives, before a
    single detergent), then broader codes, shorter labels, code order.
    """
    term = term.strip()
    digits = re.sub(r"[\s-]", "", term)
    if digits.isdigit():
        digits = digits[:8]
        hits = [entry for entry in vocabulary().values() if entry.code.startswith(digits)]
        hits.sort(key=lambda entry: (len(entry.significant), entry.code))
        return hits[:limit]
    words = [typed_fold(word) for word in re.findall(r"\w+", term)]
    if not words:
        return []
    hits = [entry for folded, entry in _search_index() if all(word in folded for word in words)]
    in_branch: dict[str, int] = {}
    for entry in hits:
        for ancestor in cpv_hierarchy(entry.code):
            in_branch[ancestor.code] = in_branch.get(ancestor.code, 0) + 1

    def rank(entry: CpvCode) -> tuple:
        tier = sum(min(_match_tier(label, word) for label in (entry.label, entry.label_en) if label) for word in words)
        return (tier, -in_branch[entry.code], len(entry.significant), len(entry.label), entry.code)

    hits.sort(key=rank)
    return hits[:limit]


@cache
def cpv_divisions() -> dict[str, str]:
    """Division digits → German label, for the 45 divisions."""
    return {entry.code[:2]: entry.label for entry in vocabulary().values() if len(entry.significant) == 2}
