"""``NetServerAdapter``: any AI Vergabe@Net host, configured by ``base_url`` (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from kernel.network import Fetcher
from sources.adapters.base import Adapter, FetchedBatch, SourceConfig, read_saved, scope_text, walk_files
from sources.adapters.html import parse_html, rows_with_pages
from sources.adapters.yields import PageYield, SamplePage
from sources.registry import register

from .crawl import NetServerCrawl
from .detail import DetailFacts, parse_detail_page, refused_link_problems
from .options import KNOWN_HOSTS, NetServerSettings
from .parse import ResultRow, parse_result_page
from .record import notice_record

__all__ = ["NetServerAdapter"]

FILE_SUFFIXES = (".html", ".htm", ".xhtml")
MAX_FILE_BYTES = 20 * 2**20


@register
class NetServerAdapter(Adapter):
    type: ClassVar[str] = "netserver"
    label: ClassVar[str] = "AI Vergabe@Net (NetServer) portals"
    short_name: ClassVar[str] = "NetServer"
    known_hosts: ClassVar[tuple[str, ...]] = KNOWN_HOSTS
    settings_model: ClassVar[type[NetServerSettings]] = NetServerSettings
    url_settings: ClassVar[tuple[str, ...]] = ("base_url",)
    # A result page of 100 rows is a few hundred KB; anything near this cap is not a result page.
    max_body_bytes: ClassVar[int] = 10 * 2**20
    conditional_requests: ClassVar[bool] = True

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        settings = self.settings_for(config)
        yield from NetServerCrawl(source=config.key, settings=settings, fetcher=fetcher).run()

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """Saved result and detail pages; one batch for all files, rows joined with their detail pages.

        A result page gives a record per row (list fields only); a detail page saved next to
        it enriches that row's record; a detail page alone gives a record of its own. Folders
        are walked for ``*.html``/``*.htm``. Nothing is fetched.
        """
        settings = self.settings_for(config)
        base_url = settings["base_url"]
        rows: dict[str, ResultRow] = {}
        details: dict[str, DetailFacts] = {}
        saved_pages = _SavedPages()
        size = 0
        names: list[str] = []
        for path in walk_files(paths, FILE_SUFFIXES):
            names.append(path.name)
            saved = read_saved(path, limit=MAX_FILE_BYTES)
            size += saved.size
            if saved.problem:
                saved_pages.problems.append(saved.problem)
            else:
                saved_pages.read(path, saved.data, base_url, rows, details)
        records = rows_with_pages(
            rows, details, lambda row, facts: notice_record(source=config.key, base_url=base_url, row=row, detail=facts)
        )
        yield FetchedBatch(
            records=tuple(records),
            problems=tuple(saved_pages.problems),
            bytes=size,
            scope=scope_text(", ".join(names)),
            yields=tuple(saved_pages.yields),
            sample=saved_pages.sample,
        )


@dataclass
class _SavedPages:
    """What ``parse_files`` learnt from the files so far: problems, yield reports, a sample page."""

    problems: list[str] = field(default_factory=list)
    yields: list[PageYield] = field(default_factory=list)
    sample: SamplePage | None = None

    def read(
        self, path: Path, data: bytes, base_url: str, rows: dict[str, ResultRow], details: dict[str, DetailFacts]
    ) -> None:
        page = parse_html(data, label=str(path))
        if page.problem:
            self.problems.append(page.problem)
        result = parse_result_page(page, category="InvitationToTender", label=str(path))
        if result.has_container or result.says_empty:
            page_yield = result.page_yield(path.name)
            self.yields.append(page_yield)
            if page_yield.rejected_count and self.sample is None:
                self.sample = SamplePage.of(url=str(path), body=data)
            self.problems.extend(p for p in result.problems if p != page.problem)
            for row in result.rows:
                rows.setdefault(row.oid, row)
            return
        facts = parse_detail_page(page, page_url=base_url)
        self.problems.extend(refused_link_problems(page, page_url=base_url, where=str(path)))
        if facts is not None:
            details.setdefault(facts.oid, facts)
            return
        self.problems.append(f"{path}: neither a NetServer result page nor a detail page (markup not recognised)")
