"""One run over DTVP's public CPV list pages and the detail pages behind their entries.

One ``FetchedBatch`` per list page: its rows, read with their detail pages within the budget.

Identity: the CX id the detail link names. A row whose link names none gets it from its detail
page; a row whose detail page the run's budget (``max_details``, ``max_bytes``) does not reach waits
(``details_pending`` in the yield report, a ``missing`` line, run "partial") and is never recorded
without the id: a tender made without it could not join the DÖE/TED notice of the same project
later. Rows that have their id are recorded from the row when the budget is spent (a portal list row
ranks below the detail page, so it never overrides what an earlier run read there).

Detail pages no complete run has read yet (the conditional cache does not know their URL) get the
budget first; those read before take at most half of it and are asked conditionally.

Teasers: blurred entries (``is-blurred``, shown to non-members) are skipped and counted per page
(``skipped`` in the yield report, a ``missing`` line), never parsed into notices and never counted as
drift. A page that is neither a list nor "nothing found" is a changed layout: the category is named in
``missing`` with the page kept as a sample, and the run goes on with the next category; when no
category can be read the run ends blocked ("changed_layout"). Login, consent and error walls block the
run as on every portal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from kernel.network import (
    Blocked,
    BlockedByRobots,
    DisallowedHost,
    Fetcher,
    FetchError,
    FetchResult,
    detect_wall,
    normalise_host,
)
from kernel.urls import url_host
from sources.adapters.base import FetchedBatch
from sources.adapters.html import parse_html
from sources.adapters.paging import FATAL, PageWork, walk_pages
from sources.adapters.yields import LayoutChanged, PageYield, SamplePage
from sources.conditional import ConditionalFetcher, fetcher_forget, fetcher_knows

from . import selectors
from .options import category_cpv, category_url
from .parse import BLURRED_REASON, DetailPage, ListRow, notice_record, parse_detail_page, parse_list_page

__all__ = ["DtvpPublicList"]

_NOT_MODIFIED = object()  # a detail page answered 304: as the last complete run read it


class DtvpPublicList:
    """State of one run: byte and detail budgets, notices already handled (over all categories)."""

    def __init__(self, *, source: str, settings: dict[str, Any], fetcher: Fetcher | ConditionalFetcher) -> None:
        self.source = source
        self.settings = settings
        self.root: str = settings["public_list_url"]
        self.fetcher = fetcher
        self.bytes_used = 0
        self.seen: set[str] = set()
        self.details_left: int = settings["max_details"]
        self.known_details_left: int = settings["max_details"] // 2
        self.details_unavailable = ""  # set when detail pages are forbidden (robots.txt) for this run
        self.detail_hosts = {normalise_host(url_host(self.root))}
        if self.detail_hosts & set(selectors.PUBLIC_HOSTS):
            self.detail_hosts |= set(selectors.PUBLIC_HOSTS)

    def run(self) -> Iterator[FetchedBatch]:
        """Pages 1..n of each category; a run where no category could be read at all fails or blocks."""
        read_any = False
        failure: FetchError | None = None
        for category in self.settings["public_categories"]:
            scope = f"DTVP CPV {category_cpv(category)}"
            if self.bytes_used >= self.settings["max_bytes"]:
                yield FetchedBatch(missing=(self._cap(scope, "max_bytes"),), scope=scope)
                return
            try:
                for batch in walk_pages(
                    _CategoryPages(self, category, scope),
                    fetcher=self.fetcher,
                    first=1,
                    max_pages=self.settings["max_pages"],
                    out_of_bytes=lambda: self.bytes_used >= self.settings["max_bytes"],
                ):
                    read_any = True
                    yield batch
            except LayoutChanged as exc:
                failure = exc
                yield FetchedBatch(
                    missing=(f"{scope}: {exc.message}",),
                    requests=1,
                    scope=scope,
                    yields=(exc.page_yield,),
                    sample=exc.sample,
                )
            except FATAL:
                raise
            except FetchError as exc:  # only a category's first page raises
                failure = exc
                url = category_url(self.root, category)
                yield FetchedBatch(missing=(f"{url}: {exc.reason}: {exc}",), requests=1, scope=scope)
        if failure is not None and not read_any:
            raise failure

    def _cap(self, where: str, cap: str) -> str:
        return f"stopped at {cap}={self.settings[cap]}; {where} and later were not fetched this run"

    # -- list pages ---------------------------------------------------------------------------

    def page(self, result: FetchResult, url: str, scope: str) -> tuple[FetchedBatch, bool]:
        """(batch, is the last page) of a list page that was read (not a bare 304)."""
        self.bytes_used += len(result.body)
        page = parse_html(result.body, content_type=result.content_type, label=url)
        wall = detect_wall(
            requested_url=url, final_url=result.final_url, text=page.text, expected_marker=selectors.LIST_MARKER
        )
        sample = SamplePage.of(url=result.final_url, body=result.body, content_type=result.content_type)
        if wall and wall != "missing-result-container":
            raise Blocked(result.final_url, wall)
        parsed = parse_list_page(page, page_url=result.final_url, label=url)
        layout = "articles" if parsed.has_entries else ("empty" if parsed.says_empty else "unknown")
        skipped = dict(Counter(parsed.skipped))
        if layout == "unknown":
            page_yield = PageYield.of(page=url, layout=layout, parsed=0, rejected_reasons=())
            raise LayoutChanged(
                result.final_url,
                page_yield=page_yield,
                sample=sample,
                detail="neither DTVP list entries (article[role=article]) nor a 'nothing found' text",
            )
        work = PageWork(problems=list(parsed.problems), bytes=len(result.body), requests=1)
        blurred = skipped.get(BLURRED_REASON, 0)
        if blurred:
            work.missing.append(f"{url}: {blurred} blurred teaser entries skipped (shown to members only)")
        fresh = [row for row in parsed.rows if _key(row) not in self.seen]
        self.seen.update(_key(row) for row in fresh)
        late_rejected: list[str] = []
        if result.not_modified:
            work.not_modified = 1  # same bytes as after the last complete run
        else:
            late_rejected = self._rows(fresh, work)
        page_yield = PageYield.of(
            page=url,
            layout=layout,
            parsed=len(parsed.rows) - len(late_rejected),
            rejected_reasons=(*parsed.rejected, *late_rejected),
        )
        page_yield = replace(page_yield, details_pending=work.pending, skipped=skipped)
        if page_yield.all_rejected:
            raise LayoutChanged(result.final_url, page_yield=page_yield, sample=sample)
        if not work.complete:
            fetcher_forget(self.fetcher, url)
        work.yields.append(page_yield)
        work.sample = sample if page_yield.rejected_count else None
        return work.batch(scope), not parsed.has_next

    # -- detail pages -------------------------------------------------------------------------

    def _rows(self, rows: list[ListRow], work: PageWork) -> list[str]:
        """Records of a page's new rows, in page order; the reasons of rows rejected after their detail page."""
        known = {row.url for row in rows if fetcher_knows(self.fetcher, row.url)}
        planned = sorted(rows, key=lambda row: row.url in known)  # never-read detail pages first
        details: dict[str, DetailPage | object | None] = {}
        for row in planned:
            if self.details_unavailable or normalise_host(url_host(row.url)) not in self.detail_hosts:
                details[row.url] = None
            elif row.url in known and self.known_details_left <= 0:
                details[row.url] = None
                work.complete = False  # asked again by a later run
            elif self.details_left <= 0 or self.bytes_used >= self.settings["max_bytes"]:
                details[row.url] = None
                work.complete = False
            else:
                details[row.url] = self._detail(row, row.url in known, work)
        rejected: list[str] = []
        for row in rows:
            detail = details.get(row.url)
            if detail is _NOT_MODIFIED:
                if row.project_id:
                    work.records.append(notice_record(source=self.source, row=row))
                continue  # without an id in the link, the stored record of the last complete run stands
            read = detail if isinstance(detail, DetailPage) else None
            if row.project_id or (read is not None and read.project_id):
                work.records.append(notice_record(source=self.source, row=row, detail=read))
            elif read is not None:
                rejected.append("no CX id in the detail link or page")
                work.problems.append(f"{row.url}: names no cosinex project (CX id); skipped")
            else:
                work.pending += 1  # waits for its detail page (module docstring)
                work.complete = False
        if work.pending:
            work.missing.append(
                f"{work.pending} entries without a CX id in their link wait for their detail page "
                f"(max_details={self.settings['max_details']}); recorded when a later run reads it"
            )
        return rejected

    def _detail(self, row: ListRow, known: bool, work: PageWork) -> DetailPage | object | None:
        self.details_left -= 1
        self.known_details_left -= known
        try:
            result = self.fetcher.get(row.url)
        except BlockedByRobots as exc:
            self.details_unavailable = f"robots.txt forbids detail pages: {exc.reason}"
            work.missing.append(f"{row.url}: {exc.reason}: {exc}")
            return None
        except DisallowedHost as exc:  # a detail link redirected off the portal: that page only
            work.missing.append(f"{row.url}: {exc.reason}: {exc}")
            work.complete = False
            return None
        except FATAL:
            raise
        except FetchError as exc:
            work.missing.append(f"{row.url}: {exc.reason}: {exc}")
            work.complete = False
            return None
        work.requests += 1
        work.bytes += len(result.body)
        self.bytes_used += len(result.body)
        if result.not_modified:
            work.not_modified += 1
            return _NOT_MODIFIED
        page = parse_html(result.body, content_type=result.content_type, label=row.url)
        wall = detect_wall(
            requested_url=row.url,
            final_url=result.final_url,
            text=page.text,
            expected_marker=selectors.DETAIL_MARKER,
        )
        detail = None if wall else parse_detail_page(page, page_url=result.final_url)
        if detail is None:
            fetcher_forget(self.fetcher, row.url)
            why = f"blocked by a {wall} wall at {result.final_url}" if wall else "not a DTVP detail page"
            work.missing.append(f"{row.url}: {why}")
            work.complete = False
            return None
        if page.problem:
            work.problems.append(page.problem)
        return detail


class _CategoryPages:
    """One CPV category, paged by ``/page/<n>/`` while the page names a ``rel=next``."""

    def __init__(self, crawl: DtvpPublicList, category: str, scope: str) -> None:
        self.crawl = crawl
        self.category = category
        self.label = scope

    def url(self, position: int) -> str:
        return category_url(self.crawl.root, self.category, position)

    def scope(self, position: int) -> str:
        return f"{self.label} page {position}"

    def following(self, position: int) -> int:
        return position + 1

    def after_failure(self, position: int) -> int | None:
        return position + 1

    def read(self, result: FetchResult, url: str, position: int) -> tuple[FetchedBatch, int | None]:
        batch, last = self.crawl.page(result, url, self.scope(position))
        return batch, None if last else position + 1

    def cap_message(self, position: int, cap: str) -> str:
        return self.crawl._cap(self.scope(position), cap)

    def stopped_message(self, failures: int) -> str:
        return f"{self.label}: stopped after {failures} failing list pages in a row"


def _key(row: ListRow) -> str:
    if row.project_id:
        return row.project_id
    return f"post:{row.post_id}" if row.post_id else row.url
