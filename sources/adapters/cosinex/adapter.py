"""``CosinexAdapter``: any cosinex Vergabemarktplatz, configured by ``base_url`` (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from kernel.network import Fetcher, raise_for_wall
from kernel.records import NoticeRecord
from sources.adapters.base import Adapter, AdapterError, FetchedBatch, SourceConfig, read_saved, scope_text, walk_files
from sources.adapters.doe.archive import ZipLimits, read_members
from sources.adapters.dtvp import DtvpPublicList, public_list_active
from sources.adapters.html import parse_html, rows_with_pages
from sources.conditional import ConditionalFetcher
from sources.parsers.eforms import parse_eforms
from sources.registry import register

from .center import CenterSearch, is_center
from .crawl import CosinexCrawl
from .options import KNOWN_HOSTS, CosinexSettings
from .parse import ListRow, ProjectPage, notice_record, parse_list_page, parse_project_page

__all__ = ["CosinexAdapter"]

HTML_SUFFIXES = (".html", ".htm", ".xhtml")
FILE_SUFFIXES = (*HTML_SUFFIXES, ".zip", ".xml")
MAX_FILE_BYTES = 20 * 2**20


@register
class CosinexAdapter(Adapter):
    type: ClassVar[str] = "cosinex"
    label: ClassVar[str] = "cosinex Vergabemarktplatz (DTVP and others)"
    short_name: ClassVar[str] = "cosinex"
    known_hosts: ClassVar[tuple[str, ...]] = KNOWN_HOSTS
    settings_model: ClassVar[type[CosinexSettings]] = CosinexSettings
    url_settings: ClassVar[tuple[str, ...]] = ("base_url", "opendata_url", "public_list_url")
    # The open-data export of a busy host is a ZIP of several thousand notices.
    max_body_bytes: ClassVar[int] = 200 * 2**20
    conditional_requests: ClassVar[bool] = True
    zip_limits: ClassVar[ZipLimits] = ZipLimits()

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        settings = self.settings_for(config)
        if settings.get("opendata_url"):
            yield self._opendata(config.key, settings["opendata_url"], fetcher)
            return
        if public_list_active(settings):
            # DTVP: the public CPV pages, not the Center search reported unreliable (sources.adapters.dtvp).
            yield from DtvpPublicList(source=config.key, settings=settings, fetcher=fetcher).run()
            return
        if is_center(settings["base_url"]) and not settings.get("cpv_codes"):
            # No server-rendered list on Center hosts: the JSON search, or the browser-only state.
            yield from CenterSearch(source=config.key, settings=settings, fetcher=fetcher).run()
            return
        crawl = CosinexCrawl(source=config.key, settings=settings, fetcher=fetcher)
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
                _projects_of_pid_rows(rows, projects),
                lambda row, project: notice_record(source=config.key, base_url=base_url, row=row, project=project),
            )
        )
        yield FetchedBatch(
            records=tuple(records), problems=tuple(problems), bytes=size, scope=scope_text(", ".join(names))
        )


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
    project = parse_project_page(page, page_url=base_url + "/")
    if project is None:
        problems.append(f"{path}: neither a cosinex announcement list nor a project page (markup not recognised)")
    else:
        projects.setdefault(project.project_id, project)


def _projects_of_pid_rows(rows: dict[str, ListRow], projects: dict[str, ProjectPage]) -> dict[str, ProjectPage]:
    """Saved project pages keyed for the join: a page whose CX id no row names goes with the one
    pid row of exactly the same title (a Satellite project page does not name its pid)."""
    by_title: dict[str, list[str]] = {}
    for key, row in rows.items():
        if not row.is_cx:
            by_title.setdefault(row.title.casefold(), []).append(key)
    joined: dict[str, ProjectPage] = {}
    for key, project in projects.items():
        candidates = by_title.get(project.facts.title.casefold(), []) if key not in rows else []
        if len(candidates) == 1 and candidates[0] not in projects and candidates[0] not in joined:
            joined[candidates[0]] = project
        else:
            joined[key] = project
    return joined
