"""What the HTML portal adapters (NetServer, cosinex) share: decoding, parsing, cell texts, saved-page joins.

Why one place: portal pages are old Java servlet output in windows-1252/ISO-8859-1,
often declared only in ``<meta>``, sometimes mislabelled. Decoding goes through
``kernel.network.decode_bytes`` (never BeautifulSoup's own guessing), the text is
parsed with BeautifulSoup + lxml, and every value that reaches a ``NoticeRecord``
passes :func:`text_of`, so umlauts and "€" survive and no U+FFFD is ever stored.

Mislabelled pages: when the declared (or assumed) encoding is UTF-8 but the bytes are
not valid UTF-8, the page is re-read as windows-1252 if it contains no valid UTF-8
multi-byte sequence at all (a legacy single-byte page: nothing is lost, ``declared_by`` is
"fallback"); otherwise it stays UTF-8, the replacement characters are dropped from values
and ``HtmlPage.problem`` says so.

Limits: label matching is by normalised text (case, colon, whitespace and a leading eForms/TED
number such as "II.2.1)" ignored; exact match first, then prefix); a label that a portal renames is not found and the
field stays empty, it never takes a neighbour's value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TypeVar

from bs4 import BeautifulSoup, Tag

from kernel.network import Decoded, decode_bytes
from kernel.normalise import (
    END_OF_DAY,
    clean_text,
    normalise_postal_code,
    parse_decimal,
    parse_german_datetime,
)
from kernel.urls import WEB_SCHEMES, UrlRefused, parse_url
from kernel.vocabulary.cpv import unique_cpv
from kernel.vocabulary.regions import bundesland_for_nuts, nuts_codes_from

__all__ = [
    "HtmlPage",
    "LabelValues",
    "NoticeFacts",
    "absolute_url",
    "german_datetime",
    "label_value_pairs",
    "money",
    "notice_facts",
    "parse_html",
    "rows_with_pages",
    "text_of",
]

REPLACEMENT_CHAR = "\ufffd"
_NON_ASCII = re.compile(r"[^\x00-\x7f\ufffd]")
_LABEL_NOISE = re.compile(r"[\s:]+")
# eForms/TED numbering in front of a label: "II.2.1) Geschätzter Wert", "5.1.6 Schlusstermin".
_LABEL_NUMBER = re.compile(r"^(?:[ivx]+|\d+)(?:\.\d+)*\)\s*|^(?:[ivx]+|\d+)(?:\.\d+)+\s+")
_CURRENCY = re.compile(r"(EUR|€)", re.IGNORECASE)
_AMOUNT = re.compile(r"\d[\d.,\s]*\d|\d")


@dataclass(frozen=True)
class HtmlPage:
    soup: BeautifulSoup
    text: str  # the decoded document, for marker checks
    encoding: str
    declared_by: str
    problem: str = ""  # set when characters had to be dropped (undecodable bytes)


def parse_html(data: bytes, *, content_type: str | None = None, label: str = "page") -> HtmlPage:
    """Decode ``data`` like a browser (see module docstring) and parse it with lxml."""
    decoded = decode_bytes(data, content_type=content_type)
    problem = ""
    if decoded.garbled and decoded.encoding == "utf-8" and not _NON_ASCII.search(decoded.text):
        decoded = Decoded(
            text=decode_bytes(data, content_type="text/html; charset=windows-1252").text,
            encoding="windows-1252",
            declared_by="fallback",
            garbled=False,
        )
    elif decoded.garbled:
        problem = f"{label}: invalid {decoded.encoding} byte sequences; the affected characters were dropped"
    soup = BeautifulSoup(decoded.text, "lxml")
    return HtmlPage(
        soup=soup, text=decoded.text, encoding=decoded.encoding, declared_by=decoded.declared_by, problem=problem
    )


def text_of(node: Tag | str | None, *, separator: str = " ", limit: int | None = None) -> str:
    """Visible text of ``node`` (or a string), NFC, whitespace collapsed, never a U+FFFD."""
    if node is None:
        return ""
    raw = node if isinstance(node, str) else node.get_text(separator)
    return clean_text(raw.replace(REPLACEMENT_CHAR, ""), limit=limit)


def german_datetime(node: Tag | str | None, *, end_of_day: bool = False) -> datetime | None:
    """``dd.mm.yyyy[ HH:MM]`` (Europe/Berlin) from a cell; an ``abbr[title]`` (full date and time) wins.

    ``end_of_day``: a date without time means 23:59 (deadlines: the whole day counts), else 00:00.
    """
    candidates = []
    if isinstance(node, Tag) and (abbr := node.find("abbr", title=True)) is not None:
        candidates.append(text_of(str(abbr["title"])))
    candidates.append(text_of(node))
    for text in candidates:
        value = parse_german_datetime(text, default_time=END_OF_DAY if end_of_day else None) if text else None
        if value is not None:
            return value
    return None


def money(text: str) -> tuple[Decimal | None, str]:
    """(Decimal amount, "EUR" or "") from e.g. "Wert: 1.234.567,89 EUR"; (None, "") if there is no number."""
    match = _AMOUNT.search(text or "")
    amount = parse_decimal(match.group(0).replace(" ", "")) if match else None
    if amount is None:
        return None, ""
    return amount, "EUR" if _CURRENCY.search(text) else ""


def absolute_url(base: str, href: str | None) -> str:
    """``href`` resolved against ``base``; only http(s) results, "" otherwise (javascript:, mailto:)."""
    if not href:
        return ""
    try:
        # Resolved as the browser resolves it on the portal's page (WHATWG): "\\" is "/", the
        # serialisation names the host every later reader sees.
        url = parse_url(href, base=base)
    except UrlRefused:
        return ""
    return url.href if url.scheme in WEB_SCHEMES and url.host else ""


def _label_key(label: str) -> str:
    return _LABEL_NOISE.sub(" ", _LABEL_NUMBER.sub("", label.casefold().strip())).strip()


@dataclass(frozen=True)
class LabelValues:
    """Label/value pairs of a detail page, looked up by any of several label spellings."""

    pairs: tuple[tuple[str, str], ...] = ()
    _keys: tuple[str, ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> LabelValues:
        kept = tuple((label, value) for label, value in pairs if label and value)
        return cls(pairs=kept, _keys=tuple(_label_key(label) for label, _ in kept))

    def all(self, labels: Iterable[str]) -> list[str]:
        """Values of every row labelled with one of ``labels`` (page order); if none is, of rows whose
        label starts with one of them."""
        wanted = [_label_key(label) for label in labels]
        rows = list(zip(self._keys, (value for _, value in self.pairs), strict=True))
        exact = [value for key, value in rows if key in wanted]
        return exact or [value for key, value in rows if any(key.startswith(w) for w in wanted)]

    def get(self, labels: Iterable[str]) -> str:
        """The value of the first label in ``labels`` (priority order) present exactly, else by prefix."""
        wanted = [_label_key(label) for label in labels]
        rows = list(zip(self._keys, (value for _, value in self.pairs), strict=True))
        for matches in (lambda key, w: key == w, lambda key, w: key.startswith(w)):
            for w in wanted:
                for key, value in rows:
                    if matches(key, w):
                        return value
        return ""


def label_value_pairs(containers: Iterable[Tag]) -> list[tuple[str, str]]:
    """Two-cell table rows (``th``/``td``) and ``dt``/``dd`` pairs inside ``containers``.

    Rows with another number of cells (section headings, nested layout) are skipped.
    Values keep line breaks as single newlines (addresses).
    """
    pairs: list[tuple[str, str]] = []
    for container in containers:
        for row in container.find_all("tr"):
            cells = row.find_all(["td", "th"], recursive=False)
            if len(cells) == 2:
                pairs.append((text_of(cells[0]), text_of(cells[1], separator="\n")))
        for term in container.find_all("dt"):
            definition = term.find_next_sibling("dd")
            if definition is not None:
                pairs.append((text_of(term), text_of(definition, separator="\n")))
    return pairs


# -- detail pages: label/value rows -> notice facts ------------------------------------------

_CPV = re.compile(r"\b\d{8}(?:-\d)?\b")
_NUTS = re.compile(r"\bDE[0-9A-G][0-9A-Z]{0,2}\b")


@dataclass(frozen=True)
class NoticeFacts:
    """What a portal's detail page says about a notice; empty where its label is absent."""

    title: str = ""
    description: str = ""
    buyer_name: str = ""
    reference: str = ""
    procedure: str = ""
    cpv_codes: tuple[str, ...] = ()
    postal_code: str = ""
    town: str = ""
    nuts_codes: tuple[str, ...] = ()
    estimated_value: Decimal | None = None
    currency: str = ""
    published_at: datetime | None = None
    submission_deadline: datetime | None = None
    questions_deadline: datetime | None = None

    @property
    def country(self) -> str:
        """ "DEU" when the place is German (PLZ or German NUTS code), else unknown."""
        return "DEU" if self.postal_code or any(code.startswith("DE") for code in self.nuts_codes) else ""

    def record_fields(self) -> dict:
        """The ``NoticeRecord`` fields a detail page alone decides, the same for every portal: what, where, how much."""
        return {
            "description": self.description,
            "cpv_codes": self.cpv_codes,
            "nuts_codes": self.nuts_codes,
            "bundesland": bundesland_for_nuts(self.nuts_codes),
            "postal_code": self.postal_code,
            "town": self.town,
            "country": self.country,
            "estimated_value": self.estimated_value,
            "currency": self.currency if self.estimated_value is not None else "",
            "questions_deadline": self.questions_deadline,
        }


