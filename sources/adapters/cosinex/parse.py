"""cosinex announcement lists and saved project pages -> ``NoticeRecord`` values. Pure.

Every selector and label comes from :mod:`.selectors`. A row that cannot be read is a
problem naming the row and the reason; the other rows go on.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import parse_qsl, urlsplit

from bs4 import Tag

from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.legal_basis import legal_basis_in_text
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
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
from .options import notice_url

__all__ = [
    "ListPage",
    "ListRow",
    "ProjectPage",
    "notice_kind",
    "notice_record",
    "notice_status",
    "parse_list_page",
    "parse_project_page",
]

_TITLE_LIMIT = 1000
# What a four-cell row (no "Frist" cell: the procedure is over) may announce; see selectors.AWARD_COLUMNS.
AWARD_ROW_KINDS = frozenset({NoticeKind.AWARD, NoticeKind.CANCELLATION})


@dataclass(frozen=True)
class ListRow:
    project_id: str  # "CX…" when the row links one, else the forwarding pid
    is_cx: bool
    title: str
    notice_type: str  # the "Typ" cell as shown
    buyer_name: str
    published_at: datetime | None
    submission_deadline: datetime | None
    url: str


@dataclass(frozen=True)
class ListPage:
    rows: tuple[ListRow, ...]
    problems: tuple[str, ...]
    has_table: bool
    says_empty: bool
    page_count: int | None  # Y of "Seite: X von Y"
    rejected: tuple[str, ...] = ()  # one short reason per list row that gave no notice

    def page_yield(self, page: str) -> PageYield:
        layout = "table" if self.has_table else ("empty" if self.says_empty else "unknown")
        return PageYield.of(page=page, layout=layout, parsed=len(self.rows), rejected_reasons=self.rejected)


def parse_list_page(page: HtmlPage, *, base_url: str, page_url: str, label: str) -> ListPage:
    """Rows of an announcement list. Every row of the result table is a notice, a known layout row
    (header, pager, spacer, "nothing found") or a rejected row with its reason: none is dropped unseen."""
    tables = page.soup.select(selectors.RESULT_TABLE)
    rows: list[ListRow] = []
    rejected: list[str] = []
    problems: list[str] = [page.problem] if page.problem else []
    for table in tables:
        # Rows of a table nested in a cell belong to that cell (a nested result table is read on its own).
        own_rows = [tr for tr in table.find_all("tr") if tr.find_parent("table") is table]
        for number, tr in enumerate(own_rows, start=1):
            cells = tr.find_all("td", recursive=False)
            links = _project(_hrefs(tr, page_url))
            if not links[0] and _is_layout_row(tr, cells):
                continue
            read = _row(tr, cells, links, base_url=base_url)
            if isinstance(read, ListRow):
                rows.append(read)
            else:
                rejected.append(read.reason)
                problems.append(f"{label}: row {number}: {read.problem}; skipped")
    text = page.soup.get_text(" ")
    return ListPage(
        rows=tuple(rows),
        problems=tuple(problems),
        has_table=bool(tables),
        says_empty=bool(selectors.NO_RESULTS_TEXT.search(text)),
        page_count=_page_count(page, text),
        rejected=tuple(rejected),
    )


def _is_layout_row(tr: Tag, cells: list[Tag]) -> bool:
    """A row without a project link that never carries a notice: header (no ``td``), pager, spacer, or a
    single cell saying "nothing found" or "Seite X von Y". Any other row is read or rejected."""
    if not cells or tr.select_one(selectors.PAGER_IN_ROW) is not None:
        return True
    text = text_of(tr)
    return not text or (
        len(cells) == 1 and bool(selectors.NO_RESULTS_TEXT.search(text) or selectors.PAGE_COUNT.search(text))
    )


def _hrefs(tr: Tag, page_url: str) -> list[str]:
    return [absolute_url(page_url, a.get("href")) for a in tr.find_all("a", href=True)]


def _page_count(page: HtmlPage, text: str) -> int | None:
    """Y of "Seite: X von Y"; without that text, the highest page the pager's onclick/href targets name."""
    count = selectors.PAGE_COUNT.search(text)
    if count:
        return int(count.group(2))
    targets = [
        int(found)
        for link in page.soup.select(selectors.PAGER_LINKS)
        for found in selectors.PAGER_TARGET.findall(f"{link.get('onclick') or ''} {link.get('href') or ''}")
    ]
    return max(targets) if targets else None


