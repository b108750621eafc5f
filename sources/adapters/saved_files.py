"""Saved input read from disk for ``parse_files``: files with a size limit, folders walked.

Apart from :mod:`sources.adapters.base` for the same reason as :mod:`sources.adapters.errors`: the
parse workers read saved files too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SavedFile", "read_saved", "walk_files"]


@dataclass(frozen=True)
class SavedFile:
    """A file read for ``parse_files``: its bytes, or why they are not used."""

    data: bytes = b""
    size: int = 0  # bytes read, for FetchedBatch.bytes (also when the file is refused as too large)
    problem: str = ""  # "<label>: cannot read file: …" / "<label>: larger than N bytes; skipped"


def read_saved(path: Path, *, limit: int, label: str = "") -> SavedFile:
    """At most ``limit`` bytes of ``path``; a larger or unreadable file is a problem, never a failed run.

    Reads ``limit + 1`` bytes at most, so a huge file is not loaded to find out it is too large.
    ``label`` names the file in the problem (default: the path).
    """
    label = label or str(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        return SavedFile(problem=f"{label}: cannot read file: {exc.strerror or exc}")
    if len(data) > limit:
        return SavedFile(size=len(data), problem=f"{label}: larger than {limit} bytes; skipped")
    return SavedFile(data=data, size=len(data))


def walk_files(paths: Iterable[Path], suffixes: tuple[str, ...]) -> Iterator[Path]:
    """The files ``parse_files`` reads: folders walked recursively, other paths as given.

    In a folder: names ending in one of ``suffixes`` (lower case, compared case-insensitively),
    sorted per folder, files before subfolders; hidden files and folders and symlinked folders
    are skipped. A path that is no folder is yielded even if it is missing or has another
    suffix, so the caller reports it as a problem instead of skipping it silently.
    """
    for path in map(Path, paths):
        if not path.is_dir():
            yield path
            continue
        for root, dirs, files in os.walk(path, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            yield from (
                Path(root) / name
                for name in sorted(files)
                if not name.startswith(".") and name.lower().endswith(suffixes)
            )
