"""German labelled fields ("Vergabestelle: …") as portals print them in feeds and alert mails.

Why one vocabulary: the service.bund.de RSS description, scraped portal feeds and the
alert mails of NetServer, cosinex and DTAD-style services all print a notice as a few
"Label: value" pairs, with the same handful of German labels. :func:`labelled_fields`
finds them whether they stand on their own lines, are joined by commas
("Typ: …, Veröffentlicher: …") or by "|", and maps each to one canonical field name.

Limits: a value that itself contains ", <known label>:" is cut there; labels are
matched case-insensitively but only in the spellings listed in ``FIELD_LABELS``; the
first occurrence of a field wins. No statistical guessing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache

from bs4 import BeautifulSoup, Comment

from kernel.addresses import split_postcode_town
from kernel.normalise import END_OF_DAY, clean_text, parse_german_datetime, parse_iso_datetime
from kernel.records import NoticeKind
from kernel.vocabulary.deadlines import DEADLINE_FIELD_LABELS, DeadlineKind
from kernel.vocabulary.regions import BUNDESLAENDER

__all__ = [
    "FIELD_LABELS",
    "FieldDate",
    "bundesland_named",
    "html_to_text",
    "kind_from_text",
    "labelled_fields",
    "parse_field_date",
    "split_place",
    "starts_with_label",
    "unknown_labelled_values",
]

# Canonical field -> German labels as portals print them (lower case, without the colon). The deadline
# labels are the shared vocabulary of kernel.vocabulary.deadlines, one field per kind of deadline.
FIELD_LABELS: dict[str, tuple[str, ...]] = {
    "title": ("titel", "kurzbezeichnung", "bezeichnung", "projektbezeichnung", "ausschreibung", "projekt"),
    "deadline": DEADLINE_FIELD_LABELS[DeadlineKind.TENDER],
    "participation_deadline": DEADLINE_FIELD_LABELS[DeadlineKind.PARTICIPATION],
    "questions_deadline": DEADLINE_FIELD_LABELS[DeadlineKind.QUESTIONS],
    "opening": DEADLINE_FIELD_LABELS[DeadlineKind.OPENING],
    "buyer": ("öffentlicher auftraggeber", "ausschreibende stelle", "vergabestelle", "auftraggeber", "veröffentlicher"),
    "place": (
        "erfüllungsort",
        "ausführungsort",
        "ort der ausführung",
        "leistungsort",
        "ort der leistung",
        "region",
        "ort",
    ),
    "published": (
        "datum der veröffentlichung",
        "veröffentlichungsdatum",
        "datum der bekanntmachung",
        "bekanntmachungsdatum",
        "veröffentlicht am",
        "veröffentlichung",
        "veröffentlicht",
        "erschienen am",
        "online seit",
    ),
    "procedure": ("verfahrensart", "vergabeart", "vergabeverfahren", "typ"),
    "legal_basis": ("rechtsgrundlage", "rechtsrahmen", "vergabeordnung", "verfahrensordnung"),
    "notice_type": ("art der bekanntmachung", "bekanntmachungsart"),
    "nature": ("art der leistung", "art des auftrags", "auftragsart"),
    "subject": ("auftragsgegenstand", "gegenstand der leistung", "leistungsgegenstand"),
    "period": (
        "voraussichtliche ausführungsfrist",
        "ausführungsfrist",
        "ausführungszeitraum",
        "leistungszeitraum",
        "vertragslaufzeit",
    ),
    "supplier": ("beauftragtes unternehmen", "auftragnehmer", "zuschlagsempfänger"),
    "stage": ("projektstand",),
    "category": ("kategorie",),
    "matched": ("treffer bei", "suchbegriff"),
    "reference": ("vergabenummer", "aktenzeichen", "referenznummer"),
}

_LABEL_FIELD = {label: name for name, labels in FIELD_LABELS.items() for label in labels}
# Longest first, so "ablauf der angebotsfrist" wins over "frist".
_LABEL_ALTERNATION = "|".join(re.escape(label) for label in sorted(_LABEL_FIELD, key=len, reverse=True))
# A label counts at the start of a line or after a separator (",", ";", "|", "•"); the colon is required.
_LABEL_RE = re.compile(rf"(?:^|(?<=[\n,;|•]))[ \t]*({_LABEL_ALTERNATION})[ \t]*:[ \t]*", re.IGNORECASE)
_TRAILING_SEPARATORS = " \t\n,;|•"
# Values that mean "no date" on portal pages (cosinex prints "nv").
_NO_VALUE = frozenset({"", "-", "–", "nv", "n.v.", "n. v.", "k.a.", "k. a.", "keine", "keine angabe", "entfällt"})
_LAENDER = {name.lower(): name for name in BUNDESLAENDER.values()}
# Words in a type or project-stage value that say what the notice announces (only explicit ones).
_KIND_WORDS: tuple[tuple[NoticeKind, tuple[str, ...]], ...] = (
    (NoticeKind.CANCELLATION, ("aufgehoben", "aufhebung")),
    (
        NoticeKind.AWARD,
        ("vergebener auftrag", "vergebene aufträge", "vergabebekanntmachung", "zuschlag", "ex-post", "vergeben"),
    ),
    # "Beabsichtigte Beschränkte Ausschreibungen" (VOB/A § 20 Abs. 4) announce a procedure before it starts.
    (NoticeKind.PRIOR_INFORMATION, ("vorinformation", "markterkundung", "beabsichtigte")),
)

_BLOCK_TAGS = (
    "p",
    "div",
    "li",
    "tr",
    "table",
    "tbody",
    "thead",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "section",
    "article",
    "header",
    "footer",
    "hr",
)


def labelled_fields(text: str, *, extra_labels: Mapping[str, tuple[str, ...]] | None = None) -> dict[str, str]:
    """Canonical field -> cleaned value for every known label in ``text`` (first occurrence wins).

    ``extra_labels`` (canonical field -> labels) adds a source's own spellings to the vocabulary.
    """
    label_field, pattern = _labels(_extra_key(extra_labels))
    matches = list(pattern.finditer(text or ""))
    found: dict[str, str] = {}
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        value = text[match.end() : end]
        # A value ends at its line unless the next label follows on the same line.
        value = value.split("\n", 1)[0] if "\n" in value.strip("\n") else value
        field_name = label_field[_fold(match.group(1))]
        cleaned = clean_text(value.strip(_TRAILING_SEPARATORS))
        if field_name not in found and cleaned:
            found[field_name] = cleaned
    return found


# "Label: value" on a line of its own, whatever the label: what a notice states that the vocabulary may not know.
_ANY_LABELLED_LINE = re.compile(r"^[ \t]*([A-Za-zÄÖÜäöüß][\wÄÖÜäöüß /().\-]{1,60}?)[ \t]*:[ \t]*(\S.*)$", re.MULTILINE)


def unknown_labelled_values(
    text: str, *, extra_labels: Mapping[str, tuple[str, ...]] | None = None
) -> list[tuple[str, str]]:
    """(label, value) of every "Label: value" line whose label is in no vocabulary, in text order."""
    label_field, _ = _labels(_extra_key(extra_labels))
    return [
        (clean_text(match.group(1)), clean_text(match.group(2)))
        for match in _ANY_LABELLED_LINE.finditer(text or "")
        if _fold(match.group(1)) not in label_field
    ]


def _fold(label: str) -> str:
    return " ".join(label.lower().split())


def _extra_key(extra_labels: Mapping[str, tuple[str, ...]] | None) -> tuple[tuple[str, str], ...]:
    if not extra_labels:
        return ()
    return tuple(sorted((_fold(label), name) for name, labels in extra_labels.items() for label in labels))


@lru_cache(maxsize=64)
def _labels(extra: tuple[tuple[str, str], ...]) -> tuple[dict[str, str], re.Pattern[str]]:
    """Label -> field and the label pattern; a source's own labels win over the shared spelling."""
    if not extra:
        return _LABEL_FIELD, _LABEL_RE
    label_field = {**_LABEL_FIELD, **dict(extra)}
    alternation = "|".join(re.escape(label) for label in sorted(label_field, key=len, reverse=True))
    return label_field, re.compile(rf"(?:^|(?<=[\n,;|•]))[ \t]*({alternation})[ \t]*:[ \t]*", re.IGNORECASE)