@dataclass(frozen=True)
class _Rejected:
    reason: str  # short, counted per reason in the page's yield report
    problem: str  # the same with the row's particulars, for the run's problems


def _row(tr: Tag, cells: list[Tag], links: tuple[str, bool, str], *, base_url: str) -> ListRow | _Rejected:
    """A result row of either shape (:data:`selectors.COLUMNS`, :data:`selectors.AWARD_COLUMNS`)."""
    project_id, is_cx, link = links
    if len(cells) >= selectors.MIN_CELLS:
        columns = selectors.COLUMNS
    elif len(cells) == selectors.AWARD_ROW_CELLS:
        columns = selectors.AWARD_COLUMNS
    else:
        reason = f"{len(cells)} cells: no known row shape"
        return _Rejected(
            reason, f"{f'project {project_id}: ' if project_id else ''}{reason} ({text_of(tr, limit=80)!r})"
        )
    title = text_of(cells[columns["title"]], limit=_TITLE_LIMIT)
    if not project_id:
        reason = "no project link (/notice/CX… or projectForwarding.do?pid=…)"
        return _Rejected(reason, reason)
    if not title:
        return _Rejected("empty title", f"project {project_id}: empty title")
    notice_type = text_of(cells[columns["type"]], limit=200)
    deadline = None
    if "deadline" in columns:
        deadline_cell = cells[columns["deadline"]]
        deadline_text = text_of(deadline_cell)
        says_none = not deadline_text or deadline_text.casefold().startswith(selectors.NO_DEADLINE)
        deadline = None if says_none else german_datetime(deadline_cell, end_of_day=True)
        if deadline is None and not says_none:
            # Columns shifted (e.g. a closed procedure's row plus a link cell): never read into wrong fields.
            reason = "Frist cell neither a date nor 'nv'"
            return _Rejected(reason, f"project {project_id}: {reason} ({deadline_text[:60]!r})")
    elif notice_kind(notice_type) not in AWARD_ROW_KINDS:
        reason = f"{selectors.AWARD_ROW_CELLS} cells without an award type"
        return _Rejected(reason, f"project {project_id}: {reason} (Typ {notice_type[:60]!r})")
    return ListRow(
        project_id=project_id,
        is_cx=is_cx,
        title=title,
        notice_type=notice_type,
        buyer_name=text_of(cells[columns["publisher"]], limit=500),
        published_at=german_datetime(cells[columns["published"]]),
        submission_deadline=deadline,
        url=notice_url(base_url, project_id) if is_cx else link,
    )


def _project(hrefs: list[str]) -> tuple[str, bool, str]:
    """(project id, is a CX id, link) from a row's links: a CX id anywhere wins over a numeric pid."""
    for href in hrefs:
        parts = urlsplit(href)
        candidates = [*parts.path.split("/"), *(value for _, value in parse_qsl(parts.query))]
        for candidate in candidates:
            if selectors.PROJECT_ID.fullmatch(candidate):
                return candidate, True, href
    for href in hrefs:
        pid = dict(parse_qsl(urlsplit(href).query)).get(selectors.FORWARD_PARAM, "")
        if pid.isascii() and pid.isalnum() and len(pid) <= 40:
            return pid, False, href
    return "", False, ""


def notice_kind(notice_type: str) -> NoticeKind:
    lowered = notice_type.casefold()
    for markers, kind in (
        (selectors.AWARD_TYPES, NoticeKind.AWARD),
        (selectors.CANCELLATION_TYPES, NoticeKind.CANCELLATION),
        (selectors.CHANGE_TYPES, NoticeKind.CHANGE),
        (selectors.PRIOR_TYPES, NoticeKind.PRIOR_INFORMATION),
    ):
        if any(marker in lowered for marker in markers):
            return kind
    return NoticeKind.CONTRACT_NOTICE


