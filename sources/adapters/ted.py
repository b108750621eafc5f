"""TED (Tenders Electronic Daily) Search API v3 -> ``FetchedBatch`` of German notices.

Why the search API: one anonymous ``POST /v3/notices/search`` returns up to 250 notices
with exactly the fields we parse (``TED_FIELDS``); fetching every notice's XML would cost
one request per notice. The mapping to ``NoticeRecord`` (German texts first, lots,
deadlines) lives in :mod:`sources.parsers.ted_json`; this module only decides *what* to
ask for and how to page.

Window: closed Europe/Berlin days only, like DÖE. A run asks for publication dates from
the day after the cursor's ``last_day`` (else ``start_day``, else today minus
``lookback_days``) up to yesterday, so re-running a day is harmless (the ingest upserts)
and a day is never marked done while TED may still publish to it. The query is
``ted_query_for_germany``: buyer country DEU OR place of performance country DEU.

Paging: ITERATION mode (no 15,000-result ceiling), following ``iterationNextToken``
until there is none, a page comes back empty, or ``max_pages`` is reached. Every page is
one batch; only the last one carries the cursor ``{"last_day": <to_day>}``, so a run that
fails half-way (the ``FetchError`` propagates) repeats the whole window next time.

Limits and decisions:

* Hitting ``max_pages`` with a token left is reported in the last batch's ``missing``
  and the cursor still advances: holding it back would re-fetch the same first pages
  every run while the window keeps growing, starving new notices. The message says how
  to recover (raise ``max_pages``/``page_size``, reset the cursor).
* A page is "empty" when it yields neither records nor problems; a page whose notices
  all fail to parse keeps paging. A token repeated verbatim is a bad response (it would
  loop until ``max_pages``).
* ``requests`` is 1 per page; retries of 429/5xx inside the Fetcher are not counted.
* ``parse_files`` takes TED search JSON (envelope or bare array) and eForms XML. For XML
  the ``source_notice_id`` is the notice's ``cbc:ID`` (a UUID), for JSON the TED
  publication number, so the same notice loaded both ways is two source notices (the
  JSON record lists that UUID in ``referenced_notice_ids``, which tender resolution matches).
* ``api_url`` must be https; plain http is accepted only for loopback hosts (local test
  servers - production fetchers refuse loopback addresses anyway).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import Field

from kernel.network import Fetcher, raise_for_wall
from kernel.records import NoticeRecord
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import (
    Adapter,
    AdapterError,
    FetchedBatch,
    SourceConfig,
    read_saved,
    scope_text,
    walk_files,
)
from sources.adapters.settings import AdapterSettings, Day, Url
from sources.parallel import ordered_map, parse_workers_for
from sources.parsers.eforms import parse_eforms
from sources.parsers.ted_json import TedParseError, parse_ted_search_response
from sources.parsers.ted_query import MAX_PAGE_SIZE, TED_FIELDS, ted_query_for_germany, ted_search_body
from sources.registry import register

__all__ = ["DEFAULT_API_URL", "TedAdapter", "fetch_window"]

DEFAULT_API_URL = "https://api.ted.europa.eu/v3/notices/search"
ApiUrl = Url()
StartDay = Day()


class TedSettings(AdapterSettings):
    """``api_url`` and the numbers with their defaults (JSON numbers only), ``start_day`` when given."""

    api_url: ApiUrl = DEFAULT_API_URL
    page_size: Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE)] = 100
    max_pages: Annotated[int, Field(ge=1, le=1000)] = 50
    lookback_days: Annotated[int, Field(ge=1, le=366)] = 2
    start_day: StartDay = None


FILE_SUFFIXES = (".json", ".xml")


def fetch_window(
    *, cursor: Mapping[str, Any], start_day: date | None, lookback_days: int, now: datetime
) -> tuple[date, date] | None:
    """(first_day, last_day) of publication dates still to fetch, or None when up to date.

    ``last_day`` is yesterday in Europe/Berlin: today is never closed. Raises AdapterError
    (reason "bad_cursor") for a cursor whose ``last_day`` is no ISO date.
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    today = now.astimezone(BERLIN).date()
    last_day = today - timedelta(days=1)
    if cursor.get("last_day"):
        try:
            first_day = date.fromisoformat(str(cursor["last_day"])) + timedelta(days=1)
        except ValueError:
            raise AdapterError(
                f"TED cursor last_day {cursor['last_day']!r} is no ISO date (YYYY-MM-DD)", reason="bad_cursor"
            ) from None
    elif start_day is not None:
        first_day = start_day
    else:
        first_day = today - timedelta(days=lookback_days)
    return (first_day, last_day) if first_day <= last_day else None


