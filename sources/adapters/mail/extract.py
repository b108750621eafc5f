"""Alert-mail text -> one ``AlertEntry`` per notice (link, title, labelled fields).

Digest layouts differ (link before or after the details, with or without titles, tables),
so entries are told apart by structure, not by position:

* a line with a link to a notice that is not the current entry's starts a new entry;
* a title-like line (no known label, not just a link) starts a new entry once the current
  one has its link; before that it is the title (the last such line wins, so greetings
  above the first notice are passed over); between labels and link it is description;
* a label whose field the current entry already has starts a new entry;
* in plain text a blank line closes an entry that has its link (and drops labels without
  one: a header block such as "Kategorie: …" above the first notice);
* "a | b | c" rows under a header row of known labels (an HTML table) map cells to fields.

Entries without a notice link are dropped; the same notice listed twice is one entry.
Limits: a title spread over several lines keeps its last line; details printed after the
next notice's title belong to that next notice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from kernel.normalise import clean_text
from sources.adapters.mail.fields import FIELD_LABELS, labelled_fields, starts_with_label
from sources.adapters.mail.portals import DTAD, NoticeLink, classify_link

__all__ = ["AlertEntry", "extract_entries"]

_URL = re.compile(r"<?(https?://[^\s<>\"']+)>?", re.IGNORECASE)
_NUMBERING = re.compile(r"^\s*(?:\(?\d{1,3}[.):]|[-*•·>]|nr\.\s*\d+:?)\s+", re.IGNORECASE)
_GENERIC_TEXT = re.compile(
    r"^(?:details?|link|hier|mehr|weiter|anzeigen|öffnen|ansehen|"
    r"zu[rm]\s.{0,40}|mehr\s.{0,30}|weitere\s.{0,30}|.{0,30}\s(?:anzeigen|öffnen|ansehen)|"
    r"(?:details?|link|url|adresse)\s*:?)$",
    re.IGNORECASE,
)
_HEADER_LABELS = {label: name for name, labels in FIELD_LABELS.items() for label in labels}
_HEADER_LABELS.update({"link": "link", "details": "link", "url": "link"})


@dataclass
class AlertEntry:
    link: NoticeLink
    title: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    description: str = ""
    references: tuple[str, ...] = ()  # portal references of other links in the entry


@dataclass
class _Draft:
    title: str = ""
    lines: list[str] = field(default_factory=list)
    description: list[str] = field(default_factory=list)
    links: list[NoticeLink] = field(default_factory=list)

    @property
    def fields(self) -> dict[str, str]:
        return labelled_fields("\n".join(self.lines))


def extract_entries(text: str, *, dtad_mode: bool = False) -> list[AlertEntry]:
    lines = [clean_text(line) for line in (text or "").splitlines()]
    table_entries, table_rows = _table_entries(lines, dtad_mode)
    entries = list(table_entries)
    remaining = ["" if index in table_rows else line for index, line in enumerate(lines)]
    entries.extend(_line_entries(remaining, dtad_mode))
    return _merge_duplicates(entries)


def _links_in(line: str, dtad_mode: bool) -> list[NoticeLink]:
    found = []
    for url in _URL.findall(line):
        link = classify_link(url.rstrip(".,;:)]}"), dtad_mode=dtad_mode)
        if link is not None:
            found.append(link)
    return found


def _without_urls(line: str) -> str:
    return clean_text(_URL.sub(" ", line)).strip(" :-–|")


def _title_text(line: str) -> str:
    text = _NUMBERING.sub("", _without_urls(line)).strip()
    return "" if not text or _GENERIC_TEXT.match(text) else text


def _line_entries(lines: list[str], dtad_mode: bool) -> Iterator[AlertEntry]:
    draft = _Draft()
    for line in lines:
        if not line:
            if draft.links:
                yield from _finish(draft)
                draft = _Draft()
            elif draft.lines:  # labels without a link above a blank line: a header block, not a notice
                draft = _Draft()
            continue
        links = _links_in(line, dtad_mode)
        title = _title_text(line)
        if starts_with_label(line):
            label_fields = labelled_fields(line)
            if draft.links and any(name in draft.fields for name in label_fields if name != "title"):
                yield from _finish(draft)
                draft = _Draft()
            draft.lines.append(_without_urls(line) if links else line)
            # A web address in a field ("Vergabestelle: Stadt X <https://stadt-x.de/vergabe>") is no notice
            # link; only exact portal links count there.
            draft.links.extend(link for link in links if link.portal != DTAD)
        elif links:
            if _starts_new_notice(draft, links[0], title):
                yield from _finish(draft)
                draft = _Draft()
            if title and not draft.links:
                draft.title = title
            draft.links.extend(links)
        elif title:
            if draft.links:
                yield from _finish(draft)
                draft = _Draft(title=title)
            elif draft.lines:
                draft.description.append(title)
            else:
                draft.title = title
    yield from _finish(draft)


def _starts_new_notice(draft: _Draft, link: NoticeLink, title: str) -> bool:
    """A link to another notice starts a new entry - unless it is the same notice on another portal.

    A title-less link of a different portal family (a DTAD entry naming the cosinex project,
    a service.bund.de page naming the NetServer procedure) is a second link of the entry.
    """
    if not draft.links or link.notice_id in {known.notice_id for known in draft.links}:
        return False
    return bool(title) or link.portal in {known.portal for known in draft.links}


def _finish(draft: _Draft) -> Iterator[AlertEntry]:
    if not draft.links:
        return
    primary = draft.links[0]
    fields = draft.fields
    others = tuple(
        dict.fromkeys(link.reference for link in draft.links[1:] if link.reference not in ("", primary.reference))
    )
    yield AlertEntry(
        link=primary,
        title=fields.pop("title", "") or draft.title,
        fields=fields,
        description="\n".join(draft.description),
        references=others,
    )


def _cells(line: str) -> list[str]:
    return [clean_text(cell) for cell in line.split("|")]


def _header_fields(cells: list[str]) -> list[str] | None:
    names = [_HEADER_LABELS.get(cell.lower().rstrip(":"), "") for cell in cells]
    return names if sum(1 for name in names if name) >= 2 else None


def _table_entries(lines: list[str], dtad_mode: bool) -> tuple[list[AlertEntry], set[int]]:
    """Rows of "a | b | c" tables whose header row names known fields."""
    entries: list[AlertEntry] = []
    used: set[int] = set()
    header: list[str] | None = None
    for index, line in enumerate(lines):
        if "|" not in line:
            header = None if line else header
            continue
        cells = _cells(line)
        candidate = _header_fields(cells)
        if candidate is not None and not _links_in(line, dtad_mode):
            header, used = candidate, used | {index}
            continue
        links = _links_in(line, dtad_mode)
        if header is None or not links:
            continue
        used.add(index)
        fields: dict[str, str] = {}
        for name, cell in zip(header, cells, strict=False):
            value = _without_urls(cell)
            if name and name != "link" and value and name not in fields:
                fields[name] = value
        title = fields.pop("title", "") or next((_title_text(c) for c in cells if _links_in(c, dtad_mode)), "")
        references = tuple(dict.fromkeys(link.reference for link in links[1:] if link.reference))
        entries.append(AlertEntry(link=links[0], title=title, fields=fields, references=references))
    return entries, used


def _merge_duplicates(entries: list[AlertEntry]) -> list[AlertEntry]:
    merged: dict[tuple[str, str, str], AlertEntry] = {}
    for entry in entries:
        key = (entry.link.portal, entry.link.host, entry.link.notice_id)
        first = merged.get(key)
        if first is None:
            merged[key] = entry
            continue
        first.title = first.title or entry.title
        first.fields = {**entry.fields, **first.fields}
        first.description = first.description or entry.description
        first.references = tuple(dict.fromkeys((*first.references, *entry.references)))
    return list(merged.values())
