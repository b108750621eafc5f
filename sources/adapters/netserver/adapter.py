"""``NetServerAdapter``: any AI Vergabe@Net host, configured by ``base_url`` (see the package docstring)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from django.core.exceptions import ValidationError

from sources.adapters.base import Adapter, AdapterError, FetchedBatch, SourceConfig
from sources.adapters.html import parse_html
from sources.fetching import Fetcher
from sources.records import NoticeRecord
from sources.registry import register

from .crawl import NetServerCrawl
from .options import KNOWN_HOSTS, fetch_hosts, validate_netserver_settings
from .parse import DetailFacts, ResultRow, notice_record, parse_detail_page, parse_result_page

__all__ = ["NetServerAdapter"]

FILE_SUFFIXES = (".html", ".htm", ".xhtml")
MAX_FILE_BYTES = 20 * 2**20
_SCOPE_MAX = 200


@register
class NetServerAdapter(Adapter):
    type: ClassVar[str] = "netserver"
    label: ClassVar[str] = "AI Vergabe@Net (NetServer) portals"
    known_hosts: ClassVar[tuple[str, ...]] = KNOWN_HOSTS
    # A result page of 100 rows is a few hundred KB; anything near this cap is not a result page.
    max_body_bytes: ClassVar[int] = 10 * 2**20
    conditional_requests: ClassVar[bool] = True

    @classmethod
    def validate_settings(cls, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled in; every problem is reported at once, each message naming its setting."""
        values = super().validate_settings(settings)
        try:
            return validate_netserver_settings(values)
        except ValueError as exc:
            raise ValidationError(exc.args[0]) from None

    @classmethod
    def allowed_hosts(cls, config: SourceConfig) -> frozenset[str]:
        """Only the configured portal's host; invalid settings allow nothing (the run then fails clearly)."""
        try:
            return fetch_hosts(cls.validate_settings(config.settings or {}))
        except ValidationError:
            return frozenset()

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        settings = self._settings(config)
        yield from NetServerCrawl(source=config.key, settings=settings, fetcher=fetcher).run()

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """Saved result and detail pages; one batch for all files, rows joined with their detail pages.

        A result page gives a record per row (list fields only); a detail page saved next to
        it enriches that row's record; a detail page alone gives a record of its own. Folders
        are walked for ``*.html``/``*.htm``. Nothing is fetched.
        """
        settings = self._settings(config)
        base_url = settings["base_url"]
        rows: dict[str, ResultRow] = {}
        details: dict[str, DetailFacts] = {}
        problems: list[str] = []
        size = 0
        names: list[str] = []
        for path in _expand([Path(p) for p in paths]):
            names.append(path.name)
            try:
                with path.open("rb") as handle:
                    data = handle.read(MAX_FILE_BYTES + 1)
            except OSError as exc:
                problems.append(f"{path}: cannot read file: {exc.strerror or exc}")
                continue
            size += len(data)
            if len(data) > MAX_FILE_BYTES:
                problems.append(f"{path}: larger than {MAX_FILE_BYTES} bytes; not a saved NetServer page")
                continue
            self._parse_file(path, data, base_url, rows, details, problems)
        records: list[NoticeRecord] = [
            notice_record(source=config.key, base_url=base_url, row=row, detail=details.get(oid))
            for oid, row in rows.items()
        ]
        records.extend(
            notice_record(source=config.key, base_url=base_url, row=None, detail=facts)
            for oid, facts in details.items()
            if oid not in rows
        )
        scope = ", ".join(names)
        yield FetchedBatch(
            records=tuple(records),
            problems=tuple(problems),
            bytes=size,
            scope=scope if len(scope) <= _SCOPE_MAX else scope[: _SCOPE_MAX - 1] + "…",
        )

    @staticmethod
    def _parse_file(
        path: Path,
        data: bytes,
        base_url: str,
        rows: dict[str, ResultRow],
        details: dict[str, DetailFacts],
        problems: list[str],
    ) -> None:
        page = parse_html(data, label=str(path))
        if page.problem:
            problems.append(page.problem)
        result = parse_result_page(page, category="InvitationToTender", label=str(path))
        if result.has_table or result.says_empty:
            problems.extend(p for p in result.problems if p != page.problem)
            if result.has_table and not result.rows and result.unmatched_rows:
                problems.append(f"{path}: result table rows do not match the known layout (selectors.RESULT_ROW)")
            for row in result.rows:
                rows.setdefault(row.oid, row)
            return
        facts = parse_detail_page(page, page_url=base_url)
        if facts is not None:
            details.setdefault(facts.oid, facts)
            return
        problems.append(f"{path}: neither a NetServer result page nor a detail page (markup not recognised)")

    def _settings(self, config: SourceConfig) -> dict[str, Any]:
        try:
            return self.validate_settings(config.settings or {})
        except ValidationError as exc:
            raise AdapterError(
                f"Source {config.key!r}: invalid NetServer settings: {' '.join(exc.messages)}",
                reason="invalid_settings",
            ) from exc


def _expand(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                yield from (
                    Path(root) / name
                    for name in sorted(files)
                    if not name.startswith(".") and name.lower().endswith(FILE_SUFFIXES)
                )
        else:
            yield path  # a missing or unreadable file becomes a problem, not a silent skip