def notice_facts(values: LabelValues, labels: Mapping[str, Iterable[str]]) -> NoticeFacts:
    """Read the fields named in ``labels`` (keys as in the portal selector modules) from ``values``.

    CPV codes are collected from every CPV row (main and additional); a place such as
    "73033 Göppingen" gives postal code and town; NUTS codes are taken from the NUTS rows and
    from the place text; the buyer is the first line of its value (the rest is its address).
    """

    def get(key: str) -> str:
        return values.get(labels.get(key, ()))

    place = "\n".join(values.all(labels.get("place", ())))
    postal_code = normalise_postal_code(place)
    amount, currency = money(get("value"))
    return NoticeFacts(
        title=text_of(get("title"), limit=1000),
        description=text_of(get("description"), limit=20000),
        buyer_name=get("buyer").split("\n", 1)[0],
        reference=get("reference"),
        procedure=get("procedure"),
        cpv_codes=unique_cpv(_CPV.findall(" ".join(values.all(labels.get("cpv", ()))))),
        postal_code=postal_code,
        town=_town(place, postal_code),
        nuts_codes=nuts_codes_from(_NUTS.findall(" ".join([*values.all(labels.get("nuts", ())), place]))),
        estimated_value=amount,
        currency=currency,
        published_at=parse_german_datetime(get("published")),
        submission_deadline=german_datetime(get("deadline"), end_of_day=True),
        questions_deadline=german_datetime(get("questions"), end_of_day=True),
    )


def _town(place: str, postal_code: str) -> str:
    for line in place.split("\n"):
        if postal_code and postal_code in line:
            return text_of(line.split(postal_code, 1)[1].strip(" ,-"), limit=200)
    return ""


# -- saved pages (``parse_files``) ------------------------------------------------------------

Row = TypeVar("Row")
Page = TypeVar("Page")
Record = TypeVar("Record")


def rows_with_pages(
    rows: Mapping[str, Row], pages: Mapping[str, Page], record: Callable[[Row | None, Page | None], Record]
) -> list[Record]:
    """Saved list rows joined with saved detail pages of the same notice id: ``record(row, page)``.

    A record per row (with its page, if one was saved), then one per page whose notice has
    no row, each in the order the files were read.
    """
    records = [record(row, pages.get(key)) for key, row in rows.items()]
    records.extend(record(None, page) for key, page in pages.items() if key not in rows)
    return records
