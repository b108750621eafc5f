"""A DÖE export streamed: paired by file name, parsed in worker processes, joined in order, written in bounded batches.

Why: a day's export (or a year of backfill) is thousands of notice versions. Parsing is the
expensive, pure half and runs on every core (:mod:`sources.parallel`); the join and the
ingest stay in one process. Nothing holds more than one batch of parsed records: members
are grouped by their file name stem (``<notice id>-<version>``, the join key of
:mod:`.join`) from the archives' central directories alone, read in key order when a worker
slot is free, and every ``batch_notices`` records (or ``batch_bytes`` of member data) go to
the writer as one ``FetchedBatch``.

Result rules are those of :class:`.join.NoticeJoiner` (records in key order, the first
rendition of a duplicate kept, each broken file a problem naming it), with one difference
in an edge case: a file whose notice id differs from its name (a hand-named file) is joined
with its partner only if that partner has not been written yet; otherwise it is reported
("already joined from …") and not used. Files without a version in their name come last.
"""

from __future__ import annotations

import zipfile
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from sources.adapters.base import AdapterError, FetchedBatch, read_saved
from sources.parallel import ordered_map
from sources.records import NoticeRecord, texts_cut

from .archive import Entry, Member, ZipLimits, archive_entries, open_archive, read_entry
from .join import Key, join_doe_records, parse_member_records, stem_key

__all__ = ["BatchLimits", "ExportStream", "LooseFile", "ParsedMember", "parse_members"]

# Members per worker task: large enough that a task's parsing outweighs its pickling.
TASK_MEMBERS = 32
TASK_BYTES = 8 * 2**20


@dataclass(frozen=True)
class BatchLimits:
    """When the writer gets a batch: whichever comes first. Bounds the parsed records held in memory."""

    notices: int = 1000
    member_bytes: int = 32 * 2**20


@dataclass(frozen=True)
class LooseFile:
    """A notice file outside an archive (``ingest --file a.xml``, a folder's files)."""

    path: Path
    label: str


@dataclass(frozen=True)
class ParsedMember:
    label: str
    name: str
    records: tuple[NoticeRecord, ...] = ()
    problem: str = ""
    kind: str = ""  # "eforms" | "ocds" | "" (unsupported)


def parse_members(members: Sequence[Member]) -> tuple[ParsedMember, ...]:
    """Worker entry point (pure): each member parsed by :func:`.join.parse_member_records`."""
    parsed = []
    for member in members:
        kind, records, problem = parse_member_records(member)
        records = tuple(map(texts_cut, records))
        parsed.append(ParsedMember(label=member.label, name=member.name, records=records, problem=problem, kind=kind))
    return tuple(parsed)


@dataclass
class _Group:
    stem: Key | None
    sources: list[tuple[Entry | LooseFile, zipfile.ZipFile | None]] = field(default_factory=list)


