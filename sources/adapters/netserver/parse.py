"""NetServer result and detail pages -> rows, detail facts and ``NoticeRecord`` values. Pure.

Every selector and label comes from :mod:`.selectors`. A row that cannot be read is a
problem naming the notice id and the reason, and a rejected row in the page's yield report;
the other rows go on. Dates are local Europe/Berlin times (``dd.mm.yyyy HH:MM``, on cards
``dd/mm/yyyy``; "24:00" is the end of that day), returned aware.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from urllib.parse import parse_qsl, urlsplit

from bs4 import Tag

from kernel.normalise import parse_german_datetime
from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.legal_basis import legal_basis_code, legal_basis_in_text
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.regions import bundesland_for_nuts
from kernel.vocabulary.statuses import TenderStatus
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
from sources.adapters.yields import PageYield

from . import selectors
from .options import detail_url, documents_url

__all__ = [
    "DetailFacts",
    "ResultPage",
    "ResultRow",
    "notice_record",
    "parse_detail_page",
    "parse_result_page",
    "split_type_text",
]

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
    has_container: bool  # the result table or the card list is there
    says_empty: bool  # the portal's own "nothing found" text
    layout: str  # "table-6", "table-5", "cards", "empty" or "unknown"
    rejected: tuple[str, ...] = ()  # one short reason per result row that gave no notice

    @property
    def rows_seen(self) -> int:
        return len(self.rows) + len(self.rejected)

    def next_start(self, current: int) -> int | None:
        """The smallest linked ``Start=`` above ``current``: the next page (None on the last)."""
        return min((s for s in self.starts if s > current), default=None)

    def page_yield(self, page: str) -> PageYield:
        return PageYield.of(page=page, layout=self.layout, parsed=len(self.rows), rejected_reasons=self.rejected)


def parse_result_page(page: HtmlPage, *, category: str, label: str) -> ResultPage:
    """Rows of a result page in any known layout (see :mod:`.selectors`); rejected rows keep their reason."""
    soup = page.soup
    collected = _Collected(problems=[page.problem] if page.problem else [])
    tables = soup.select(selectors.RESULT_TABLE)
    for table in tables:
        _table_rows(table, category=category, label=label, into=collected)
    cards = soup.select(selectors.CARD_ANY)
    for card in cards:
        _card_row(card, category=category, label=label, into=collected)
    starts = sorted(
        {int(m.group(1)) for a in soup.select(selectors.PAGING_LINK) if (m := _START.search(str(a.get("href", ""))))}
    )
    says_empty = bool(selectors.NO_RESULTS_TEXT.search(soup.get_text(" ")))
    return ResultPage(
        rows=tuple(collected.rows),
        starts=tuple(starts),
        problems=tuple(collected.problems),
        has_container=bool(tables or cards),
        says_empty=says_empty,
        layout=collected.layout() or (selectors.LAYOUT_EMPTY if says_empty else selectors.LAYOUT_UNKNOWN),
        rejected=tuple(collected.rejected),
    )


@dataclass
class _Collected:
    rows: list[ResultRow] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    layouts: Counter[str] = field(default_factory=Counter)

    def reject(self, reason: str, problem: str) -> None:
        self.rejected.append(reason)
        self.problems.append(problem)

    def layout(self) -> str:
        return self.layouts.most_common(1)[0][0] if self.layouts else ""


# -- table layouts ---------------------------------------------------------------------------------


def _header_roles(table: Tag) -> list[str]:
    """The role of each column named by the table's header row ("" where the header says nothing)."""
    for tr in table.find_all("tr"):
        headers = tr.find_all("th", recursive=False)
        if headers:
            return [_header_role(text_of(th)) for th in tr.find_all(["th", "td"], recursive=False)]
    return []


def _header_role(text: str) -> str:
    return next((role for pattern, role in selectors.HEADER_ROLES if pattern.search(text)), "")


