"""Reading and parsing DÖE members in whichever process parses them: the worker side of :mod:`.stream`.

Why: inflating a member costs about a tenth of parsing it, and it is the same in any process.
A worker task names the members (archive path and directory entry, or loose file) instead of
carrying their bytes, so the writer neither inflates them nor pipes them to the workers; a
worker keeps the few archives it reads from open. An archive held only in the writer's memory
(a fetched day) cannot be opened elsewhere: the writer reads those members and hands them over.
Reading problems are returned with the task, in member order, so the messages and their order
are the same whichever process read the member.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from hashlib import blake2b
from pathlib import Path
from typing import BinaryIO

from kernel.records import NoticeRecord, texts_cut
from kernel.vocabulary.compounds import REMEMBERED_MAX
from kernel.vocabulary.cpv import cpv_code_labels
from kernel.vocabulary.search_words import words_compound_parts
from sources.adapters.errors import AdapterError
from sources.adapters.saved_files import read_saved
from sources.parsers import PARSE_VERSION

from .archive import (
    Entry,
    Member,
    ZipLimits,
    open_archive,
    packed_fingerprint,
    read_direct_packed,
    read_entry_packed,
    read_packed,
)
from .join import Key, join_doe_records, parse_member_records, stem_key

__all__ = [
    "LooseFile",
    "MemberSource",
    "ParsedMember",
    "TaskInput",
    "TaskResult",
    "Joined",
    "declared_bytes",
    "joined_group",
    "member_source",
    "parse_members",
    "raw_digest",
    "read_and_parse",
    "read_member",
    "record_compound_parts",
]


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


# A member to read: an archive entry (the archive open in this process, or its path for a
# worker to open), a loose file, or, for an archive held only in this process's memory, the
# member already read (or the problem reading it).
MemberSource = tuple[zipfile.ZipFile | Path, Entry] | LooseFile | Member | str


@dataclass(frozen=True)
class TaskInput:
    sources: tuple[MemberSource, ...]
    limits: ZipLimits
    declared: int  # uncompressed bytes the central directories (or file sizes) promise
    # The groups the sources make, in order: (file name stem, number of sources), for the join.
    groups: tuple[tuple[Key | None, int], ...] = ()
    # Split the records' words here (a worker process), so the writer need not: see ``record_compound_parts``.
    split_compounds: bool = False
    # Per group: the raw digest of the stored version of its key ("" if none); a group whose bytes give
    # the same digest is not parsed (``raw_digest``).
    known: tuple[str, ...] = ()


def declared_bytes(task: TaskInput) -> int:
    return task.declared


@dataclass(frozen=True)
class Joined:
    """A group joined where it was parsed: its one record, and the label of each rendition (kind, label)."""

    record: NoticeRecord
    labels: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class TaskResult:
    parsed: tuple[ParsedMember | None, ...]  # per source; None: not readable (see problems) or joined
    sizes: tuple[int, ...]  # bytes read per source
    problems: tuple[str, ...]  # reading problems, in source order
    joined: tuple[Joined | None, ...] = ()  # per group of the task; None: the writer joins it
    compound_parts: dict[str, tuple[str, ...]] = field(default_factory=dict)  # word -> its parts
    raw: tuple[str, ...] = ()  # per group: the digest of its members' bytes ("" if one was not readable)
    unchanged: tuple[bool, ...] = ()  # per group: its digest is the stored one; nothing of it was parsed


def joined_group(stem: Key | None, parsed: Sequence[ParsedMember | None]) -> Joined | None:
    """The group's one record, joined here, when the join cannot depend on any other group; else None.

    That is a group named ``<id>-<version>`` whose every file was read and parsed into exactly one
    record of that id, at most one per rendition. Whether that key was already written (a
    hand-named file elsewhere holding the same notice) only the writer knows: it checks the key
    (``stream._Joiner.take_joined``) and joins the group itself from its files when it was.
    """
    if stem is None or not parsed:
        return None
    halves: dict[str, NoticeRecord] = {}
    labels: list[tuple[str, str]] = []
    for member in parsed:
        if member is None or member.problem or member.kind not in ("eforms", "ocds") or member.kind in halves:
            return None
        if len(member.records) != 1 or stem_key(member.name) != stem:
            return None
        record = member.records[0]
        if record.source_notice_id.lower() != stem[0]:
            return None
        if record.version != stem[1]:
            record = record.replace(version=stem[1])  # DÖE's noticeVersion in the name wins
        halves[member.kind] = record
        labels.append((member.kind, member.label))
    return Joined(record=join_doe_records(halves.get("ocds"), halves.get("eforms")), labels=tuple(labels))


def raw_digest(members: Sequence[Member]) -> str:
    """The digest of a group's files (names and bytes) and of the parsers' version: equal means parsed equal.

    Archive members read from their offset are also digested as stored (``Member.packed``), written
    ``<packed>+<bytes>``: a re-read day is then known unchanged without inflating it (``_known_unchanged``),
    and an archive compressed anew is still known by its bytes (``same_bytes``).
    """
    digest = blake2b(f"{PARSE_VERSION}".encode(), digest_size=16)
    for member in members:
        digest.update(b"\0%d:%s\0" % (len(member.data), member.name.encode()))
        digest.update(member.data)
    if members and all(member.packed for member in members):
        return f"{packed_digest([(member.name, member.packed) for member in members])}+{digest.hexdigest()}"
    return digest.hexdigest()


def same_bytes(known: str, digest: str) -> bool:
    """Whether two ``raw_digest``s name the same bytes (the packed halves may differ: another compression)."""
    return bool(known) and known.rpartition("+")[2] == digest.rpartition("+")[2]


def packed_digest(members: Sequence[tuple[str, str]]) -> str:
    """The digest of a group of archive members by (base name, ``packed_fingerprint``), with the parsers' version."""
    digest = blake2b(f"{PARSE_VERSION}:packed".encode(), digest_size=16)
    for name, packed in members:
        digest.update(b"\0%s\0%s" % (name.encode(), packed.encode()))
    return digest.hexdigest()


