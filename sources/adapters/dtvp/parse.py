"""DTVP public list pages and detail pages -> ``NoticeRecord`` values. Pure.

Every selector and label comes from :mod:`.selectors`. A row that cannot be read is a rejected
row with its reason (drift shows in the yield report); a blurred teaser row is *skipped*, counted
apart: its text is not the notice's, and that is the portal's choice, not a changed layout.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import parse_qsl, urlsplit

from bs4 import Tag

from kernel.records import NoticeRecord
from kernel.vocabulary.legal_basis import legal_basis_in_text
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.statuses import TenderStatus
from sources.adapters.html import HtmlPage, LabelValues, absolute_url, german_datetime, notice_facts, text_of

from . import selectors

__all__ = ["DetailPage", "ListPage", "ListRow", "notice_record", "parse_detail_page", "parse_list_page"]

_TITLE_LIMIT = 1000
BLURRED_REASON = "blurred teaser (members only)"
NO_LINK_REASON = "teaser without a notice link"


@dataclass(frozen=True)
class ListRow:
    post_id: str  # WordPress "post_<n>": the entry's id on the list, not the notice's
    project_id: str  # the cosinex CX id named by the detail link, "" when it names none
    title: str
    buyer_name: str
    procedure: str  # the Verfahrensart line as shown
    submission_deadline: datetime | None
    place: str
    url: str  # the detail page


@dataclass(frozen=True)
class ListPage:
    rows: tuple[ListRow, ...]
    rejected: tuple[str, ...]  # one short reason per entry that gave no row
    skipped: tuple[str, ...]  # one reason per teaser entry left out on purpose
    problems: tuple[str, ...]
    has_entries: bool
    says_empty: bool
    has_next: bool


def parse_list_page(page: HtmlPage, *, page_url: str, label: str) -> ListPage:
    rows: list[ListRow] = []
    rejected: list[str] = []
    skipped: list[str] = []
    problems: list[str] = [page.problem] if page.problem else []
    entries = page.soup.select(selectors.ENTRY)
    for number, entry in enumerate(entries, start=1):
        row, reason = _row(entry, page_url=page_url)
        if row is not None:
            rows.append(row)
        elif reason in (BLURRED_REASON, NO_LINK_REASON):
            skipped.append(reason)
        else:
            rejected.append(reason)
            problems.append(f"{label}: entry {number}: {reason}; skipped")
    return ListPage(
        rows=tuple(rows),
        rejected=tuple(rejected),
        skipped=tuple(skipped),
        problems=tuple(problems),
        has_entries=bool(entries),
        says_empty=not entries and bool(selectors.NO_RESULTS_TEXT.search(page.soup.get_text(" "))),
        has_next=page.soup.select_one(selectors.NEXT_PAGE) is not None,
    )


def _row(entry: Tag, *, page_url: str) -> tuple[ListRow | None, str]:
    if selectors.BLURRED_CLASS in (entry.get("class") or []) or entry.select_one(selectors.BLURRED) is not None:
        return None, BLURRED_REASON
    link = entry.select_one(selectors.TITLE_LINK)
    href = str(link.get("href") or "").strip() if link is not None else ""
    url = absolute_url(page_url, href) if href and not href.startswith("#") else ""
    if not url:
        # A registration card among the entries links "#": no notice behind it.
        return None, NO_LINK_REASON if link is not None or not text_of(entry) else "no title link (h5.title a)"
    title = text_of(link, limit=_TITLE_LIMIT)
    if not title:
        return None, "empty title"
    post_id = str(entry.get("id") or "")
    return (
        ListRow(
            post_id=post_id.removeprefix(selectors.ENTRY_ID_PREFIX) if post_id else "",
            project_id=project_id_in_link(url),
            title=title,
            buyer_name=_after_icon(entry, selectors.ICON_BUYER, limit=500),
            procedure=_after_icon(entry, selectors.ICON_PROCEDURE, limit=200),
            submission_deadline=_deadline(_after_icon(entry, selectors.ICON_DEADLINE)),
            place=_after_icon(entry, selectors.ICON_PLACE, limit=200),
            url=url,
        ),
        "",
    )


def _after_icon(entry: Tag, icon: str, *, limit: int | None = None) -> str:
    """The text of the element that holds ``icon``: the value it marks (labels such as "Frist:" stay)."""
    found = entry.select_one(icon)
    return text_of(found.parent, limit=limit) if found is not None and found.parent is not None else ""


def _deadline(text: str) -> datetime | None:
    value = text.split(":", 1)[1].strip() if re.match(r"^[^\d:]+:", text) else text.strip()
    if not value or value.casefold().startswith(selectors.NO_DEADLINE):
        return None
    return german_datetime(value, end_of_day=True)


def project_id_in_link(url: str) -> str:
    """The CX id a DTVP detail link names (path segment, query value or end of the slug), upper case."""
    try:
        parts = urlsplit(url)
        values = [*parts.path.split("/"), *(value for _, value in parse_qsl(parts.query))]
    except ValueError:
        return ""
    for value in values:
        match = selectors.CX_IN_LINK.search(value)
        if match:
            return match.group(1).upper()
    return ""


@dataclass(frozen=True)
class DetailPage:
    title: str
    description: str
    buyer_name: str
    procedure: str
    cpv_codes: tuple[str, ...]
    submission_deadline: datetime | None
    place: str
    postal_code: str
    town: str
    project_id: str  # the CX id the page's links name most often, "" when none


def parse_detail_page(page: HtmlPage, *, page_url: str) -> DetailPage | None:
    """A DTVP detail page (``h1``, the description block, ``h6`` labels), or None when it is none."""
    pairs = []
    for heading in page.soup.select(selectors.DETAIL_LABEL):
        value = heading.find_next_sibling()
        if value is not None:
            pairs.append((text_of(heading).rstrip(":"), text_of(value, separator="\n")))
    values = LabelValues.of(pairs)
    title = text_of(page.soup.select_one(selectors.DETAIL_TITLE), limit=_TITLE_LIMIT)
    description = page.soup.select_one(selectors.DETAIL_DESCRIPTION)
    if not title or (description is None and not values.pairs):
        return None
    facts = notice_facts(values, selectors.LABELS)
    ids = Counter(
        found
        for element in page.soup.select(selectors.DETAIL_LINKS)
        for found in (project_id_in_link(absolute_url(page_url, str(element.get("href") or ""))),)
        if found
    )
    return DetailPage(
        title=title,
        description=text_of(description, separator="\n", limit=20000),
        buyer_name=facts.buyer_name,
        procedure=values.get(selectors.LABELS["procedure"]),
        cpv_codes=facts.cpv_codes,
        submission_deadline=facts.submission_deadline,
        place=values.get(selectors.LABELS["place"]),
        postal_code=facts.postal_code,
        town=facts.town,
        project_id=ids.most_common(1)[0][0] if ids else "",
    )


def notice_record(*, source: str, row: ListRow, detail: DetailPage | None = None) -> NoticeRecord:
    """One notice from its list row and, when read, its detail page (the page wins where it states a value).

    The CX id is the identity: DÖE/TED notices that link the same cosinex project name it, so the
    row merges with them by exact portal reference. The caller records only rows that have one.
    """
    project_id = row.project_id or (detail.project_id if detail is not None else "")
    if not project_id:
        raise ValueError("notice_record needs a CX id from the link or the detail page")
    procedure_text = (detail.procedure if detail is not None else "") or row.procedure
    procedure = procedure_type_code(procedure_text.split("(")[0].split(",")[0])
    place = (detail.place if detail is not None else "") or row.place
    return NoticeRecord(
        source=source,
        origin=Origin.PORTAL_DETAIL if detail is not None else Origin.PORTAL_LIST,
        source_notice_id=project_id,
        status=TenderStatus.ACTIVE,
        portal_references=(f"cosinex:{project_id}",),
        title=(detail.title if detail is not None else "") or row.title,
        description=detail.description if detail is not None else "",
        buyer_name=(detail.buyer_name if detail is not None else "") or row.buyer_name,
        procedure_type="" if procedure == "other" else procedure,
        legal_basis=legal_basis_in_text(procedure_text),
        cpv_codes=detail.cpv_codes if detail is not None else (),
        postal_code=detail.postal_code if detail is not None else "",
        # "Ort der Ausführung" is a town, or a postcode and town; a town alone is kept as it is.
        town=(detail.town if detail is not None else "") or (place if not re.search(r"\d", place) else ""),
        country="DEU" if detail is not None and detail.postal_code else "",
        submission_deadline=(detail.submission_deadline if detail is not None else None) or row.submission_deadline,
        url=row.url,
        payload={
            "format": "dtvp-public-list",
            "post_id": row.post_id,
            "procedure": procedure_text,
            "place": place,
            "detail": detail is not None,
            "project_url": selectors.SATELLITE_NOTICE.format(project_id=project_id),
        },
    )