def starts_with_label(line: str) -> bool:
    """Whether ``line`` begins with a known label and its colon."""
    return bool(_LABEL_RE.match(line or ""))


def kind_from_text(text: str | None) -> NoticeKind:
    """Notice kind from a type or project-stage value ("VgV Vergebener Auftrag" is an award); default: contract."""
    lowered = (text or "").lower()
    for kind, words in _KIND_WORDS:
        if any(word in lowered for word in words):
            return kind
    return NoticeKind.CONTRACT_NOTICE


class FieldDate:
    """Outcome of reading a date field: the value, or why it could not be read."""

    __slots__ = ("problem", "value")

    def __init__(self, value: datetime | None, problem: str = "") -> None:
        self.value = value
        self.problem = problem


def parse_field_date(raw: str | None, *, end_of_day: bool = False) -> FieldDate:
    """``dd.mm.yyyy[ HH:MM]`` (Europe/Berlin) or ISO 8601; "nv"/"-"/empty is no date and no problem.

    A date without time is 00:00 Berlin, or 23:59 with ``end_of_day`` (deadlines: the whole day
    counts, as for portal pages and eForms).
    """
    text = clean_text(raw)
    if text.lower() in _NO_VALUE:
        return FieldDate(None)
    default_time = END_OF_DAY if end_of_day else None
    value = parse_german_datetime(text, default_time=default_time)
    if value is None and re.match(r"\d{4}-\d{2}-\d{2}", text):
        value = parse_iso_datetime(text, default_time=default_time)
    if value is None:
        return FieldDate(None, f"{text!r} is no date (expected dd.mm.yyyy HH:MM)")
    return FieldDate(value)