def _table_rows(table: Tag, *, category: str, label: str, into: _Collected) -> None:
    header = _header_roles(table)
    matched = table.select(selectors.RESULT_ROW)
    matched_ids = {id(row) for row in matched}
    for tr in table.find_all("tr"):
        if id(tr) in matched_ids or len(tr.find_all("td", recursive=False)) < selectors.MIN_CELLS:
            continue
        oid = str(tr.get(selectors.ROW_ID_ATTR) or "")[:60]
        into.reject(
            "row does not match selectors.RESULT_ROW",
            f"{label}: result row {oid!r} does not match selectors.RESULT_ROW; skipped",
        )
    for tr in matched:
        cells = tr.find_all("td", recursive=False)
        into.layouts[selectors.LAYOUT_TABLE.format(cells=len(cells))] += 1
        oid = str(tr.get(selectors.ROW_ID_ATTR) or "").strip()
        if not _SAFE_ID.fullmatch(oid):
            into.reject(
                "no usable data-oid",
                f"{label}: result row without a usable {selectors.ROW_ID_ATTR} ({oid[:60]!r}); skipped",
            )
            continue
        roles = _cell_roles(cells, header)
        if selectors.ROLE_TITLE not in roles:
            into.reject(
                f"no title cell among {len(cells)} cells",
                f"{label}: notice {oid}: no title cell (class 'tender' or a title header) among {len(cells)} cells; "
                "skipped",
            )
            continue
        texts = {role: cell for role, cell in roles.items()}
        procedure, legal = _procedure_and_legal(roles)
        _add_row(
            into,
            label=label,
            oid=oid,
            category=_row_category(tr, category),
            title=text_of(texts[selectors.ROLE_TITLE], limit=_TITLE_LIMIT),
            buyer=text_of(texts.get(selectors.ROLE_BUYER), limit=500),
            procedure=procedure,
            legal=legal,
            published=_date(texts.get(selectors.ROLE_PUBLISHED)),
            deadline=_date(texts.get(selectors.ROLE_DEADLINE), end_of_day=True),
        )


def _cell_roles(cells: list[Tag], header: list[str]) -> dict[str, Tag | str]:
    """Role -> cell: by class, then by the column's header; "type" cells split by header or count.

    Two "type" cells are procedure then legal framework (six cells); one is the combined
    "Rechtsrahmen, Verfahrensart" cell (five cells). A cell without class or header that holds
    a date, before the title, is the publication date.
    """
    roles: dict[str, Tag | str] = {}
    type_cells: list[tuple[Tag, str]] = []
    unassigned: list[tuple[int, Tag]] = []
    for index, cell in enumerate(cells):
        by_header = header[index] if index < len(header) else ""
        by_class = next(
            (selectors.CELL_CLASS_ROLES[c] for c in cell.get("class") or () if c in selectors.CELL_CLASS_ROLES), ""
        )
        role = by_class or by_header
        if role == selectors.ROLE_TYPE or (not by_class and role in _TYPE_ROLES):
            type_cells.append((cell, by_header if by_header in _TYPE_ROLES else ""))
        elif role and role not in roles:
            roles[role] = cell
        else:
            unassigned.append((index, cell))
    if len(type_cells) == 1:
        cell, kind = type_cells[0]
        roles[kind if kind in _TYPE_ROLES and kind != selectors.ROLE_TYPE else selectors.ROLE_COMBINED] = cell
    else:
        for (cell, kind), default in zip(type_cells, (selectors.ROLE_PROCEDURE, selectors.ROLE_LEGAL), strict=False):
            roles.setdefault(kind if kind not in ("", selectors.ROLE_TYPE) else default, cell)
    if selectors.ROLE_PUBLISHED not in roles:
        title_index = next((i for i, c in enumerate(cells) if roles.get(selectors.ROLE_TITLE) is c), len(cells))
        for index, cell in unassigned:
            if index < title_index and parse_german_datetime(_dotted(text_of(cell))) is not None:
                roles[selectors.ROLE_PUBLISHED] = cell
                break
    return roles


_TYPE_ROLES = (selectors.ROLE_TYPE, selectors.ROLE_PROCEDURE, selectors.ROLE_LEGAL, selectors.ROLE_COMBINED)


def _procedure_and_legal(roles: dict[str, Tag | str]) -> tuple[str, str]:
    procedure = text_of(roles.get(selectors.ROLE_PROCEDURE), limit=200)
    legal = text_of(roles.get(selectors.ROLE_LEGAL), limit=200)
    combined = text_of(roles.get(selectors.ROLE_COMBINED), limit=400)
    if combined:
        split_legal, split_procedure = split_type_text(combined)
        procedure, legal = procedure or split_procedure, legal or split_legal
    return procedure, legal