def notice_status(kind: NoticeKind) -> TenderStatus:
    return {NoticeKind.AWARD: TenderStatus.AWARDED, NoticeKind.CANCELLATION: TenderStatus.CANCELLED}.get(
        kind, TenderStatus.ACTIVE
    )


def _rule_and_procedure(notice_type: str) -> tuple[str, str]:
    """("VOB/A", "public_tender") from "VOB/A Öffentliche Ausschreibung"; unknown procedures stay ""."""
    match = selectors.RULE_PREFIX.match(notice_type)
    rule = match.group(1) if match else ""
    rest = notice_type[match.end() :] if match else notice_type
    code = procedure_type_code(rest)
    return rule, "" if code == "other" else code


@dataclass(frozen=True)
class ProjectPage:
    project_id: str
    facts: NoticeFacts
    notice_type: str
    documents_url: str = ""
    says_no_deadline: bool = False  # the deadline section says "nv" (no deadline), not merely absent


def parse_project_page(page: HtmlPage, *, page_url: str = "", fallback_id: str = "") -> ProjectPage | None:
    """A project overview page (saved, or fetched from ``page_url``), or None when it names no CX
    project or has no title. Reads both known layouts: label/value rows (``dl``, two-cell tables)
    and the Satellite div layout (``h4.sub-headline`` sections of ``.control-group`` blocks)."""
    values = LabelValues.of([*label_value_pairs([page.soup]), *section_pairs(page.soup)])
    project_id = _page_project_id(page, page_url) or fallback_id
    facts = notice_facts(values, selectors.LABELS)
    if not facts.title:
        heading = page.soup.select_one(selectors.DETAIL_HEADING)
        facts = replace(facts, title=text_of(heading, limit=_TITLE_LIMIT) or _title_from_head(page))
    if not project_id or not facts.title or not values.pairs:
        return None
    deadline_text = values.get(selectors.LABELS["deadline"])
    return ProjectPage(
        project_id=project_id,
        facts=facts,
        notice_type=values.get(selectors.LABELS["type"]),
        documents_url=_documents_url(page, page_url, project_id),
        says_no_deadline=facts.submission_deadline is None and _says_no_deadline(deadline_text),
    )


def section_pairs(soup: Tag) -> list[tuple[str, str]]:
    """(heading, value) per ``h4.sub-headline`` section and (label, value) per labelled ``.control-group``.

    A section's value is the text of the ``.control-group`` siblings that follow the heading's
    container up to the next heading container, one line per group.
    """
    pairs: list[tuple[str, str]] = []
    for heading in soup.select(selectors.SECTION_HEADING):
        container = heading.find_parent("div", class_=selectors.SECTION_CONTAINER_CLASS) or heading
        lines = []
        for sibling in container.find_next_siblings():
            classes = sibling.get("class") or []
            if selectors.SECTION_CONTAINER_CLASS in classes or sibling.select_one(selectors.SECTION_HEADING):
                break
            if selectors.SECTION_VALUE_CLASS in classes and sibling.select_one(selectors.CONTROL_LABEL) is None:
                lines.append(text_of(sibling, separator="\n"))
        pairs.append((text_of(heading), "\n".join(line for line in lines if line)))
    for group in soup.select(selectors.CONTROL_GROUP):
        label, value = group.select_one(selectors.CONTROL_LABEL), group.select_one(selectors.CONTROL_VALUE)
        if label is not None and value is not None:
            pairs.append((text_of(label).rstrip(":"), text_of(value, separator="\n")))
    return pairs


def _says_no_deadline(text: str) -> bool:
    return bool(text) and text_of(text).casefold().startswith(selectors.NO_DEADLINE)


def _documents_url(page: HtmlPage, page_url: str, project_id: str) -> str:
    """The project's documents tab (``…/project/<CX>/…/documents``), resolved against the page's URL."""
    for link in page.soup.select(selectors.DOCUMENTS_LINK):
        url = absolute_url(page_url, str(link.get("href") or "")) if page_url else ""
        if project_id in url:
            return url
    return ""


