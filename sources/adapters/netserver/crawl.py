"""One NetServer run: result pages of each category, the detail page behind each row, caps.

See the package docstring for the rules; this module applies them to a Fetcher. One
``FetchedBatch`` per result page (its rows and their details), no cursor: NetServer
lists what is online now, newest first, and the ingest upserts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from kernel.network import BlockedByRobots, Fetcher, FetchError, FetchResult, detect_wall, raise_for_wall
from kernel.records import NoticeRecord
from sources.adapters.base import FetchedBatch
from sources.adapters.html import parse_html
from sources.adapters.paging import FATAL, PageWork, walk_pages
from sources.adapters.yields import LayoutChanged, SamplePage
from sources.conditional import ConditionalFetcher, fetcher_forget, fetcher_knows

from . import selectors
from .detail import DetailFacts, parse_detail_page, refused_link_problems
from .options import detail_url, search_url
from .parse import ResultRow, parse_result_page
from .record import notice_record


class NetServerCrawl:
    """State of one run: byte and detail budgets, notices already handled."""

    def __init__(self, *, source: str, settings: dict[str, Any], fetcher: Fetcher | ConditionalFetcher) -> None:
        self.source = source
        self.settings = settings
        self.base_url: str = settings["base_url"]
        self.fetcher = fetcher
        self.bytes_used = 0
        self.details_left: int = settings["max_details"]
        self.details_unavailable = ""  # set when robots.txt forbids detail pages for this run
        self.seen: set[str] = set()

    def run(self) -> Iterator[FetchedBatch]:
        for category in self.settings["categories"]:
            yield from walk_pages(
                _CategoryPages(self, category),
                fetcher=self.fetcher,
                first=0,
                max_pages=self.settings["max_pages"],
                out_of_bytes=lambda: self.bytes_used >= self.settings["max_bytes"],
            )

    # -- result pages -------------------------------------------------------------------------

    def _result_page(self, result: FetchResult, url: str, category: str, work: PageWork) -> int | None:
        page = parse_html(result.body, content_type=result.content_type, label=url)
        raise_for_wall(result, expected_marker=selectors.RESULT_MARKER, text=page.text)
        parsed = parse_result_page(page, category=category, label=url)
        page_yield = parsed.page_yield(url)
        sample = SamplePage.of(url=result.final_url, body=result.body, content_type=result.content_type)
        if not parsed.has_container and not parsed.says_empty:
            raise LayoutChanged(
                result.final_url, page_yield=page_yield, sample=sample, detail="no result table and no result cards"
            )
        if page_yield.all_rejected:
            raise LayoutChanged(result.final_url, page_yield=page_yield, sample=sample)
        work.yields.append(page_yield)
        if page_yield.rejected_count and work.sample is None:
            work.sample = sample
        work.problems.extend(parsed.problems)
        if result.not_modified:
            work.not_modified = 1  # same bytes as after the last complete run: skip its details
        else:
            self._rows(parsed.rows, work)
        return parsed.next_start(_start_of(url))

    # -- detail pages -------------------------------------------------------------------------

    def _rows(self, rows: tuple[ResultRow, ...], work: PageWork) -> None:
        fresh = [row for row in rows if row.oid not in self.seen]
        self.seen.update(row.oid for row in fresh)
        if self.settings["max_details"] == 0:  # list only, by configuration
            work.records.extend(self._record(row) for row in fresh)
            return
        planned = [(row, detail_url(self.base_url, oid=row.oid, category=row.category)) for row in fresh]
        known = {url for _, url in planned if fetcher_knows(self.fetcher, url)}
        planned.sort(key=lambda item: item[1] in known)  # never-seen notices get the detail budget first
        skipped = 0
        for row, url in planned:
            reason = self._detail_budget_exhausted()
            if reason:
                skipped += 1
                self._without_detail(row, url in known, work)
                continue
            self._detail(row, url, url in known, work)
        if skipped:
            reason = self._detail_budget_exhausted()
            work.missing.append(f"{skipped} detail pages not fetched ({reason}); they are fetched on a later run")

    def _detail_budget_exhausted(self) -> str:
        if self.details_unavailable:
            return self.details_unavailable
        if self.details_left <= 0:
            return f"max_details={self.settings['max_details']} reached"
        if self.bytes_used >= self.settings["max_bytes"]:
            return f"max_bytes={self.settings['max_bytes']} reached"
        return ""

    def _detail(self, row: ResultRow, url: str, known: bool, work: PageWork) -> None:
        self.details_left -= 1
        try:
            result = self.fetcher.get(url)
        except FATAL:
            raise
        except BlockedByRobots as exc:
            self.details_unavailable = f"robots.txt forbids detail pages: {exc.reason}"
            work.missing.append(f"{url}: {exc.reason}: {exc}")
            self._without_detail(row, known, work)
            return
        except FetchError as exc:
            work.missing.append(f"{url}: {exc.reason}: {exc}")
            self._without_detail(row, known, work)
            return
        work.requests += 1
        work.bytes += len(result.body)
        self.bytes_used += len(result.body)
        if result.not_modified:
            work.not_modified += 1  # the notice is as it was: no new record
            return
        page = parse_html(result.body, content_type=result.content_type, label=url)
        wall = detect_wall(
            requested_url=url, final_url=result.final_url, text=page.text, expected_marker=selectors.DETAIL_MARKER
        )
        facts = None if wall else parse_detail_page(page, page_url=url)
        if not wall:
            work.problems.extend(refused_link_problems(page, page_url=url, where=url))
        if wall or facts is None or facts.oid != row.oid:
            fetcher_forget(self.fetcher, url)
            why = f"blocked by a {wall} wall at {result.final_url}" if wall else "not the notice's detail page"
            work.missing.append(f"{url}: {why}")
            self._without_detail(row, known, work)
            return
        if page.problem:
            work.problems.append(page.problem)
        work.records.append(self._record(row, facts, url))

    def _without_detail(self, row: ResultRow, known: bool, work: PageWork) -> None:
        """A notice seen for the first time is recorded from its row; a known one keeps its stored details."""
        work.complete = False
        if not known:
            work.records.append(self._record(row))

    def _record(self, row: ResultRow, facts: DetailFacts | None = None, url: str = "") -> NoticeRecord:
        return notice_record(source=self.source, base_url=self.base_url, row=row, detail=facts, url=url)


class _CategoryPages:
    """The result list of one category, paged by row offset (``Start=``)."""

    def __init__(self, crawl: NetServerCrawl, category: str) -> None:
        self.crawl = crawl
        self.category = category
        self.page_size: int = crawl.settings["page_size"]
        self.step_reported = False

    def url(self, position: int) -> str:
        return search_url(self.crawl.base_url, category=self.category, start=position, page_size=self.page_size)

    def scope(self, position: int) -> str:
        return f"{self.category} Start={position}"

    def following(self, position: int) -> int:
        return position + self.page_size

    def after_failure(self, position: int) -> int:
        return position + self.page_size

    def read(self, result: FetchResult, url: str, position: int) -> tuple[FetchedBatch, int | None]:
        self.crawl.bytes_used += len(result.body)
        work = PageWork(bytes=len(result.body), requests=1)
        next_start = self.crawl._result_page(result, url, self.category, work)
        step = None if next_start is None else next_start - position
        if step is not None and step != self.page_size and not self.step_reported:
            self.step_reported = True
            work.problems.append(
                f"{self.category}: the portal pages by {step} rows, not page_size={self.page_size}; "
                f"set page_size to {step} so unchanged pages are skipped correctly"
            )
        if not work.complete:
            fetcher_forget(self.crawl.fetcher, url)
        return work.batch(self.scope(position)), next_start

    def cap_message(self, position: int, cap: str) -> str:
        return (
            f"{self.category}: stopped at {cap}={self.crawl.settings[cap]}; result pages from Start={position} on "
            f"were not fetched this run. Raise {cap} if this repeats."
        )

    def stopped_message(self, failures: int) -> str:
        return f"{self.category}: stopped after {failures} failing result pages in a row"


def _start_of(url: str) -> int:
    value = dict(parse_qsl(urlsplit(url).query)).get(selectors.START_PARAM, "0")
    return int(value) if value.isascii() and value.isdigit() else 0