def split_type_text(text: str) -> tuple[str, str]:
    """("UVgO", "Öffentliche Ausschreibung") from "UVgO, Öffentliche Ausschreibung"; either order.

    The part that names a legal basis is the framework, the rest the procedure; a text naming
    no legal basis is all procedure.
    """
    parts = [part for part in selectors.COMBINED_SEPARATOR.split(text) if part]
    legal = [part for part in parts if legal_basis_in_text(part)]
    if not legal:
        return "", text
    return legal[0], ", ".join(part for part in parts if part is not legal[0])


# -- card layout -----------------------------------------------------------------------------------


def _card_row(card: Tag, *, category: str, label: str, into: _Collected) -> None:
    into.layouts[selectors.LAYOUT_CARDS] += 1
    oid = str(card.get(selectors.ROW_ID_ATTR) or "").strip()
    if not _SAFE_ID.fullmatch(oid):
        into.reject("no usable data-oid", f"{label}: result card without a usable {selectors.ROW_ID_ATTR}; skipped")
        return
    title = text_of(card.select_one(selectors.CARD_TITLE), limit=_TITLE_LIMIT)
    if not title:
        into.reject(
            f"no title ({selectors.CARD_TITLE})", f"{label}: notice {oid}: card without {selectors.CARD_TITLE}; skipped"
        )
        return
    values = _card_values(card)
    legal, procedure = split_type_text(values.get(selectors.ROLE_TYPE, ""))
    _add_row(
        into,
        label=label,
        oid=oid,
        category=_row_category(card, category),
        title=title,
        buyer=text_of(values.get(selectors.ROLE_BUYER), limit=500),
        procedure=procedure,
        legal=legal,
        published=_date(values.get(selectors.ROLE_PUBLISHED)),
        deadline=_date(values.get(selectors.ROLE_DEADLINE), end_of_day=True),
    )


def _card_values(card: Tag) -> dict[str, str]:
    """Labelled lines of a card ("Vergabestelle: …" on one line, or the label alone and its value next)."""
    lines = [line.strip() for line in card.get_text("\n").split("\n") if line.strip()]
    found: dict[str, str] = {}
    for index, line in enumerate(lines):
        for role, names in selectors.CARD_LABELS.items():
            if role in found:
                continue
            for name in names:
                match = re.match(rf"{re.escape(name)}\s*:\s*(.*)$", line, re.IGNORECASE)
                if match:
                    value = match.group(1).strip() or (lines[index + 1] if index + 1 < len(lines) else "")
                    found[role] = value
                    break
    return found


# -- rows ---------------------------------------------------------------------------------------


def _add_row(
    into: _Collected,
    *,
    label: str,
    oid: str,
    category: str,
    title: str,
    buyer: str,
    procedure: str,
    legal: str,
    published: datetime | None,
    deadline: datetime | None,
) -> None:
    if not title:
        into.reject("empty title", f"{label}: notice {oid}: empty title; skipped")
        return
    into.rows.append(
        ResultRow(
            oid=oid,
            category=category,
            title=title,
            buyer_name=buyer,
            procedure=procedure,
            legal_framework=legal,
            published_at=published,
            submission_deadline=deadline,
        )
    )


def _row_category(element: Tag, category: str) -> str:
    value = str(element.get(selectors.ROW_CATEGORY_ATTR) or "").strip()
    return value if value in selectors.CATEGORIES else category


def _dotted(text: str) -> str:
    """dd/mm/yyyy (cards) as dd.mm.yyyy."""
    return selectors.SLASH_DATE.sub(r"\1.\2.\3", text)


def _date(node: Tag | str | None, *, end_of_day: bool = False) -> datetime | None:
    if node is None:
        return None
    if isinstance(node, Tag) and node.find("abbr", title=True) is not None:
        return german_datetime(node, end_of_day=end_of_day)
    return german_datetime(_dotted(text_of(node)), end_of_day=end_of_day)


@dataclass(frozen=True)
class DetailFacts:
    oid: str
    facts: NoticeFacts = NoticeFacts()
    category: str = ""  # from the page's own links, when they name one
    documents_url: str = ""
    tender_oid: str = ""  # TenderOID of the documents link; DÖE notices link this one
    legal_framework: str = ""  # as shown ("VgV", "UVgO", …)


def refused_link_problems(page: HtmlPage, *, page_url: str, where: str) -> list[str]:
    """A problem per documents link of a detail page that is not http(s) (javascript:, data:, …)."""
    hrefs = [(a.get("href") or "").strip() for a in page.soup.select(selectors.DOCUMENTS_LINK)]
    return [
        f"{where}: documents link dropped (only http/https links are kept): {href[:120]}"
        for href in hrefs
        if href and href[0] != "#" and not absolute_url(page_url, href)
    ]


