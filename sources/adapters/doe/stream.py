"""A DÖE export streamed: paired by file name, parsed in worker processes, joined in order, written in bounded batches.

Why: a day's export (or a year of backfill) is thousands of notice versions. Parsing is the
expensive, pure half and runs on every core (:mod:`sources.parallel`), and so does the join; the
ingest stays in one process, so everything else that can leave it does. Members are grouped
by their file name stem (``<notice id>-<version>``, the join key of :mod:`.join`) from the
archives' central directories alone; a worker task names a few groups' members (archive
path and directory entry, or loose file), and the worker reads, inflates and parses them.
An archive held in memory (a fetched day) is written to a temporary file first, so the workers
read it too.
Every ``batch_notices`` records (or ``batch_bytes`` of member data) go to the writer as one
``FetchedBatch``; while it is written, the workers parse up to one more batch (bounded by
the members' declared sizes), so at most two batches of parsed records are held at once.
Reading problems come back with their task and are reported in member order, whichever
process read the member.

Join rules: ``.ordered_join`` (records in key order, the first rendition of a duplicate kept).

Where the join runs: a group whose files each parsed into one record of the group's own notice
is joined by the worker that parsed it (``reading.joined_group``), so one record instead of two
travels back and the writer does not join it. Only the writer knows whether a hand-named file
already holds that key; if one does, it reads and parses the group's files again and joins them
itself, so the result is the same whichever process joined.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from kernel.records import NoticeRecord
from kernel.vocabulary.compounds import remember_compound_parts
from sources.adapters.base import AdapterError, FetchedBatch, RawVersions
from sources.parallel import ordered_map, prepare_workers

from .archive import Entry, ZipLimits, archive_entries, open_archive
from .join import SOURCE, Key, stem_key
from .ordered_join import StreamJoiner
from .reading import (
    LooseFile,
    MemberSource,
    ParsedMember,
    TaskInput,
    TaskResult,
    declared_bytes,
    member_source,
    parse_members,
    read_and_parse,
    read_member,
)

__all__ = ["BatchLimits", "ExportStream", "LooseFile", "ParsedMember", "parse_members"]

# Members per worker task: large enough that a task's parsing outweighs its pickling.
TASK_MEMBERS = 32
TASK_BYTES = 8 * 2**20
PREPARE_BYTES_PER_MEMBER = 4096  # compressed bytes per member above which the workers are surely started


@dataclass(frozen=True)
class BatchLimits:
    """When the writer gets a batch: whichever comes first. Bounds the parsed records held in memory."""

    notices: int = 1000
    member_bytes: int = 32 * 2**20


@dataclass
class _Group:
    stem: Key | None
    # Each member: the entry (with its open archive and, for an archive on disk, its path) or a loose file.
    sources: list[tuple[Entry | LooseFile, zipfile.ZipFile | None, Path | None]] = field(default_factory=list)


class ExportStream:
    """One unit of DÖE material (a day's ZIPs, a folder, loose files) as bounded ``FetchedBatch``es.

    ``archives``: (label, bytes or path) of ZIP exports; ``loose``: single notice files.
    A ZIP that cannot be opened or breaks a cap is a problem of the unit (the rest is read).
    ``strict_archives``: such a ZIP raises instead (a fetched day must not be marked done).
    ``parallel_from``: archive members from which the ``workers`` start; a smaller unit is parsed
    in this process, since starting them costs about a second (``SOURCES_PARSE_PARALLEL_MEMBERS``).
    ``raw_versions``: the stored digests of the unit's keys (``SourceConfig.raw_versions``); a group
    whose files give its stored digest is not parsed and goes to the writer as ``unchanged_raw``.
    """

    def __init__(
        self,
        *,
        archives: Sequence[tuple[str, bytes | Path]] = (),
        loose: Sequence[LooseFile] = (),
        limits: ZipLimits,
        batch: BatchLimits,
        workers: int,
        strict_archives: bool = False,
        parallel_from: int = 0,
        raw_versions: RawVersions | None = None,
    ) -> None:
        self.archives = archives
        self.loose = loose
        self.limits = limits
        self.batch = batch
        self.workers = workers
        self.strict_archives = strict_archives
        self.parallel_from = parallel_from
        self.raw_versions = raw_versions

    def batches(self, *, scope: str, bytes_read: int = 0, requests: int = 0, cursor=None) -> Iterator[FetchedBatch]:
        """The unit's batches; the first carries ``bytes_read``/``requests``, the last ``cursor``.

        Always at least one batch, so a unit without notices still reports its problems and cursor.
        """
        problems: list[str] = []
        # Without stored digests to ask, the workers' imports run while the archives' directories are read;
        # with them, the unit may be mostly unchanged, and whether it needs workers is known only after asking.
        if self.raw_versions is None and self._surely_parallel():
            prepare_workers(self.workers)
        with ExitStack() as stack:
            groups = self._plan(stack, problems)
            known = self._known(groups)
            # Only members still to parse count: a re-read day whose versions are all stored is read and
            # digested in this process, which costs less than starting the workers.
            members = sum(len(group.sources) for group in groups if group.stem not in known)
            workers = self.workers if members >= self.parallel_from else 1
            joiner = StreamJoiner(problems)
            pending: list[NoticeRecord] = []
            unchanged: list[tuple[str, str]] = []
            digests: list[tuple[str, str, str]] = []
            pending_bytes = 0
            first = True

            def flush(*, last: bool) -> FetchedBatch:
                nonlocal pending, pending_bytes, first, unchanged, digests
                batch = FetchedBatch(
                    records=tuple(pending),
                    problems=tuple(problems),
                    bytes=bytes_read if first else 0,
                    requests=requests if first else 0,
                    scope=scope,
                    cursor=cursor if last else None,
                    unchanged_raw=tuple(unchanged),
                    raw_hashes=tuple(digests),
                    raw_source=SOURCE,
                )
                pending, pending_bytes, first, unchanged, digests = [], 0, False, [], []
                problems.clear()
                return batch

            for task, result in self._parsed(groups, workers, known):
                problems.extend(result.problems)
                remember_compound_parts(result.compound_parts)
                cut = 0
                for index, group in enumerate(task.groups):
                    count = len(group.sources)
                    if result.unchanged and result.unchanged[index]:
                        joiner.skipped(group.stem, [source.label for source, _, _ in group.sources])
                        unchanged.append((known[group.stem][0], group.stem[1]))
                        pending_bytes += sum(result.sizes[cut : cut + count])
                        cut += count
                        if len(pending) + len(unchanged) >= self.batch.notices:
                            yield flush(last=False)
                        continue
                    joined = result.joined[index] if result.joined else None
                    records = joiner.take_joined(group.stem, joined) if joined is not None else None
                    if records is not None and result.raw and result.raw[index]:
                        # Joined from this group's files alone: its digest stands for the record.
                        digests.append((records[0].source_notice_id, records[0].version, result.raw[index]))
                    if records is None:
                        parsed = result.parsed[cut : cut + count]
                        if joined is not None:  # joined by a worker, but the key was taken: join it here
                            parsed = self._reparsed(group, problems)
                        records = joiner.group(group.stem, [member for member in parsed if member is not None])
                    pending.extend(records)
                    pending_bytes += sum(result.sizes[cut : cut + count])
                    cut += count
                    if len(pending) + len(unchanged) >= self.batch.notices or pending_bytes >= self.batch.member_bytes:
                        yield flush(last=False)
            pending.extend(joiner.finish())
            yield flush(last=True)

    def _surely_parallel(self) -> bool:
        """Whether the unit will start workers, known before its directories are read: by its size on disk."""
        if self.workers <= 1:
            return False
        if self.parallel_from <= 0:
            return True
        size = 0
        for _, archive in self.archives:
            try:
                size += len(archive) if isinstance(archive, (bytes, bytearray)) else archive.stat().st_size
            except OSError:  # reported when it is opened
                continue
        # A DÖE export compresses a member to about 2.4 KB, so this many bytes hold more members than the threshold.
        return size >= PREPARE_BYTES_PER_MEMBER * self.parallel_from

    def _plan(self, stack: ExitStack, problems: list[str]) -> list[_Group]:
        by_stem: dict[Key, _Group] = {}
        unnamed: list[_Group] = []
        sources: list[tuple[Entry | LooseFile, zipfile.ZipFile | None, Path | None]] = []
        spool = self.workers > 1
        for label, archive in self.archives:
            try:
                if spool and isinstance(archive, (bytes, bytearray)):
                    archive = _spooled(stack, archive)
                zf = stack.enter_context(open_archive(archive, label=label))
                entries = archive_entries(zf, label=label, limits=self.limits, problems=problems)
            except AdapterError as exc:
                if self.strict_archives:
                    raise
                problems.append(str(exc))
                continue
            path = archive.absolute() if isinstance(archive, Path) else None  # workers open it again
            sources.extend((entry, zf, path) for entry in entries)
        sources.extend((loose, None, None) for loose in self.loose)
        for source, zf, path in sources:
            stem = stem_key(source.name if isinstance(source, Entry) else source.path.name)
            if stem is None:
                unnamed.append(_Group(stem=None, sources=[(source, zf, path)]))
            else:
                by_stem.setdefault(stem, _Group(stem=stem)).sources.append((source, zf, path))
        return [by_stem[key] for key in sorted(by_stem)] + unnamed

    def _reparsed(self, group: _Group, problems: list[str]) -> tuple[ParsedMember, ...]:
        """The group's files read and parsed again in this process (rare: see ``_Joiner.take_joined``)."""
        members = []
        for source, zf, path in group.sources:
            item, _ = member_source(source, zf, path, self.limits, in_process=True)
            member = read_member(item, self.limits, problems)
            if member is not None:
                members.append(member)
        return parse_members(members)

    def _known(self, groups: list[_Group]) -> dict[Key, tuple[str, str]]:
        """The stored (notice id, digest) of the unit's keys: one lookup per batch of keys, before any parsing."""
        if self.raw_versions is None:
            return {}
        keys = [group.stem for group in groups if group.stem is not None]
        known: dict[Key, tuple[str, str]] = {}
        for start in range(0, len(keys), self.batch.notices):
            known.update(self.raw_versions(SOURCE, keys[start : start + self.batch.notices]))
        return known

    def _parsed(
        self, groups: list[_Group], workers: int, known: dict[Key, tuple[str, str]]
    ) -> Iterator[tuple[_Task, TaskResult]]:
        """Each task with what its members gave, in order; members are read by the process that parses them."""
        taken: deque[_Task] = deque()

        def take(task: _Task) -> TaskInput:
            taken.append(task)
            return task.input

        # In flight: a batch's worth of members, so the workers parse the next batch while this
        # process writes the current one (the write is the other half of the run's CPU).
        window = workers + max(1, 2 * self.batch.notices // TASK_MEMBERS)
        # In-process, members are read from the archives this process holds open (and the words
        # are split where the tenders are compiled anyway).
        in_process = workers <= 1
        tasks = _tasks(groups, self.limits, known, in_process=in_process)
        for result in ordered_map(
            read_and_parse,
            map(take, tasks),
            workers=workers,
            window=window,
            cost=declared_bytes,
            budget=self.batch.member_bytes,
        ):
            yield taken.popleft(), result


def _spooled(stack: ExitStack, archive: bytes | bytearray) -> bytes | bytearray | Path:
    """A fetched archive written to a temporary file for the stream's life, so the workers read it like ``--file``.

    Why: a worker cannot open an archive held in this process's memory, which left reading and
    inflating every member to the writer. If the file cannot be written (disk full), the archive
    stays in memory and the writer reads it as before.
    """
    try:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="doe-export-")))
        path = folder / "export.zip"
        path.write_bytes(archive)
    except OSError:
        return archive
    return path


