"""Yield reports of HTML list pages: drift in a portal's markup can never look like "no tenders".

Why: a portal that changes its result rows still answers 200 with a result page; parsed with
the old selectors it yields nothing, and nothing is what a quiet day looks like too. So every
list page an HTML adapter reads reports what it saw: the layout it recognised, the rows it
found, how many became notices and why the others were rejected. The run then judges:

* a page whose result container is there but whose rows are ALL rejected raises
  :class:`LayoutChanged` at once (the run ends *blocked: changed layout*);
* a run whose rejected share over all pages passes :data:`REJECTED_SHARE_LIMIT` ends the
  same way after its batches were ingested (``run_rejected_too_much``);
* either way one page is kept as a sample for the operator (:data:`SAMPLE_MAX_BYTES`).

Pure: no ORM. ``sources.services`` stores the reports on the FetchRun.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kernel.network import Blocked

# Layouts that say nothing about the markup (a "nothing found" page): not recorded as the layout last seen.
UNINFORMATIVE_LAYOUTS = frozenset({"empty", ""})

__all__ = [
    "UNINFORMATIVE_LAYOUTS",
    "REJECTED_SHARE_LIMIT",
    "SAMPLE_MAX_BYTES",
    "LayoutChanged",
    "PageYield",
    "SamplePage",
    "run_rejected_too_much",
]

# More than this share of all rows seen in a run rejected: the markup changed under us.
REJECTED_SHARE_LIMIT = 0.2
# Below this many rows seen in a run, one odd row is no evidence of drift (the all-rejected rule still holds).
MIN_ROWS_FOR_SHARE = 3
# A result page is tens to hundreds of KB; the sample keeps its head, enough to see the new markup.
SAMPLE_MAX_BYTES = 256 * 1024
REASONS_KEPT = 20  # distinct rejection reasons per page


@dataclass(frozen=True)
class PageYield:
    """What one list page gave: ``rows_seen`` = ``parsed`` + sum of ``rejected``."""

    page: str  # the page's URL or file name
    layout: str  # e.g. "table-6", "table-5", "cards", "json", "empty" (the portal's "nothing found"), "unknown"
    rows_seen: int = 0
    parsed: int = 0
    rejected: Mapping[str, int] = field(default_factory=dict)  # reason -> rows
    # Parsed rows whose detail page the run's budget did not reach: not recorded yet, read on a later run.
    details_pending: int = 0
    # Entries left out on purpose, reason -> entries (DTVP's blurred teasers for non-members): not in
    # rows_seen, because they say nothing about drift, but shown so that no entry vanishes unreported.
    skipped: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, *, page: str, layout: str, parsed: int, rejected_reasons: Iterable[str]) -> PageYield:
        counts = Counter(rejected_reasons)
        kept = dict(counts.most_common(REASONS_KEPT))
        return cls(page=page, layout=layout, rows_seen=parsed + sum(counts.values()), parsed=parsed, rejected=kept)

    @property
    def rejected_count(self) -> int:
        return self.rows_seen - self.parsed

    @property
    def all_rejected(self) -> bool:
        return self.rows_seen > 0 and self.parsed == 0

    def as_json(self) -> dict[str, Any]:
        return {
            "page": self.page[:500],
            "layout": self.layout,
            "rows_seen": self.rows_seen,
            "parsed": self.parsed,
            "rejected": dict(self.rejected),
            **({"details_pending": self.details_pending} if self.details_pending else {}),
            **({"skipped": dict(self.skipped)} if self.skipped else {}),
        }


@dataclass(frozen=True)
class SamplePage:
    """The head of a page kept for the operator: the markup the adapter could not read."""

    url: str
    body: bytes
    content_type: str = ""

    @classmethod
    def of(cls, *, url: str, body: bytes, content_type: str | None = None) -> SamplePage:
        return cls(url=url[:2000], body=bytes(body[:SAMPLE_MAX_BYTES]), content_type=(content_type or "")[:200])


class LayoutChanged(Blocked):
    """The result page is the portal's, but its rows no longer match what the adapter knows.

    A ``Blocked`` (the run ends "blocked", never "zero tenders") with reason "changed_layout",
    carrying the page's yield report and a sample of it.
    """

    reason = "changed_layout"

    def __init__(self, final_url: str, *, page_yield: PageYield, sample: SamplePage, detail: str = "") -> None:
        super().__init__(final_url, "changed-layout")
        reasons = ", ".join(f"{reason} ({count})" for reason, count in page_yield.rejected.items())
        # German: operators read it in the console and in their digest (reasons are the parsers' own words).
        self.message = (
            f"Layout geändert auf {final_url}: {page_yield.rows_seen} Ergebniszeilen gesehen, keine lesbar"
            f"{f' ({detail})' if detail else ''}{f'; abgelehnt: {reasons}' if reasons else ''}. "
            "Das ist kein leeres Ergebnis; die Seite liegt als Beispielseite am Abruf."
        )
        self.args = (self.message,)
        self.page_yield = page_yield
        self.sample = sample


def run_rejected_too_much(yields: Iterable[PageYield | Mapping[str, Any]]) -> str:
    """Why a run's yield counts as drift ("" when it does not): a page whose rows were all
    rejected, or a rejected share over all pages above :data:`REJECTED_SHARE_LIMIT`."""
    seen = rejected = 0
    for item in yields:
        report = item.as_json() if isinstance(item, PageYield) else item
        page_seen = int(report.get("rows_seen") or 0)
        page_rejected = page_seen - int(report.get("parsed") or 0)
        if page_seen and page_rejected == page_seen:
            return (
                f"Layout geändert auf {report.get('page')}: {page_seen} Ergebniszeilen gesehen, keine lesbar "
                f"(abgelehnt: {', '.join(f'{r} ({n})' for r, n in dict(report.get('rejected') or {}).items())}); "
                "das ist kein leeres Ergebnis"
            )
        seen, rejected = seen + page_seen, rejected + page_rejected
    if seen < MIN_ROWS_FOR_SHARE or rejected <= seen * REJECTED_SHARE_LIMIT:
        return ""
    return (
        f"{rejected} von {seen} Ergebniszeilen abgelehnt ({rejected / seen * 100:.0f} %, "
        f"Grenze {REJECTED_SHARE_LIMIT * 100:.0f} %): das Listenlayout des Portals hat sich geändert; "
        "siehe Ausbeute je Seite und Beispielseite dieses Abrufs"
    )