def parse_detail_page(page: HtmlPage, *, page_url: str) -> DetailFacts | None:
    """The facts of a detail page, or None when it has no notice rows or names no TOID/TenderOID.

    Rows are read inside ``#printarea``/``#content-section`` when the page has such a wrapper,
    else from the ``.tableContractNotice`` tables; numbered labels ("II.2.1) Geschätzter Wert")
    match their plain spelling.
    """
    containers = page.soup.select(selectors.DETAIL_WRAPPERS) or page.soup.select(selectors.DETAIL_TABLES)
    if not containers:
        return None
    links = [absolute_url(page_url, a.get("href")) for a in page.soup.select(selectors.DOCUMENTS_LINK)]
    tender_oid = next((oid for link in links if (oid := _query_value(link, selectors.DOCUMENTS_ID_PARAM))), "")
    oid = _page_oid(page, page_url) or tender_oid
    if not oid:
        return None
    values = LabelValues.of(label_value_pairs(containers))
    if not values.pairs:
        return None
    facts = notice_facts(values, selectors.LABELS)
    if not facts.title:
        facts = replace(facts, title=text_of(page.soup.select_one(selectors.DETAIL_HEADING), limit=_TITLE_LIMIT))
    return DetailFacts(
        oid=oid,
        facts=facts,
        category=_page_category(page),
        documents_url=next((link for link in links if link), ""),
        tender_oid=tender_oid if _SAFE_ID.fullmatch(tender_oid) else "",
        legal_framework=text_of(values.get(selectors.LABELS["legal_basis"]), limit=200),
    )


def _query_value(url: str, name: str) -> str:
    """The value of query parameter ``name`` (any case) in ``url``; "" if absent."""
    try:
        query = parse_qsl(urlsplit(url.replace("&amp;", "&")).query)
    except ValueError:
        return ""
    return next((value.strip() for key, value in query if key.lower() == name.lower()), "")


def _page_oid(page: HtmlPage, page_url: str) -> str:
    """The publication's TOID: from the page URL, a link or form field naming it; never the TenderOID.

    The TenderOID of the documents link may be another string than the list's TOID
    ("…-NetTender-…" vs "…-Tender-…"); it is kept apart as ``tender_oid``.
    """
    candidates = [page_url, *(str(a.get("href")) for a in page.soup.find_all("a", href=True))]
    for url in candidates:
        value = _query_value(url, selectors.DETAIL_ID_PARAM)
        if _SAFE_ID.fullmatch(value):
            return value
    for element in page.soup.find_all("input", attrs={"name": selectors.DETAIL_ID_PARAM}):
        value = str(element.get("value") or "").strip()
        if _SAFE_ID.fullmatch(value):
            return value
    for element in page.soup.find_all("input", attrs={"name": selectors.DOCUMENTS_ID_PARAM}):
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
    legal_framework = (row.legal_framework if row else "") or (detail.legal_framework if detail else "")
    references = [f"netserver:{oid}"]
    if detail is not None and detail.tender_oid and detail.tender_oid != oid:
        references.append(f"netserver:{detail.tender_oid}")  # the id DÖE notices link (documents link)
    documents = (detail.documents_url if detail is not None else "") or (
        documents_url(base_url, oid=oid) if kind is NoticeKind.CONTRACT_NOTICE and detail is not None else ""
    )
    return NoticeRecord(
        source=source,
        origin=Origin.PORTAL_DETAIL if detail is not None else Origin.PORTAL_LIST,
        source_notice_id=oid,
        kind=kind,
        status=TenderStatus.AWARDED if kind is NoticeKind.AWARD else TenderStatus.ACTIVE,
        portal_references=tuple(references),
        title=facts.title or (row.title if row else ""),
        description=facts.description,
        buyer_name=(row.buyer_name if row else "") or facts.buyer_name,
        procedure_type=_procedure_code(procedure),
        legal_basis=legal_basis_in_text(legal_framework) or legal_basis_code(legal_framework),
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
            "legal_framework": legal_framework,
            "reference": facts.reference,
            "detail": detail is not None,
        },
    )


def _category_from_url(url: str) -> str:
    query = dict(parse_qsl(urlsplit(url).query)) if url else {}
    category = query.get(selectors.CATEGORY_PARAM, "")
    return category if category in selectors.CATEGORIES else "InvitationToTender"
