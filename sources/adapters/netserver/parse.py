"""NetServer result and detail pages -> rows, detail facts and ``NoticeRecord`` values. Pure.

Every selector and label comes from :mod:`.selectors`. A row that cannot be read is a
problem naming the notice id and the reason; the other rows go on. Dates are local
Europe/Berlin times (``dd.mm.yyyy HH:MM``), returned aware.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import parse_qsl, urlsplit

from bs4 import Tag

from sources.adapters.html import (
    HtmlPage,
    LabelValues,
    NoticeFacts,
    absolute_url,
    german_datetime,
    label_value_pairs,
    notice_facts,
    text_of,
)
from sources.normalise import bundesland_for_nuts, procedure_type_code
from sources.parsers.eforms import portal_references_from_urls
from sources.records import NoticeKind, NoticeRecord, TenderStatus

from . import selectors
from .options import detail_url, documents_url

__all__ = ["DetailFacts", "ResultPage", "ResultRow", "notice_record", "parse_detail_page", "parse_result_page"]

KIND_BY_CATEGORY = {
    "InvitationToTender": NoticeKind.CONTRACT_NOTICE,
    "ContractAward": NoticeKind.AWARD,
    "PriorInformation": NoticeKind.PRIOR_INFORMATION,
}
_SAFE_ID = re.compile(r"[\w.-]{1,200}")
_START = re.compile(r"(?:^|[?&;])Start=(\d+)", re.IGNORECASE)
_TITLE_LIMIT = 1000


@dataclass(frozen=True)
class ResultRow:
    oid: str
    category: str
    title: str
    buyer_name: str
    procedure: str  # as shown, e.g. "Öffentliche Ausschreibung"
    legal_framework: str  # VOB, VOL/UVgO, VgV, ...
    published_at: datetime | None
    submission_deadline: datetime | None


@dataclass(frozen=True)
class ResultPage:
    rows: tuple[ResultRow, ...]
    starts: tuple[int, ...]  # every Start= offset the page links to
    problems: tuple[str, ...]
    has_table: bool
    says_empty: bool  # the portal's own "nothing found" text
    unmatched_rows: int  # data rows in the table that the row selector did not match (changed layout)

    def next_start(self, current: int) -> int | None:
        """The smallest linked ``Start=`` above ``current``: the next page (None on the last)."""
        return min((s for s in self.starts if s > current), default=None)


def parse_result_page(page: HtmlPage, *, category: str, label: str) -> ResultPage:
    soup = page.soup
    tables = soup.select(selectors.RESULT_TABLE)
    rows: list[ResultRow] = []
    problems: list[str] = [page.problem] if page.problem else []
    unmatched = 0
    for table in tables:
        matched = table.select(selectors.RESULT_ROW)
        matched_ids = {id(row) for row in matched}
        unmatched += sum(
            1
            for tr in table.find_all("tr")
            if id(tr) not in matched_ids and len(tr.find_all("td", recursive=False)) >= selectors.MIN_CELLS
        )
        for tr in matched:
            row, problem = _row(tr, category=category, label=label)
            if row is not None:
                rows.append(row)
            if problem:
                problems.append(problem)
    starts = sorted(
        {int(m.group(1)) for a in soup.select(selectors.PAGING_LINK) if (m := _START.search(str(a.get("href", ""))))}
    )
    return ResultPage(
        rows=tuple(rows),
        starts=tuple(starts),
        problems=tuple(problems),
        has_table=bool(tables),
        says_empty=bool(selectors.NO_RESULTS_TEXT.search(soup.get_text(" "))),
        unmatched_rows=unmatched,
    )


def _row(tr: Tag, *, category: str, label: str) -> tuple[ResultRow | None, str]:
    oid = str(tr.get(selectors.ROW_ID_ATTR) or "").strip()
    if not _SAFE_ID.fullmatch(oid):
        return None, f"{label}: result row without a usable {selectors.ROW_ID_ATTR} ({oid[:60]!r}); skipped"
    cells = tr.find_all("td", recursive=False)
    if len(cells) < selectors.MIN_CELLS:
        return None, f"{label}: notice {oid}: {len(cells)} cells, expected {selectors.MIN_CELLS}; skipped"
    by_class = {
        index: tr.find("td", class_=css, recursive=False) or cells[index]
        for index, css in selectors.CELL_CLASSES.items()
    }
    title = text_of(by_class[selectors.CELL_TITLE], limit=_TITLE_LIMIT)
    if not title:
        return None, f"{label}: notice {oid}: empty title cell; skipped"
    row_category = str(tr.get(selectors.ROW_CATEGORY_ATTR) or "").strip()
    return (
        ResultRow(
            oid=oid,
            category=row_category if row_category in selectors.CATEGORIES else category,
            title=title,
            buyer_name=text_of(by_class[selectors.CELL_BUYER], limit=500),
            procedure=text_of(cells[selectors.CELL_PROCEDURE], limit=200),
            legal_framework=text_of(cells[selectors.CELL_LEGAL_FRAMEWORK], limit=200),
            published_at=german_datetime(cells[selectors.CELL_PUBLISHED]),
            submission_deadline=german_datetime(by_class[selectors.CELL_DEADLINE], end_of_day=True),
        ),
        "",
    )


@dataclass(frozen=True)
class DetailFacts:
    oid: str
    facts: NoticeFacts = NoticeFacts()
    category: str = ""  # from the page's own links, when they name one
    documents_url: str = ""


def parse_detail_page(page: HtmlPage, *, page_url: str) -> DetailFacts | None:
    """The facts of a detail page, or None when it has no notice tables or names no TenderOID."""
    tables = page.soup.select(selectors.DETAIL_TABLES)
    if not tables:
        return None
    links = [absolute_url(page_url, a.get("href")) for a in page.soup.select(selectors.DOCUMENTS_LINK)]
    oid = _page_oid(page, page_url, links)
    if not oid:
        return None
    facts = notice_facts(LabelValues.of(label_value_pairs(tables)), selectors.LABELS)
    if not facts.title:
        facts = replace(facts, title=text_of(page.soup.select_one(selectors.DETAIL_HEADING), limit=_TITLE_LIMIT))
    return DetailFacts(
        oid=oid, facts=facts, category=_page_category(page), documents_url=next((link for link in links if link), "")
    )


def _page_oid(page: HtmlPage, page_url: str, links: list[str]) -> str:
    hrefs = [str(a.get("href")) for a in page.soup.find_all("a", href=True)]
    for ref in portal_references_from_urls([page_url, *links, *hrefs]):
        if ref.startswith("netserver:"):
            return ref.removeprefix("netserver:")
    for element in page.soup.find_all("input", attrs={"name": ("TOID", "TenderOID")}):
        value = str(element.get("value") or "").strip()
        if _SAFE_ID.fullmatch(value):
            return value
    return ""


def _page_category(page: HtmlPage) -> str:
    for a in page.soup.find_all("a", href=True):
        query = dict(parse_qsl(urlsplit(str(a["href"]).replace("&amp;", "&")).query))
        if query.get(selectors.CATEGORY_PARAM) in selectors.CATEGORIES:
            return query[selectors.CATEGORY_PARAM]
    return ""


def _procedure_code(raw: str) -> str:
    """Canonical code of "Öffentliche Ausschreibung" and of combined cells such as "VOB, Beschränkte Ausschreibung"."""
    code = procedure_type_code(raw)
    if code == "other":
        for part in reversed(raw.split(",")):
            if (candidate := procedure_type_code(part)) not in ("", "other"):
                return candidate
    return code


def notice_record(
    *, source: str, base_url: str, row: ResultRow | None, detail: DetailFacts | None, url: str = ""
) -> NoticeRecord:
    """One notice from its result row, its detail page, or both (the row wins for list fields)."""
    if row is None and detail is None:
        raise ValueError("notice_record needs a result row or a detail page")
    oid = row.oid if row is not None else detail.oid  # type: ignore[union-attr]
    category = row.category if row is not None else (detail.category or _category_from_url(url))  # type: ignore[union-attr]
    kind = KIND_BY_CATEGORY.get(category, NoticeKind.CONTRACT_NOTICE)
    facts = detail.facts if detail is not None else NoticeFacts()
    procedure = (row.procedure if row else "") or facts.procedure
    documents = (detail.documents_url if detail is not None else "") or (
        documents_url(base_url, oid=oid) if kind is NoticeKind.CONTRACT_NOTICE and detail is not None else ""
    )
    return NoticeRecord(
        source=source,
        source_notice_id=oid,
        kind=kind,
        status=TenderStatus.AWARDED if kind is NoticeKind.AWARD else TenderStatus.ACTIVE,
        portal_references=(f"netserver:{oid}",),
        title=facts.title or (row.title if row else ""),
        description=facts.description,
        buyer_name=(row.buyer_name if row else "") or facts.buyer_name,
        procedure_type=_procedure_code(procedure),
        cpv_codes=facts.cpv_codes,
        nuts_codes=facts.nuts_codes,
        bundesland=bundesland_for_nuts(facts.nuts_codes),
        postal_code=facts.postal_code,
        town=facts.town,
        country=facts.country,
        estimated_value=facts.estimated_value,
        currency=facts.currency if facts.estimated_value is not None else "",
        published_at=(row.published_at if row else None) or facts.published_at,
        submission_deadline=(row.submission_deadline if row else None) or facts.submission_deadline,
        questions_deadline=facts.questions_deadline,
        documents_url=documents,
        url=url or detail_url(base_url, oid=oid, category=category),
        payload={
            "format": "netserver-html",
            "category": category,
            "procedure": procedure,
            "legal_framework": row.legal_framework if row else "",
            "reference": facts.reference,
            "detail": detail is not None,
        },
    )


def _category_from_url(url: str) -> str:
    query = dict(parse_qsl(urlsplit(url).query)) if url else {}
    category = query.get(selectors.CATEGORY_PARAM, "")
    return category if category in selectors.CATEGORIES else "InvitationToTender"
