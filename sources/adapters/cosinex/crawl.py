"""One cosinex HTML run: list pages (newest or per CPV category), the project pages behind
``pid`` rows, caps. See the package docstring for the rules; this module applies them to a Fetcher.

One ``FetchedBatch`` per list page: its rows, and the records its ``pid`` rows gave through
their project pages.

Project pages (Satellite hosts, and Center hosts' category tables): a row that links only
``projectForwarding.do?pid=<n>`` has no CX id, the key DÖE/TED notices name; its project page
has it. Up to ``max_details`` project pages are read per run (and within ``max_bytes``), with
the run's Fetcher, so politeness, robots.txt, the host allowlist and the session are those of
the list pages.

Rows the budget does not reach are *deferred*, not recorded from the row alone: a tender made
from the row would carry no CX id, and a DÖE notice of the same project could never join it
later (a known source notice id matches its own tender first). A deferred row is counted as
``details_pending`` in its page's yield report and named in ``missing`` (run "partial"). How it
is read later: the list page it came from is forgotten in the conditional cache, so the next run
reads that page again even if unchanged; project pages no complete run has read yet (their URLs
are not in the cache) get the budget before those read before, which are only asked
conditionally and may take at most half of the budget. So a row waits at most
``ceil(rows / ceil(max_details / 2))`` runs for its project page.

A project page that cannot be read (HTTP error, not a project page) leaves the row recorded on
its own (pid, no CX reference) so that an unreadable page never hides a tender; a login wall or
robots.txt on project pages stops them for the rest of the run (the other rows are recorded
from their rows too). Either way the list page is forgotten, so the next run tries again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from kernel.network import Blocked, BlockedByRobots, Fetcher, FetchError, FetchResult, detect_wall, raise_for_wall
from kernel.records import NoticeRecord
from sources.adapters.base import FetchedBatch
from sources.adapters.html import parse_html
from sources.adapters.paging import FATAL, PageWork, walk_pages
from sources.adapters.yields import LayoutChanged, SamplePage
from sources.conditional import ConditionalFetcher, fetcher_forget, fetcher_knows

from . import selectors
from .options import category_url, list_url, project_url
from .parse import ListRow, ProjectPage, notice_record, parse_list_page, parse_project_page


class CosinexCrawl:
    """State of one run: byte and detail budgets, projects already handled."""

    def __init__(self, *, source: str, settings: dict[str, Any], fetcher: Fetcher | ConditionalFetcher) -> None:
        self.source = source
        self.settings = settings
        self.base_url: str = settings["base_url"]
        self.fetcher = fetcher
        self.bytes_used = 0
        self.seen: set[str] = set()  # projects recorded (or deferred) this run, over all lists
        self.page_count: int | None = None  # Y of the last "Seite: X von Y" read
        self.details_left: int = settings["max_details"]
        # Project pages read by an earlier run may take at most half of the budget: the rest is kept
        # for rows never read, so deferred rows are reached even when the list is longer than the budget.
        self.known_details_left: int = settings["max_details"] // 2
        self.details_unavailable = ""  # set when project pages are walled or forbidden for this run

    def newest(self) -> Iterator[FetchedBatch]:
        """Pages 1..n of the newest announcements; a failing first page fails the run."""
        yield from self._walk(lambda page: list_url(self.base_url, page), label="")

    def categories(self, cpv_codes: list[str]) -> Iterator[FetchedBatch]:
        """Pages 1..n of each CPV category; every category failing on its first page fails the run."""
        failed: FetchError | None = None
        read_any = False
        for code in cpv_codes:
            scope = f"CPV {code}"
            if self.bytes_used >= self.settings["max_bytes"]:
                yield FetchedBatch(missing=(self._cap(scope, "max_bytes"),), scope=scope)
                return
            try:
                for batch in self._walk(lambda page, code=code: category_url(self.base_url, code, page), label=scope):
                    read_any = True
                    yield batch
            except FATAL:
                raise
            except FetchError as exc:  # only the category's first page raises
                failed = exc
                missing = f"{category_url(self.base_url, code)}: {exc.reason}: {exc}"
                yield FetchedBatch(missing=(missing,), requests=1, scope=scope)
        if failed is not None and not read_any:
            raise failed

    # -- list pages ---------------------------------------------------------------------------

    def _walk(self, page_url: Callable[[int], str], *, label: str) -> Iterator[FetchedBatch]:
        """Pages 1..n of one list ("Seite: X von Y" or the pager's targets) up to ``max_pages``.

        The pager has no ``href`` (onclick/setTargetAndSubmit), so page n is asked by its URL.
        """
        self.page_count = None
        yield from walk_pages(
            _ListPages(self, page_url, label),
            fetcher=self.fetcher,
            first=1,
            max_pages=self.settings["max_pages"],
            out_of_bytes=lambda: self.bytes_used >= self.settings["max_bytes"],
        )

    def _page(self, result: FetchResult, url: str, scope: str, walked: set[str]) -> tuple[FetchedBatch, bool]:
        """(batch, is the last page) of a list page that was read (not a bare 304)."""
        self.bytes_used += len(result.body)
        page = parse_html(result.body, content_type=result.content_type, label=url)
        raise_for_wall(result, expected_marker=selectors.RESULT_MARKER, text=page.text)
        parsed = parse_list_page(page, base_url=self.base_url, page_url=result.final_url, label=url)
        if not parsed.has_table and not parsed.says_empty:
            raise Blocked(result.final_url, "missing-result-container")
        page_yield = parsed.page_yield(url)
        sample = SamplePage.of(url=result.final_url, body=result.body, content_type=result.content_type)
        if page_yield.all_rejected:
            raise LayoutChanged(result.final_url, page_yield=page_yield, sample=sample)
        self.page_count = parsed.page_count
        work = PageWork(problems=list(parsed.problems), bytes=len(result.body), requests=1)
        last = parsed.page_count is None or _page_number(url) >= parsed.page_count
        if parsed.rows and all(row.project_id in walked for row in parsed.rows):
            # Paging that needs a session answers page 1 again; the rest cannot be read this way.
            # Forgotten, so every run reads it again and reports the gap again.
            work.missing.append(
                f"{url}: repeats rows of an earlier page (paging needs a session); later pages not read"
            )
            last = True
            fetcher_forget(self.fetcher, url)
        walked.update(row.project_id for row in parsed.rows)
        fresh = [row for row in parsed.rows if row.project_id not in self.seen]
        self.seen.update(row.project_id for row in fresh)
        if result.not_modified:
            work.not_modified = 1  # same bytes as after the last complete run: nothing new behind it
        else:
            self._rows(fresh, work)
        if not work.complete:
            fetcher_forget(self.fetcher, url)
        work.yields.append(replace(page_yield, details_pending=work.pending))
        work.sample = sample if page_yield.rejected_count else None
        return work.batch(scope), last

    def _cap(self, where: str, cap: str) -> str:
        return f"stopped at {cap}={self.settings[cap]}; {where} and later were not fetched this run"

    # -- project pages ------------------------------------------------------------------------

    def _rows(self, rows: list[ListRow], work: PageWork) -> None:
        """Records of a page's new rows, in page order; ``pid`` rows through their project pages."""
        read_projects = self.settings["max_details"] > 0  # 0: rows only, by configuration
        records: dict[str, NoticeRecord | None] = {
            row.project_id: self._record(row) for row in rows if row.is_cx or not read_projects
        }
        planned = [(row, project_url(self.base_url, row.project_id)) for row in rows if row.project_id not in records]
        known = {url for _, url in planned if fetcher_knows(self.fetcher, url)}
        planned.sort(key=lambda item: item[1] in known)  # pages no complete run read get the budget first
        deferred = 0
        for row, url in planned:
            if self.details_unavailable:
                records[row.project_id] = self._without_project(row, url in known, work)
            elif url in known and self.known_details_left <= 0:
                work.complete = False  # its stored record stands; asked again on a later run
            elif self.details_left <= 0 or self.bytes_used >= self.settings["max_bytes"]:
                # A new row waits for its project page (module docstring); a known one keeps its stored record.
                deferred += url not in known
                work.complete = False
            else:
                records[row.project_id] = self._project(row, url, url in known, work)
        work.records.extend(record for row in rows if (record := records.get(row.project_id)) is not None)
        if deferred:
            work.pending = deferred
            cap = "max_details" if self.details_left <= 0 else "max_bytes"
            work.missing.append(
                f"{deferred} project pages not fetched (stopped at {cap}={self.settings[cap]}); "
                "their rows are recorded when a later run reads them"
            )

    def _project(self, row: ListRow, url: str, known: bool, work: PageWork) -> NoticeRecord | None:
        self.details_left -= 1
        self.known_details_left -= known
        try:
            result = self.fetcher.get(url)
        except FATAL:
            raise
        except BlockedByRobots as exc:
            self.details_unavailable = f"robots.txt forbids project pages: {exc.reason}"
            work.missing.append(f"{url}: {exc.reason}: {exc}")
            return self._without_project(row, known, work)
        except FetchError as exc:
            work.missing.append(f"{url}: {exc.reason}: {exc}")
            return self._without_project(row, known, work)
        work.requests += 1
        work.bytes += len(result.body)
        self.bytes_used += len(result.body)
        if result.not_modified:
            work.not_modified += 1  # the project is as the last complete run read it: no new record
            return None
        page = parse_html(result.body, content_type=result.content_type, label=url)
        wall = detect_wall(
            requested_url=url, final_url=result.final_url, text=page.text, expected_marker=selectors.PROJECT_MARKER
        )
        project = None if wall else parse_project_page(page, page_url=result.final_url)
        if wall or project is None or not selectors.PROJECT_ID.fullmatch(project.project_id):
            fetcher_forget(self.fetcher, url)
            if wall == "login":
                self.details_unavailable = f"project pages need a login ({result.final_url})"
            why = f"blocked by a {wall} wall at {result.final_url}" if wall else "not a project page with a CX id"
            work.missing.append(f"{url}: {why}")
            return self._without_project(row, known, work)
        if page.problem:
            work.problems.append(page.problem)
        return self._record(row, project)

    def _without_project(self, row: ListRow, known: bool, work: PageWork) -> NoticeRecord | None:
        """A project seen for the first time is recorded from its row; a known one keeps its stored details."""
        work.complete = False
        return None if known else self._record(row)

    def _record(self, row: ListRow, project: ProjectPage | None = None) -> NoticeRecord:
        return notice_record(source=self.source, base_url=self.base_url, row=row, project=project)


class _ListPages:
    """One cosinex list (newest, or one CPV category), paged by page number."""

    def __init__(self, crawl: CosinexCrawl, page_url: Callable[[int], str], label: str) -> None:
        self.crawl = crawl
        self.page_url = page_url
        self.label = label
        self.walked: set[str] = set()  # rows of this list: a page repeating them means paging needs a session

    def url(self, position: int) -> str:
        return self.page_url(position)

    def scope(self, position: int) -> str:
        return f"{self.label} page {position}".strip()

    def following(self, position: int) -> int:
        return position + 1

    def after_failure(self, position: int) -> int | None:
        page_count = self.crawl.page_count
        return None if page_count is not None and position >= page_count else position + 1

    def read(self, result: FetchResult, url: str, position: int) -> tuple[FetchedBatch, int | None]:
        batch, last = self.crawl._page(result, url, self.scope(position), self.walked)
        return batch, None if last else position + 1

    def cap_message(self, position: int, cap: str) -> str:
        return self.crawl._cap(self.scope(position), cap)

    def stopped_message(self, failures: int) -> str:
        return f"{self.label or 'list'}: stopped after {failures} failing list pages in a row"


def _page_number(url: str) -> int:
    value = dict(parse_qsl(urlsplit(url).query)).get(selectors.PAGE_PARAM, "1")
    return int(value) if value.isascii() and value.isdigit() else 1