def _known_unchanged(sources: Sequence[MemberSource], known: str) -> bool:
    """Whether the group's archive members, as stored, give the stored digest: read but never inflated."""
    fingerprints = []
    for source in sources:
        if not isinstance(source, tuple):
            return False
        archive, entry = source
        try:
            handle = _archive_file(archive) if isinstance(archive, Path) else archive.fp
            raw = read_packed(handle, entry.info)
        except OSError:
            return False
        if raw is None:
            return False
        fingerprints.append((entry.name, packed_fingerprint(entry.info, raw)))
    packed, plus, _ = known.partition("+")
    return bool(plus) and packed_digest(fingerprints) == packed


def read_and_parse(task: TaskInput) -> TaskResult:
    """Worker entry point: read each member (unzipping it here, not in the writer) and parse it.

    A group whose bytes give the digest the writer names as stored (``task.known``) is not parsed.
    """
    problems: list[str] = []
    parsed: list[ParsedMember | None] = []
    sizes: list[int] = []
    joined: list[Joined | None] = []
    raw: list[str] = []
    unchanged: list[bool] = []
    layout = task.groups or tuple((None, 1) for _ in task.sources)
    cut = 0
    for index, (stem, count) in enumerate(layout):
        sources = task.sources[cut : cut + count]
        known = task.known[index] if stem is not None and index < len(task.known) else ""
        if known and _known_unchanged(sources, known):
            sizes += [source[1].info.file_size for source in sources]
            raw.append(known)
            unchanged.append(True)
            parsed += [None] * count
            joined.append(None)
            cut += count
            continue
        members = [read_member(source, task.limits, problems) for source in sources]
        sizes += [0 if member is None else len(member.data) for member in members]
        readable = [member for member in members if member is not None]
        digest = raw_digest(readable) if stem is not None and len(readable) == count else ""
        raw.append(digest)
        if digest and same_bytes(known, digest):
            unchanged.append(True)
            parsed += [None] * count
            joined.append(None)
        else:
            unchanged.append(False)
            group = [None if member is None else parse_members((member,))[0] for member in members]
            together = joined_group(stem, group) if task.groups else None
            if together is not None:
                group = [None] * count  # the joined record alone goes back to the writer
            parsed += group
            joined.append(together)
        cut += count
    parts: dict[str, tuple[str, ...]] = {}
    if task.split_compounds:
        records = [group.record for group in joined if group is not None]
        records += [record for member in parsed if member is not None for record in member.records]
        parts = record_compound_parts(records)
    return TaskResult(
        parsed=tuple(parsed),
        sizes=tuple(sizes),
        problems=tuple(problems),
        joined=tuple(joined) if task.groups else (),
        compound_parts=parts,
        raw=tuple(raw) if task.groups else (),
        unchanged=tuple(unchanged) if task.groups else (),
    )


