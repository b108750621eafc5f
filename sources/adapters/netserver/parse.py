"""NetServer result pages -> rows. Pure. Detail pages: ``.detail``; the record of a row and a detail: ``.record``.

Every selector and label comes from :mod:`.selectors`. A row that cannot be read is a
problem naming the notice id and the reason, and a rejected row in the page's yield report;
the other rows go on. Dates are local Europe/Berlin times (``dd.mm.yyyy HH:MM``, on cards
``dd/mm/yyyy``; "24:00" is the end of that day), returned aware.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from bs4 import Tag

from kernel.normalise import parse_german_datetime
from kernel.vocabulary.legal_basis import legal_basis_in_text
from sources.adapters.html import (
    HtmlPage,
    german_datetime,
    text_of,
)
from sources.adapters.yields import PageYield

from . import selectors

__all__ = ["ResultPage", "ResultRow", "parse_result_page", "split_type_text"]

SAFE_ID = re.compile(r"[\w.-]{1,200}")
_START = re.compile(r"(?:^|[?&;])Start=(\d+)", re.IGNORECASE)
TITLE_LIMIT = 1000


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
        if not SAFE_ID.fullmatch(oid):
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
            title=text_of(texts[selectors.ROLE_TITLE], limit=TITLE_LIMIT),
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
    if not SAFE_ID.fullmatch(oid):
        into.reject("no usable data-oid", f"{label}: result card without a usable {selectors.ROW_ID_ATTR}; skipped")
        return
    title = text_of(card.select_one(selectors.CARD_TITLE), limit=TITLE_LIMIT)
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