def split_place(raw: str | None) -> tuple[str, str]:
    """ "10115 Berlin" or "10115, Berlin" -> ("10115", "Berlin"); anything else -> ("", text)."""
    return split_postcode_town(raw)


def bundesland_named(text: str | None) -> str:
    """The Bundesland when ``text`` is exactly its name (a "Region" value), else ""."""
    return _LAENDER.get(clean_text(text).lower(), "")


def html_to_text(html: str, *, links: bool = False) -> str:
    """Visible text of an HTML fragment, with line breaks where the browser would break lines.

    ``<br>`` and block elements become newlines, inline markup (``<strong>``) does not, so
    "Vergabestelle: <strong>X</strong>" stays one line; table cells are joined by " | ".
    Scripts, styles and comments are dropped. With ``links`` every http(s) link is kept
    after its text as ``<url>``, the way plain-text mails print them. Limit: ``<pre>`` text
    is flattened like any other text.
    """
    soup = BeautifulSoup(html or "", "html.parser")
    for node in soup.find_all(["script", "style", "head", "title"]):
        node.decompose()
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for string in soup.find_all(string=True):
        # Source line breaks are spaces in HTML; only markup breaks lines.
        if "\n" in string or "\r" in string:
            string.replace_with(re.sub(r"\s+", " ", str(string)))
    if links:
        for anchor in soup.find_all("a", href=True):
            href = clean_text(str(anchor["href"])).replace(" ", "%20")
            if href.lower().startswith(("http://", "https://")) and clean_text(anchor.get_text()) != href:
                anchor.append(f" <{href}>")
    for br in soup.find_all("br"):
        br.replace_with("\n")
    for cell in soup.find_all(["td", "th"]):
        cell.append(" | ")
    for block in soup.find_all(_BLOCK_TAGS):
        block.insert_before("\n")
        block.append("\n")
    # Blank lines carry no meaning in HTML (margins do); notices are told apart by their links.
    lines = (clean_text(line).strip(" |") for line in soup.get_text().split("\n"))
    return "\n".join(line for line in lines if line)