def _title_from_head(page: HtmlPage) -> str:
    """ "CX… | <title> | <host>" in the page's <title> (Satellite project pages)."""
    title = text_of(page.soup.title, limit=_TITLE_LIMIT) if page.soup.title else ""
    parts = [part.strip() for part in title.split("|")]
    return parts[1] if len(parts) >= 2 and selectors.PROJECT_ID.fullmatch(parts[0]) else ""


def _page_project_id(page: HtmlPage, page_url: str = "") -> str:
    """The page's own CX id: from the URL it was served under (after the forwarding redirect), its
    canonical link or its <title>, else the one its links name most often."""
    in_url = selectors.PROJECT_IN_URL.search(page_url)
    if in_url:
        return in_url.group(1)
    for element in page.soup.select(selectors.CANONICAL_LINKS):
        found = selectors.PROJECT_ID.findall(str(element.get("href") or element.get("content") or ""))
        if found:
            return found[0]
    title = selectors.PROJECT_TITLE.match(text_of(page.soup.title) if page.soup.title else "")
    if title:
        return title.group(1)
    counts = Counter(
        found
        for a in page.soup.find_all(["a", "form"])
        for found in selectors.PROJECT_ID.findall(str(a.get("href") or a.get("action") or ""))
    )
    return counts.most_common(1)[0][0] if counts else ""


def notice_record(
    *, source: str, base_url: str, row: ListRow | None, project: ProjectPage | None = None
) -> NoticeRecord:
    """One notice from its list row, its project page, or both (the row wins for list fields).

    A row that links only ``projectForwarding.do?pid=`` keeps the pid as its identity on every
    run; its project page adds the CX id as portal reference (the merge key DÖE/TED links name),
    the CX short link, the documents link, CPV codes and the page's deadline ("nv": none).
    """
    if row is None and project is None:
        raise ValueError("notice_record needs a list row or a project page")
    project_id = row.project_id if row is not None else project.project_id  # type: ignore[union-attr]
    is_cx = row.is_cx if row is not None else True
    cx_id = project_id if is_cx else (project.project_id if project is not None else "")
    facts = project.facts if project is not None else NoticeFacts()
    notice_type = (row.notice_type if row else "") or (project.notice_type if project else "")
    kind = notice_kind(notice_type)
    rule, procedure = _rule_and_procedure(notice_type)
    if not procedure and facts.procedure:
        procedure = procedure_type_code(facts.procedure)
    return NoticeRecord(
        source=source,
        origin=Origin.PORTAL_DETAIL if project is not None else Origin.PORTAL_LIST,
        source_notice_id=project_id,
        kind=kind,
        status=notice_status(kind),
        portal_references=(f"cosinex:{cx_id}",) if cx_id else (),
        title=(row.title if row else "") or facts.title,
        buyer_name=(row.buyer_name if row else "") or facts.buyer_name,
        procedure_type=procedure,
        legal_basis=legal_basis_in_text(rule),
        published_at=(row.published_at if row else None) or facts.published_at,
        submission_deadline=_deadline(row, project),
        **facts.record_fields(),
        documents_url=project.documents_url if project is not None else "",
        url=row.url if row is not None and (row.is_cx or not cx_id) else notice_url(base_url, cx_id),
        payload={
            "format": "cosinex-html",
            "type": notice_type,
            "rule": rule,
            "reference": facts.reference,
            "detail": project is not None,
            **({"pid": project_id, "project_id": cx_id} if not is_cx and cx_id else {}),
        },
    )


def _deadline(row: ListRow | None, project: ProjectPage | None) -> datetime | None:
    """A list row's deadline, unless its project page says otherwise; a fetched project page wins
    over a row that knows only the day (and "nv" there means no deadline)."""
    if project is not None and project.facts.submission_deadline is not None:
        return project.facts.submission_deadline
    if project is not None and project.says_no_deadline:
        return None
    return row.submission_deadline if row is not None else None