@dataclass(frozen=True)
class _Task:
    groups: tuple[_Group, ...]  # each takes ``len(group.sources)`` of the results, in order
    input: TaskInput


def _tasks(
    groups: list[_Group], limits: ZipLimits, known: dict[Key, tuple[str, str]], *, in_process: bool
) -> Iterator[_Task]:
    split = not in_process
    task_groups: list[_Group] = []
    sources: list[MemberSource] = []
    task_size = members = 0
    for group in groups:
        for source, zf, path in group.sources:
            item, declared = member_source(source, zf, path, limits, in_process=in_process)
            sources.append(item)
            task_size += declared
            members += 1
        task_groups.append(group)
        if members >= TASK_MEMBERS or task_size >= TASK_BYTES:
            yield _task(task_groups, sources, limits, task_size, known, split=split)
            task_groups, sources, task_size, members = [], [], 0, 0
    if task_groups:
        yield _task(task_groups, sources, limits, task_size, known, split=split)


def _task(
    groups: list[_Group], sources: list[MemberSource], limits: ZipLimits, declared: int, known, *, split
) -> _Task:
    layout = tuple((group.stem, len(group.sources)) for group in groups)
    digests = tuple(known[group.stem][1] if group.stem in known else "" for group in groups)
    task = TaskInput(tuple(sources), limits, declared, groups=layout, split_compounds=split, known=digests)
    return _Task(groups=tuple(groups), input=task)
