"""Walking a portal's paged result list: the one loop the HTML portal adapters (NetServer, cosinex) share.

One list is read page by page, up to ``max_pages`` and within the run's byte budget. The rules
are the same for every portal family:

- the first page failing fails the list (nothing could be read: never "zero notices"); a later
  page failing is named in ``missing`` and the walk goes on, until ``MAX_FAILED_PAGES_IN_ROW``
  pages failed in a row (the portal is struggling);
- a page answered 304 without a body is as after the last complete run, which read the next
  page only if there was one: a next page the conditional cache does not know means the list
  ended here;
- where the walk leaves a gap (a failed page, a cap), the page read before it is forgotten in
  the conditional cache, so the next run reads it again and walks on from there instead of
  stopping at an unchanged page.

What differs per portal (page URLs, how a page is read and where the next one starts, the
wording of its reports) is a ``PagedList``. Positions are the portal's own: a row offset
(NetServer ``Start=``) or a page number (cosinex).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Protocol

from kernel.network import Blocked, DisallowedHost, Fetcher, FetchError, FetchResult, RetryAfterTooLong
from kernel.records import NoticeRecord
from sources.adapters.base import FetchedBatch
from sources.adapters.yields import PageYield, SamplePage
from sources.conditional import ConditionalFetcher, fetcher_forget, fetcher_knows

# Errors that say "stop talking to this portal now", whatever page they came from.
FATAL = (Blocked, DisallowedHost, RetryAfterTooLong)
# Two list pages failing in a row: the portal is struggling; stop the list.
MAX_FAILED_PAGES_IN_ROW = 2


@dataclass
class PageWork:
    """What reading one list page (and the detail pages behind its rows) gave, before it becomes a batch."""

    records: list[NoticeRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    bytes: int = 0
    requests: int = 0
    not_modified: int = 0
    pending: int = 0  # rows deferred to a later run (detail budget)
    complete: bool = True  # False: a detail is missing, so the page is read again next run
    yields: list[PageYield] = field(default_factory=list)
    sample: SamplePage | None = None

    def batch(self, scope: str) -> FetchedBatch:
        return FetchedBatch(
            records=tuple(self.records),
            problems=tuple(self.problems),
            missing=tuple(self.missing),
            bytes=self.bytes,
            requests=self.requests,
            not_modified=self.not_modified,
            scope=scope,
            yields=tuple(self.yields),
            sample=self.sample,
        )


class PagedList(Protocol):
    """One portal list as the walk sees it."""

    def url(self, position: int) -> str:
        """The URL of the page at ``position``."""

    def scope(self, position: int) -> str:
        """The batch scope of that page (shown on the run)."""

    def following(self, position: int) -> int:
        """The position after ``position`` at the portal's regular step."""

    def read(self, result: FetchResult, url: str, position: int) -> tuple[FetchedBatch, int | None]:
        """A page that was read (not a bare 304): its batch and the next position, None if it was the last."""

    def after_failure(self, position: int) -> int | None:
        """Where to go on after the page at ``position`` failed; None when it is known to be the last."""

    def cap_message(self, position: int, cap: str) -> str:
        """``missing`` text when ``cap`` (max_bytes, max_pages) stops the walk before ``position``."""

    def stopped_message(self, failures: int) -> str:
        """``missing`` text when ``failures`` pages failed in a row."""


def walk_pages(
    pages: PagedList,
    *,
    fetcher: Fetcher | ConditionalFetcher,
    first: int,
    max_pages: int,
    out_of_bytes: Callable[[], bool],
) -> Iterator[FetchedBatch]:
    """One batch per page of ``pages`` from ``first`` on (module docstring); a failing first page raises."""
    position, failures_in_row = first, 0
    last_read = ""  # forgotten when the walk leaves a gap after it
    for page_number in range(1, max_pages + 1):
        url, scope = pages.url(position), pages.scope(position)
        if out_of_bytes():
            fetcher_forget(fetcher, last_read)
            yield FetchedBatch(missing=(pages.cap_message(position, "max_bytes"),), scope=scope)
            return
        try:
            result = fetcher.get(url)
        except FATAL:
            raise
        except FetchError as exc:
            if page_number == 1:
                raise
            fetcher_forget(fetcher, last_read)
            failures_in_row += 1
            missing = [f"{url}: {exc.reason}: {exc}"]
            stop = failures_in_row >= MAX_FAILED_PAGES_IN_ROW
            if stop:
                missing.append(pages.stopped_message(failures_in_row))
            yield FetchedBatch(missing=tuple(missing), requests=1, scope=scope)
            next_position = None if stop else pages.after_failure(position)
            if next_position is None:
                return
            position = next_position
            continue
        failures_in_row = 0
        if result.not_modified and not result.body:
            batch = FetchedBatch(requests=1, not_modified=1, scope=scope)
            following = pages.following(position)
            next_position = following if fetcher_knows(fetcher, pages.url(following)) else None
        else:
            batch, next_position = pages.read(result, url, position)
        last_read = url
        if next_position is not None and page_number == max_pages:
            batch = replace(batch, missing=(*batch.missing, pages.cap_message(next_position, "max_pages")))
            fetcher_forget(fetcher, url)
        yield batch
        if next_position is None:
            return
        position = next_position