# Words this worker process has already split and handed over; the writer keeps them
# (``compounds.remember_compound_parts``), and one it dropped is split there again.
_SPLIT: set[str] = set()


def record_compound_parts(records: Sequence[NoticeRecord]) -> dict[str, tuple[str, ...]]:
    """The compound parts of the words a tender made of these records is indexed by, not yet handed over.

    Title, description, lot titles and the codes' own CPV labels (``tenders.merging.compound_columns``):
    splitting is pure and costly, and a worker splits while the writer writes.
    """
    texts: list[str] = []
    for record in records:
        texts += [record.title, record.description, _code_labels(record.cpv_codes)]
        texts += [lot.title for lot in record.lots if lot.title]
    if len(_SPLIT) > REMEMBERED_MAX:
        _SPLIT.clear()
    parts = words_compound_parts(texts, skip=_SPLIT)
    _SPLIT.update(parts)
    return parts


@lru_cache(maxsize=4096)
def _code_labels(codes: tuple[str, ...]) -> str:
    return cpv_code_labels(codes)


# Archive files a worker process has opened, by path: a task's members come from the same few
# archives. A member is read at the offset its directory entry names (``archive.read_direct``), so
# the worker never parses the central directory again; only a member that reading refuses opens
# the archive with ``zipfile``, whose reading decides and names the problem.
_OPENED: dict[Path, BinaryIO] = {}
_OPENED_MAX = 4


def _archive_file(path: Path) -> BinaryIO:
    handle = _OPENED.get(path)
    if handle is None:
        while len(_OPENED) >= _OPENED_MAX:
            _OPENED.pop(next(iter(_OPENED))).close()
        handle = _OPENED[path] = open(path, "rb", buffering=0)  # noqa: SIM115  (kept open for the next tasks)
    return handle


def _read_from_path(path: Path, entry: Entry, limits: ZipLimits, problems: list[str]) -> tuple[bytes, str] | None:
    try:
        read = read_direct_packed(_archive_file(path), entry.info)
    except OSError:  # opened by the writer a moment ago: it changed or vanished since; zipfile says how
        read = None
    if read is not None:
        return read
    try:
        archive = open_archive(path, label=entry.label)
    except AdapterError as exc:
        problems.append(f"{entry.label}: cannot be extracted: {exc}")
        return None
    with archive:
        return read_entry_packed(archive, entry, limits=limits, problems=problems)


def read_member(source: MemberSource, limits: ZipLimits, problems: list[str]) -> Member | None:
    """The member, or None with a problem (cannot be extracted, too large, unreadable file)."""
    if isinstance(source, Member):
        return source
    if isinstance(source, str):
        problems.append(source)
        return None
    if isinstance(source, LooseFile):
        saved = read_saved(source.path, limit=limits.max_member_bytes, label=source.label)
        if saved.problem:
            problems.append(saved.problem)
            return None
        return Member(label=source.label, name=source.path.name, data=saved.data)
    archive, entry = source
    if isinstance(archive, Path):
        read = _read_from_path(archive, entry, limits, problems)
    else:
        read = read_entry_packed(archive, entry, limits=limits, problems=problems)
    return None if read is None else Member(label=entry.label, name=entry.name, data=read[0], packed=read[1])


def member_source(
    source: Entry | LooseFile, zf: zipfile.ZipFile | None, path: Path | None, limits: ZipLimits, *, in_process: bool
) -> tuple[MemberSource, int]:
    """What to hand the reading process for ``source``, and the bytes it declares."""
    if isinstance(source, LooseFile):
        try:
            declared = min(source.path.stat().st_size, limits.max_member_bytes)
        except OSError:  # reported when it is read
            declared = 0
        return source, declared
    declared = source.info.file_size
    if in_process:
        return (zf, source), declared
    if path is not None:
        return (path, source), declared
    # An archive held in memory only (its temporary file could not be written): a worker cannot
    # open it, so its members are read here.
    read: list[str] = []
    member = read_entry_packed(zf, source, limits=limits, problems=read)
    if member is None:
        return read[0], declared
    return Member(label=source.label, name=source.name, data=member[0], packed=member[1]), declared