@register
class TedAdapter(Adapter):
    type: ClassVar[str] = "ted"
    label: ClassVar[str] = "TED (Tenders Electronic Daily) API v3"
    short_name: ClassVar[str] = "TED"
    known_hosts: ClassVar[tuple[str, ...]] = ("api.ted.europa.eu",)
    settings_model: ClassVar[type[AdapterSettings]] = TedSettings

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        settings = self.settings_for(config)
        start_day = date.fromisoformat(settings["start_day"]) if settings.get("start_day") else None
        window = fetch_window(
            cursor=config.cursor or {}, start_day=start_day, lookback_days=settings["lookback_days"], now=now
        )
        if window is None:
            return
        first_day, last_day = window
        days = f"{first_day.isoformat()}..{last_day.isoformat()}"
        query = ted_query_for_germany(published_from=first_day, published_to=last_day)
        page_size, max_pages = settings["page_size"], settings["max_pages"]
        token: str | None = None
        for page in range(1, max_pages + 1):
            scope = f"{days} page {page}"
            body = ted_search_body(query=query, page_size=page_size, iteration_token=token, fields=TED_FIELDS)
            result = fetcher.post_json(settings["api_url"], body)
            raise_for_wall(result, expected_marker=None)  # a redirect to a login/error page is no result
            try:
                records, next_token, errors = parse_ted_search_response(result.body)
            except TedParseError as exc:
                raise AdapterError(
                    f"TED search {scope}: unusable response from {result.final_url}: {exc}", reason="bad_response"
                ) from exc
            if next_token is not None and next_token == token:
                raise AdapterError(
                    f"TED search {scope}: iterationNextToken repeated the one just sent; paging would loop",
                    reason="bad_response",
                )
            more = next_token is not None and bool(records or errors)
            missing: tuple[str, ...] = ()
            if more and page == max_pages:
                missing = (_max_pages_message(days, page_size, max_pages, result.body),)
            is_last = not more or page == max_pages
            yield FetchedBatch(
                records=tuple(records),
                problems=tuple(errors),
                missing=missing,
                bytes=len(result.body),
                requests=1,
                scope=scope,
                cursor={"last_day": last_day.isoformat()} if is_last else None,
            )
            if is_last:
                return
            token = next_token

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """One batch per file; folders are searched recursively for ``*.json`` and ``*.xml``.

        Files are parsed in worker processes (:mod:`sources.parallel`) and come back in order;
        a few files are parsed in this process, since starting the workers costs about a second.
        """
        parse = partial(_parse_file, limit=MAX_FILE_BYTES)  # read here: workers see the module as imported
        files = list(walk_files(paths, FILE_SUFFIXES))
        workers = parse_workers_for(members=_files_bytes(files) // BYTES_PER_DOE_MEMBER)
        yield from ordered_map(parse, files, workers=workers)


# SOURCES_PARSE_PARALLEL_MEMBERS counts DÖE archive members; TED files are weighed by size instead.
# A DÖE member (an eForms XML or its OCDS twin) takes about 0.45 ms to parse, a TED file about
# 40 µs per KB (search results and eForms XML alike, tests/data/ted), so 11 KB cost one member.
BYTES_PER_DOE_MEMBER = 11 * 1024


def _files_bytes(files: list[Path]) -> int:
    total = 0
    for path in files:
        try:
            total += path.stat().st_size
        except OSError:  # reported as the file's problem when it is read
            continue
    return total


def _max_pages_message(days: str, page_size: int, max_pages: int, body: bytes) -> str:
    total = ""
    try:
        count = json.loads(body).get("totalNoticeCount")
    except (ValueError, AttributeError):
        count = None
    if isinstance(count, int) and not isinstance(count, bool):
        total = f" of {count} matching"
    return (
        f"TED {days}: stopped at max_pages={max_pages} (page_size={page_size}, "
        f"{max_pages * page_size} notices{total}); the rest of the window was not fetched. "
        f"Raise max_pages or page_size and reset the cursor to re-fetch {days}."
    )


MAX_FILE_BYTES = 50 * 2**20  # a saved search result of 250 notices is a few MB; anything far larger is not one


def _parse_file(path: Path, *, limit: int) -> FetchedBatch:
    scope = scope_text(str(path))
    saved = read_saved(path, limit=limit)
    if saved.problem:
        return FetchedBatch(problems=(saved.problem,), bytes=saved.size, scope=scope)
    data = saved.data
    records: list[NoticeRecord] = []
    problems: list[str] = []
    start = data.removeprefix(b"\xef\xbb\xbf").lstrip()[:1]
    if start in (b"{", b"["):
        try:
            records, _token, errors = parse_ted_search_response(data)
            problems = [f"{path.name}: {error}" for error in errors]
        except TedParseError as exc:
            problems = [f"{path}: not a TED search result: {exc}"]
    elif start == b"<":
        try:
            records = [parse_eforms(data, source="ted")]
        except Exception as exc:  # one broken file must not cost the others; the problem names it
            problems = [f"{path}: not a usable eForms notice: {type(exc).__name__}: {exc}"]
    else:
        problems = [f"{path}: neither a TED search result (JSON) nor an eForms notice (XML)"]
    return FetchedBatch(records=tuple(records), problems=tuple(problems), bytes=len(data), scope=scope)
