"""``DoeAdapter``: DÖE OpenData day exports -> one ``FetchedBatch`` per closed day.

The package docstring (:mod:`sources.adapters.doe`) describes the flow and its limits;
this module wires options, archive reading and the join to the Fetcher and to files.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import ClassVar

from kernel.network import Fetcher, HttpStatusError, raise_for_wall
from sources.adapters.base import Adapter, AdapterError, FetchedBatch, SourceConfig, scope_text, walk_files
from sources.parallel import parallel_from_members, parse_workers
from sources.registry import register

from .archive import NOTICE_SUFFIXES, ZipLimits
from .options import EXPORT_FORMATS, DoeSettings, days_to_fetch, export_url
from .stream import BatchLimits, ExportStream, LooseFile

__all__ = ["DoeAdapter"]

# "No notices that day": the spec promises an empty ZIP, but a 404/204/empty body means the same.
_NO_NOTICES_STATUSES = frozenset({404})
# Export ZIPs of one day differ only by the format word ("2026-09-14_ocds.zip" / "2026-09-14_eforms.zip").
_FORMAT_WORD = re.compile(r"(?<![a-z])(ocds|eforms)(?![a-z])", re.IGNORECASE)


@register
class DoeAdapter(Adapter):
    type: ClassVar[str] = "doe"
    label: ClassVar[str] = "DÖE / oeffentlichevergabe.de OpenData"
    short_name: ClassVar[str] = "DÖE"
    known_hosts: ClassVar[tuple[str, ...]] = ("oeffentlichevergabe.de",)
    settings_model: ClassVar[type[DoeSettings]] = DoeSettings
    # A busy day's export zip runs to well over 20 MiB.
    max_body_bytes: ClassVar[int] = 300 * 2**20
    # Class attribute so a deployment (or a test) can tighten the caps without new settings.
    zip_limits: ClassVar[ZipLimits] = ZipLimits()
    # Parsed records held at once: a batch is written (one transaction) before the next is parsed further.
    batch_limits: ClassVar[BatchLimits] = BatchLimits()

    def fetch(self, *, config: SourceConfig, fetcher: Fetcher, now: datetime) -> Iterator[FetchedBatch]:
        settings = self.settings_for(config)
        start_day = date.fromisoformat(settings["start_day"]) if settings.get("start_day") else None
        days = days_to_fetch(now=now, cursor=config.cursor, start_day=start_day, max_days=settings["max_days_per_run"])
        for day in days:
            yield from self._fetch_day(day, settings["base_url"], fetcher, config)

    def _fetch_day(self, day: date, base_url: str, fetcher: Fetcher, config: SourceConfig) -> Iterator[FetchedBatch]:
        archives: list[tuple[str, bytes]] = []
        size = requests = 0
        for export_format in EXPORT_FORMATS:
            url = export_url(base_url, day, export_format)
            requests += 1
            try:
                result = fetcher.get(url)
            except HttpStatusError as exc:
                if exc.status in _NO_NOTICES_STATUSES:
                    continue
                raise
            size += len(result.body)
            if result.status == 204 or not result.body:
                continue
            raise_for_wall(result, expected_marker=None, text="")  # redirect to a login/error page
            if not result.body.startswith(b"PK"):
                raise AdapterError(
                    f"DÖE {day.isoformat()} {export_format}: expected a ZIP archive from {result.final_url}, "
                    f"got {result.content_type or 'no content type'} starting {result.body[:40]!r}",
                    reason="bad_zip",
                )
            archives.append((f"{day.isoformat()} {export_format}", result.body))
        # A corrupt download must not mark the day done: strict archives raise instead of reporting.
        stream = self._stream(archives=archives, strict_archives=True, raw_versions=config.raw_versions)
        yield from stream.batches(
            scope=day.isoformat(), bytes_read=size, requests=requests, cursor={"last_day": day.isoformat()}
        )

    def parse_files(self, *, config: SourceConfig, paths: list[Path]) -> Iterator[FetchedBatch]:
        """One batch per folder, per group of export ZIPs of one day, and one for all loose files.

        ZIPs whose names differ only by the word "ocds"/"eforms" are one group, so passing a
        day's two exports joins them exactly like ``fetch``. Folders are walked recursively for
        ``*.zip``, ``*.xml`` and ``*.json`` (hidden entries and symlinked folders skipped).
        Nothing here moves the cursor.
        """
        for unit in _units([Path(p) for p in paths]):
            yield from self._parse_unit(unit, config)

    def _stream(self, **material) -> ExportStream:
        return ExportStream(
            **material,
            limits=self.zip_limits,
            batch=self.batch_limits,
            workers=parse_workers(),
            parallel_from=parallel_from_members(),
        )

    def _parse_unit(self, unit: _Unit, config: SourceConfig) -> Iterator[FetchedBatch]:
        archives: list[tuple[str, Path]] = []
        loose: list[LooseFile] = []
        size = 0
        for path, label in unit.files:
            if path.suffix.lower() == ".zip":
                archives.append((label, path))
            else:
                loose.append(LooseFile(path=path, label=label))
            with contextlib.suppress(OSError):  # an unreadable file is reported when it is read
                size += path.stat().st_size
        stream = self._stream(archives=archives, loose=loose, raw_versions=config.raw_versions)
        yield from stream.batches(scope=scope_text(unit.scope), bytes_read=size)


@dataclass
class _Unit:
    scope: str
    files: list[tuple[Path, str]] = field(default_factory=list)  # (path, label for messages)


def _units(paths: list[Path]) -> list[_Unit]:
    units: dict[tuple[str, str], _Unit] = {}
    seen: set[Path] = set()
    for path in paths:
        resolved = path.resolve()
        if resolved in seen:  # the same input twice would only produce "duplicate notice" problems
            continue
        seen.add(resolved)
        if path.is_dir():
            unit = units.setdefault(("dir", str(resolved)), _Unit(scope=path.name or str(path)))
            files = walk_files([path], (*NOTICE_SUFFIXES, ".zip"))
            unit.files.extend((file, file.relative_to(path).as_posix()) for file in files)
        elif path.suffix.lower() == ".zip":
            group = str(resolved.parent / _FORMAT_WORD.sub("", path.name).lower())
            unit = units.setdefault(("zip", group), _Unit(scope=""))
            unit.files.append((path, path.name))
            unit.scope = ", ".join(label for _, label in unit.files)
        else:
            unit = units.setdefault(("loose", ""), _Unit(scope=""))
            unit.files.append((path, str(path)))
            unit.scope = ", ".join(file.name for file, _ in unit.files)
    return list(units.values())
