"""``CosinexAdapter``: any cosinex Vergabemarktplatz, configured by ``base_url`` (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

from sources.adapters.base import Adapter, AdapterError, FetchedBatch, SourceConfig, read_saved, scope_text, walk_files
from sources.adapters.doe.archive import ZipLimits, read_members
from sources.adapters.html import parse_html, rows_with_pages
from sources.adapters.yields import LayoutChanged, SamplePage
from sources.conditional import ConditionalFetcher, fetcher_forget, fetcher_knows
from sources.fetching import (
    Blocked,
    DisallowedHost,
    Fetcher,
    FetchError,
    FetchResult,
    RetryAfterTooLong,
    raise_for_wall,
)
from sources.parsers.eforms import parse_eforms
from sources.records import NoticeRecord
from sources.registry import register

from . import selectors
from .center import CenterSearch, is_center
from .options import KNOWN_HOSTS, KNOWN_SETTINGS, category_url, check_cosinex_settings, list_url
from .parse import ListRow, ProjectPage, notice_record, parse_list_page, parse_project_page

__all__ = ["CosinexAdapter"]

HTML_SUFFIXES = (".html", ".htm", ".xhtml")
FILE_SUFFIXES = (*HTML_SUFFIXES, ".zip", ".xml")
MAX_FILE_BYTES = 20 * 2**20
_FATAL = (Blocked, DisallowedHost, RetryAfterTooLong)
MAX_FAILED_PAGES_IN_ROW = 2


@register
class CosinexAdapter(Adapter):
    type: ClassVar[str] = "cosinex"
    label: ClassVar[str] = "cosinex Vergabemarktplatz (DTVP and others)"
    short_name: ClassVar[str] = "cosinex"
    known_hosts: ClassVar[tuple[str, ...]] = KNOWN_HOSTS
    known_settings: ClassVar[frozenset[str]] = KNOWN_SETTINGS
    check_settings = staticmethod(check_cosinex_settings)
    url_settings: ClassVar[tuple[str, ...]] = ("base_url", "opendata_url")
    # The open-data export of a busy host is a ZIP of several thousand notices.
    max_body_bytes: ClassVar[int] = 200 * 2**20
    conditional_requests: ClassVar[bool] = True
    zip_limits: ClassVar[ZipLimits] = ZipLimits()

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        settings = self.settings_for(config)
        if settings.get("opendata_url"):
            yield self._opendata(config.key, settings["opendata_url"], fetcher)
            return
        if is_center(settings["base_url"]) and not settings.get("cpv_codes"):
            # No server-rendered list on Center hosts: the JSON search, or the browser-only state.
            yield from CenterSearch(source=config.key, settings=settings, fetcher=fetcher).run()
            return
        crawl = _ListCrawl(source=config.key, settings=settings, fetcher=fetcher)
        if settings.get("cpv_codes"):
            yield from crawl.categories(settings["cpv_codes"])
        else:
            yield from crawl.newest()

    def _opendata(self, source: str, url: str, fetcher: Fetcher | ConditionalFetcher) -> FetchedBatch:
        result = fetcher.get(url)
        if result.not_modified:
            return FetchedBatch(bytes=len(result.body), requests=1, not_modified=1, scope="opendata")
        raise_for_wall(result, expected_marker=None, text="")  # a redirect to a login/error page
        if not result.body.startswith(b"PK"):
            raise AdapterError(
                f"{source}: expected the eForms export ZIP from {result.final_url}, got "
                f"{result.content_type or 'no content type'} starting {result.body[:40]!r}",
                reason="bad_zip",
            )
        records, problems = self._zip_records(source, result.body, label="opendata")
        return FetchedBatch(
            records=tuple(records), problems=tuple(problems), bytes=len(result.body), requests=1, scope="opendata"
        )

    def _zip_records(self, source: str, archive: bytes | Path, *, label: str) -> tuple[list[NoticeRecord], list[str]]:
        records: list[NoticeRecord] = []
        problems: list[str] = []
        for member in read_members(archive, label=label, limits=self.zip_limits, problems=problems):
            records_or_problem = _eforms(source, member.data, member.label)
            if isinstance(records_or_problem, str):
                problems.append(records_or_problem)
            else:
                records.append(records_or_problem)
        return records, problems

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """Saved list pages, project overview pages, eForms export ZIPs and single eForms XML files.

        One batch for all files; a list row and a saved project page of the same project are
        joined (the row wins for the list fields). Folders are walked for the same suffixes.
        """
        settings = self.settings_for(config)
        base_url = settings["base_url"]
        rows: dict[str, ListRow] = {}
        projects: dict[str, ProjectPage] = {}
        records: list[NoticeRecord] = []
        problems: list[str] = []
        size = 0
        names: list[str] = []
        for path in walk_files(paths, FILE_SUFFIXES):
            names.append(path.name)
            suffix = path.suffix.lower()
            if suffix == ".zip":
                try:
                    size += path.stat().st_size
                    found, trouble = self._zip_records(config.key, path, label=path.name)
                except AdapterError as exc:
                    problems.append(str(exc))
                    continue
                except OSError as exc:
                    problems.append(f"{path}: cannot read file: {exc.strerror or exc}")
                    continue
                records.extend(found)
                problems.extend(trouble)
                continue
            saved = read_saved(path, limit=MAX_FILE_BYTES)
            size += saved.size
            if saved.problem:
                problems.append(saved.problem)
            elif suffix == ".xml":
                parsed = _eforms(config.key, saved.data, str(path))
                (problems.append if isinstance(parsed, str) else records.append)(parsed)  # type: ignore[arg-type]
            else:
                _parse_page(path, saved.data, base_url, rows, projects, problems)
        records.extend(
            rows_with_pages(
                rows,
                projects,
                lambda row, project: notice_record(source=config.key, base_url=base_url, row=row, project=project),
            )
        )
        yield FetchedBatch(
            records=tuple(records), problems=tuple(problems), bytes=size, scope=scope_text(", ".join(names))
        )


class _ListCrawl:
    """The HTML announcement list of one run: pages, caps, rows already seen."""

    def __init__(self, *, source: str, settings: dict[str, Any], fetcher: Fetcher | ConditionalFetcher) -> None:
        self.source = source
        self.settings = settings
        self.base_url: str = settings["base_url"]
        self.fetcher = fetcher
        self.bytes_used = 0
        self.seen: set[str] = set()
        self.page_count: int | None = None  # Y of the last "Seite: X von Y" read

    def newest(self) -> Iterator[FetchedBatch]:
        """Pages 1..n of the newest announcements ("Seite: X von Y"), up to ``max_pages``."""
        failures_in_row = 0
        last_read = ""  # forgotten when the walk leaves a gap after it, so the next run walks on from there
        for page in range(1, self.settings["max_pages"] + 1):
            url = list_url(self.base_url, page)
            scope = f"page {page}"
            if self.bytes_used >= self.settings["max_bytes"]:
                fetcher_forget(self.fetcher, last_read)
                yield FetchedBatch(missing=(self._cap(f"page {page}", "max_bytes"),), scope=scope)
                return
            try:
                result = self.fetcher.get(url)
            except _FATAL:
                raise
            except FetchError as exc:
                if page == 1:
                    raise  # nothing could be read: a failed run, never "zero notices"
                fetcher_forget(self.fetcher, last_read)
                failures_in_row += 1
                missing = [f"{url}: {exc.reason}: {exc}"]
                stop = failures_in_row >= MAX_FAILED_PAGES_IN_ROW
                if stop:
                    missing.append(f"stopped after {failures_in_row} failing list pages in a row")
                yield FetchedBatch(missing=tuple(missing), requests=1, scope=scope)
                if stop or (self.page_count is not None and page >= self.page_count):
                    return
                continue
            failures_in_row = 0
            batch, last = self._page(result, url, scope)
            if result.not_modified and not result.body:
                # As after the last complete run; that run read the next page only if there was one.
                last = not fetcher_knows(self.fetcher, list_url(self.base_url, page + 1))
            last_read = url
            if not last and page == self.settings["max_pages"]:
                batch = replace(batch, missing=(*batch.missing, self._cap(f"page {page + 1}", "max_pages")))
                fetcher_forget(self.fetcher, url)
            yield batch
            if last:
                return

    def categories(self, cpv_codes: list[str]) -> Iterator[FetchedBatch]:
        """One list per CPV category (no paging known for it); every category failing fails the run."""
        failed: FetchError | None = None
        read_any = False
        for code in cpv_codes:
            url = category_url(self.base_url, code)
            if self.bytes_used >= self.settings["max_bytes"]:
                yield FetchedBatch(missing=(self._cap(f"CPV {code}", "max_bytes"),), scope=f"CPV {code}")
                return
            try:
                result = self.fetcher.get(url)
            except _FATAL:
                raise
            except FetchError as exc:
                failed = exc
                yield FetchedBatch(missing=(f"{url}: {exc.reason}: {exc}",), requests=1, scope=f"CPV {code}")
                continue
            read_any = True
            yield self._page(result, url, f"CPV {code}")[0]
        if failed is not None and not read_any:
            raise failed

    def _page(self, result: FetchResult, url: str, scope: str) -> tuple[FetchedBatch, bool]:
        """(batch, is the last page); for a 304 without body the caller decides whether it was the last."""
        self.bytes_used += len(result.body)
        if result.not_modified and not result.body:
            return FetchedBatch(requests=1, not_modified=1, scope=scope), False
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
        fresh = [row for row in parsed.rows if row.project_id not in self.seen]
        self.seen.update(row.project_id for row in fresh)
        missing: tuple[str, ...] = ()
        last = parsed.page_count is None or _page_number(url) >= parsed.page_count
        if parsed.rows and not fresh:
            # Paging that needs a session answers page 1 again; the rest cannot be read this way.
            # Forgotten, so every run reads it again and reports the gap again.
            missing = (f"{url}: repeats rows of an earlier page (paging needs a session); later pages not read",)
            last = True
            fetcher_forget(self.fetcher, url)
        records = (
            ()
            if result.not_modified
            else tuple(notice_record(source=self.source, base_url=self.base_url, row=row) for row in fresh)
        )
        batch = FetchedBatch(
            records=records,
            problems=parsed.problems,
            missing=missing,
            bytes=len(result.body),
            requests=1,
            not_modified=1 if result.not_modified else 0,
            scope=scope,
            yields=(page_yield,),
            sample=sample if page_yield.rejected_count else None,
        )
        return batch, last

    def _cap(self, where: str, cap: str) -> str:
        return f"stopped at {cap}={self.settings[cap]}; {where} and later were not fetched this run"


def _page_number(url: str) -> int:
    value = dict(parse_qsl(urlsplit(url).query)).get(selectors.PAGE_PARAM, "1")
    return int(value) if value.isdigit() else 1


def _eforms(source: str, data: bytes, label: str) -> NoticeRecord | str:
    try:
        return parse_eforms(data, source=source)
    except Exception as exc:  # one broken notice must not cost the others; the problem names it
        return f"{label}: not a usable eForms notice: {type(exc).__name__}: {exc}"


def _parse_page(
    path: Path,
    data: bytes,
    base_url: str,
    rows: dict[str, ListRow],
    projects: dict[str, ProjectPage],
    problems: list[str],
) -> None:
    page = parse_html(data, label=str(path))
    listing = parse_list_page(page, base_url=base_url, page_url=base_url + "/", label=str(path))
    if listing.has_table or listing.says_empty:
        problems.extend(listing.problems)
        for row in listing.rows:
            rows.setdefault(row.project_id, row)
        return
    if page.problem:
        problems.append(page.problem)
    project = parse_project_page(page)
    if project is None:
        problems.append(f"{path}: neither a cosinex announcement list nor a project page (markup not recognised)")
    else:
        projects.setdefault(project.project_id, project)