class _Joiner:
    """NoticeJoiner's rules for groups that arrive in key order (see module docstring)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        self._written: dict[str, dict[Key, str]] = {"eforms": {}, "ocds": {}}  # key -> label, for duplicate messages
        self._astray: dict[str, dict[Key, ParsedMember]] = {"eforms": {}, "ocds": {}}  # id differs from file name
        self._astray_records: dict[tuple[str, Key], NoticeRecord] = {}

    def group(self, stem: Key | None, parsed: Iterable[ParsedMember]) -> list[NoticeRecord]:
        local: dict[str, dict[Key, tuple[str, NoticeRecord]]] = {"eforms": {}, "ocds": {}}
        for member in parsed:
            if member.problem:
                self.problems.append(member.problem)
                continue
            from_stem = stem_key(member.name)
            for record in member.records:
                own = (record.source_notice_id.lower(), record.version)
                if from_stem is not None and from_stem[0] == own[0]:
                    key = from_stem
                    if record.version != key[1]:
                        record = record.replace(version=key[1])  # DÖE's noticeVersion in the name wins
                    if stem is not None and key == stem:
                        self._keep(local[member.kind], member.kind, key, member.label, record)
                        continue
                else:
                    key = own
                self._keep_astray(member.kind, key, member.label, record)
        return self._join(local)

    def finish(self) -> list[NoticeRecord]:
        local: dict[str, dict[Key, tuple[str, NoticeRecord]]] = {"eforms": {}, "ocds": {}}
        return self._join(local, take_all_astray=True)

    def _keep(self, target: dict, kind: str, key: Key, label: str, record: NoticeRecord) -> None:
        earlier = target.get(key, (None,))[0] or self._written[kind].get(key)
        if earlier:
            self._duplicate(label, record, key, earlier)
            return
        target[key] = (label, record)

    def _keep_astray(self, kind: str, key: Key, label: str, record: NoticeRecord) -> None:
        earlier = self._written[kind].get(key) or (self._astray[kind][key].label if key in self._astray[kind] else None)
        if earlier:
            self._duplicate(label, record, key, earlier)
            return
        self._astray[kind][key] = ParsedMember(label=label, name="", kind=kind)
        self._astray_records[(kind, key)] = record

    def _duplicate(self, label: str, record: NoticeRecord, key: Key, earlier: str) -> None:
        self.problems.append(
            f"{label}: notice {record.source_notice_id} version {key[1]} also in {earlier}; the first one is kept"
        )

    def _join(self, local: dict[str, dict[Key, tuple[str, NoticeRecord]]], *, take_all_astray=False) -> list:
        keys = set(local["eforms"]) | set(local["ocds"])
        if take_all_astray:
            keys |= set(self._astray["eforms"]) | set(self._astray["ocds"])
        records = []
        for key in sorted(keys):
            halves = {}
            for kind in ("eforms", "ocds"):
                if key in local[kind]:
                    label, record = local[kind][key]
                    if key in self._astray[kind]:  # the misnamed file came first in member order of its kind
                        self._duplicate(label, record, key, self._astray[kind][key].label)
                        label, record = self._astray[kind].pop(key).label, self._astray_records.pop((kind, key))
                    halves[kind] = record
                    self._written[kind][key] = label
                elif key in self._astray[kind]:
                    halves[kind] = self._astray_records.pop((kind, key))
                    self._written[kind][key] = self._astray[kind].pop(key).label
            records.append(join_doe_records(halves.get("ocds"), halves.get("eforms")))
        return records


class ExportStream:
    """One unit of DÖE material (a day's ZIPs, a folder, loose files) as bounded ``FetchedBatch``es.

    ``archives``: (label, bytes or path) of ZIP exports; ``loose``: single notice files.
    A ZIP that cannot be opened or breaks a cap is a problem of the unit (the rest is read).
    ``strict_archives``: such a ZIP raises instead (a fetched day must not be marked done).
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
    ) -> None:
        self.archives = archives
        self.loose = loose
        self.limits = limits
        self.batch = batch
        self.workers = workers
        self.strict_archives = strict_archives

    def batches(self, *, scope: str, bytes_read: int = 0, requests: int = 0, cursor=None) -> Iterator[FetchedBatch]:
        """The unit's batches; the first carries ``bytes_read``/``requests``, the last ``cursor``.

        Always at least one batch, so a unit without notices still reports its problems and cursor.
        """
        problems: list[str] = []
        with ExitStack() as stack:
            groups = self._plan(stack, problems)
            joiner = _Joiner(problems)
            pending: list[NoticeRecord] = []
            pending_bytes = 0
            first = True

            def flush(*, last: bool) -> FetchedBatch:
                nonlocal pending, pending_bytes, first
                batch = FetchedBatch(
                    records=tuple(pending),
                    problems=tuple(problems),
                    bytes=bytes_read if first else 0,
                    requests=requests if first else 0,
                    scope=scope,
                    cursor=cursor if last else None,
                )
                pending, pending_bytes, first = [], 0, False
                problems.clear()
                return batch

            for task, parsed in self._parsed(groups, problems):
                cut = 0
                for group, count, size in task.groups:
                    pending.extend(joiner.group(group.stem, parsed[cut : cut + count]))
                    cut += count
                    pending_bytes += size
                    if len(pending) >= self.batch.notices or pending_bytes >= self.batch.member_bytes:
                        yield flush(last=False)
            pending.extend(joiner.finish())
            yield flush(last=True)

    def _plan(self, stack: ExitStack, problems: list[str]) -> list[_Group]:
        by_stem: dict[Key, _Group] = {}
        unnamed: list[_Group] = []
        sources: list[tuple[Entry | LooseFile, zipfile.ZipFile | None]] = []
        for label, archive in self.archives:
            try:
                zf = stack.enter_context(open_archive(archive, label=label))
                entries = archive_entries(zf, label=label, limits=self.limits, problems=problems)
            except AdapterError as exc:
                if self.strict_archives:
                    raise
                problems.append(str(exc))
                continue
            sources.extend((entry, zf) for entry in entries)
        sources.extend((loose, None) for loose in self.loose)
        for source, zf in sources:
            stem = stem_key(source.name if isinstance(source, Entry) else source.path.name)
            if stem is None:
                unnamed.append(_Group(stem=None, sources=[(source, zf)]))
            else:
                by_stem.setdefault(stem, _Group(stem=stem)).sources.append((source, zf))
        return [by_stem[key] for key in sorted(by_stem)] + unnamed

    def _parsed(self, groups: list[_Group], problems: list[str]) -> Iterator[tuple[_Task, tuple[ParsedMember, ...]]]:
        """Each task with its ParsedMembers, in order; members are read only when the pool takes the task."""
        taken: deque[_Task] = deque()

        def take(task: _Task) -> tuple[Member, ...]:
            taken.append(task)
            return task.members

        tasks = _tasks(groups, self.limits, problems)
        for parsed in ordered_map(parse_members, map(take, tasks), workers=self.workers):
            yield taken.popleft(), parsed


@dataclass(frozen=True)
class _Task:
    # Each group with the number and bytes of its members that could be read.
    groups: tuple[tuple[_Group, int, int], ...]
    members: tuple[Member, ...]


def _read(source: Entry | LooseFile, zf: zipfile.ZipFile | None, limits: ZipLimits, problems: list[str]):
    """The member, or None with a problem (cannot be extracted, too large, unreadable file)."""
    if isinstance(source, Entry):
        data = read_entry(zf, source, limits=limits, problems=problems)
        return None if data is None else Member(label=source.label, name=source.name, data=data)
    saved = read_saved(source.path, limit=limits.max_member_bytes, label=source.label)
    if saved.problem:
        problems.append(saved.problem)
        return None
    return Member(label=source.label, name=source.path.name, data=saved.data)


def _tasks(groups: list[_Group], limits: ZipLimits, problems: list[str]) -> Iterator[_Task]:
    task_groups: list[tuple[_Group, int, int]] = []
    members: list[Member] = []
    task_size = 0
    for group in groups:
        count = size = 0
        for source, zf in group.sources:
            member = _read(source, zf, limits, problems)
            if member is not None:
                members.append(member)
                size += len(member.data)
                count += 1
        task_groups.append((group, count, size))
        task_size += size
        if len(members) >= TASK_MEMBERS or task_size >= TASK_BYTES:
            yield _Task(groups=tuple(task_groups), members=tuple(members))
            task_groups, members, task_size = [], [], 0
    if task_groups:
        yield _Task(groups=tuple(task_groups), members=tuple(members))
