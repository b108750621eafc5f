"""Reading DÖE export ZIPs without trusting them.

Why: an export is a ZIP with one file per notice version, downloaded from the internet or
handed to ``manage.py ingest --file``. A ZIP can claim anything: a million members, members
that inflate from kilobytes to gigabytes ("zip bombs"), names such as ``../../etc/passwd``,
encrypted or corrupt entries. Nothing is ever extracted to disk (member names are only
labels); members are decompressed into memory one at a time, bounded by :class:`ZipLimits`.

Rules:

* The archive cannot be opened (not a ZIP, truncated central directory):
  ``AdapterError(reason="bad_zip")``. The caller decides whether that ends the run.
* More than ``max_members`` entries, or declared sizes of the members to read adding up to
  more than ``max_total_bytes``: ``AdapterError(reason="zip_too_large")`` before anything is
  decompressed.
* Per member, a problem entry ``"<archive>/<member>: reason"`` while the other members are
  still read: absolute names, drive letters, ``..`` segments and control characters are
  refused; anything but ``.xml``/``.json`` (nested ZIPs included) is unsupported; encrypted
  members, members whose declared size exceeds ``max_member_bytes`` and members that fail
  to decompress (bad CRC, unsupported method, overlapping entries) are skipped.
  Directories and macOS ``__MACOSX/`` resource forks are skipped silently.
* The declared size in the header is attacker-controlled, so it is only a first filter:
  every member is read with ``read(max_member_bytes + 1)`` and dropped if it yields more.
  (CPython's ``zipfile`` also stops at the declared size and then fails the CRC check.)

Reading a member: a stored or deflated member is read straight from its offset (the local
header checked: signature and name as the central directory has them) and inflated with zlib;
its bytes are used only if they are exactly as long as declared and match the CRC-32. Anything
else (another method, a short or long stream, a bad CRC, a header that disagrees) is read once
more through ``zipfile``, whose error is the problem reported. Why: ``zipfile``'s reader costs
about as much as inflating the member, and a day's export has thousands; a reader that only
knows the member's directory entry also needs no parsed central directory of its own.

Limits: ``zipfile`` parses the whole central directory before the member cap applies; its
size is bounded by the archive size (the Fetcher's ``max_body_bytes`` for downloads). Nested
archives are not opened. Members are identified by their base name; the folder part of a
member name is ignored.
"""

from __future__ import annotations

import io
import os
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from hashlib import blake2b
from pathlib import Path

from sources.adapters.errors import AdapterError

__all__ = [
    "NOTICE_SUFFIXES",
    "Entry",
    "Member",
    "ZipLimits",
    "archive_entries",
    "open_archive",
    "packed_fingerprint",
    "read_direct",
    "read_direct_packed",
    "read_entry",
    "read_entry_packed",
    "read_packed",
    "read_members",
]

MIB = 1024 * 1024
NOTICE_SUFFIXES = (".xml", ".json")
_DRIVE = re.compile(r"^[A-Za-z]:")
# Errors zipfile raises for one broken member; the archive as a whole stays usable.
_MEMBER_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, NotImplementedError, RuntimeError)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# The local file header (APPNOTE 4.3.7): signature, versions, flags, method, time, date, CRC,
# sizes, name and extra lengths.
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_UTF8_NAME = 0x800


@dataclass(frozen=True)
class ZipLimits:
    # A busy DÖE day has a few thousand notice versions; 50,000 is far beyond any real export.
    max_members: int = 50_000
    # The largest real eForms notices (many lots) are a few MiB.
    max_member_bytes: int = 20 * MIB
    max_total_bytes: int = 2048 * MIB


@dataclass(frozen=True)
class Member:
    label: str  # for messages: "<archive>/<member name>"
    name: str  # base name, e.g. "24d29507-f9dd-4712-aef0-9d864df3af8e-01.xml"; the join uses its stem
    data: bytes
    # The fingerprint of the member as stored in its archive (``packed_fingerprint``); "" for a loose file
    # or a member ``zipfile`` had to read.
    packed: str = ""


def safe_base_name(name: str) -> str | None:
    """The member's base name, or None for a name that tries to leave the archive."""
    if not name or _CONTROL.search(name):
        return None
    path = name.replace("\\", "/")
    if path.startswith("/") or _DRIVE.match(path):
        return None
    parts = path.split("/")
    if ".." in parts:
        return None
    return parts[-1] or None


def read_members(archive: bytes | Path, *, label: str, limits: ZipLimits, problems: list[str]) -> Iterator[Member]:
    """Yield the notice files of ``archive`` (bytes or a path); append per-member problems.

    Raises AdapterError with reason "bad_zip" or "zip_too_large" (see module docstring); the
    message starts with ``label``.
    """
    with open_archive(archive, label=label) as zf:
        for entry in archive_entries(zf, label=label, limits=limits, problems=problems):
            data = read_entry(zf, entry, limits=limits, problems=problems)
            if data is not None:
                yield Member(label=entry.label, name=entry.name, data=data)


@dataclass(frozen=True)
class Entry:
    """A member worth reading, not yet read (the central directory says what it is)."""

    label: str  # "<archive>/<member name>"
    name: str  # base name
    info: zipfile.ZipInfo


def open_archive(archive: bytes | Path, *, label: str) -> zipfile.ZipFile:
    """The archive, opened for random access; AdapterError(reason="bad_zip") if it cannot be read."""
    source = io.BytesIO(archive) if isinstance(archive, (bytes, bytearray)) else archive
    try:
        return zipfile.ZipFile(source)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
        raise AdapterError(f"{label}: not a readable ZIP archive ({exc})", reason="bad_zip") from exc


def archive_entries(zf: zipfile.ZipFile, *, label: str, limits: ZipLimits, problems: list[str]) -> list[Entry]:
    """The members to read, checked against the archive-wide caps before anything is decompressed."""
    infos = zf.infolist()
    if len(infos) > limits.max_members:
        raise AdapterError(
            f"{label}: {len(infos)} members, more than the cap of {limits.max_members}; refusing the archive",
            reason="zip_too_large",
        )
    wanted = list(_acceptable(infos, label=label, limits=limits, problems=problems))
    declared = sum(info.file_size for info, _ in wanted)
    if declared > limits.max_total_bytes:
        raise AdapterError(
            f"{label}: members declare {declared} bytes uncompressed, more than the cap of "
            f"{limits.max_total_bytes}; refusing the archive (zip bomb?)",
            reason="zip_too_large",
        )
    return [Entry(label=f"{label}/{info.filename}", name=base, info=info) for info, base in wanted]


def read_entry(zf: zipfile.ZipFile, entry: Entry, *, limits: ZipLimits, problems: list[str]) -> bytes | None:
    """The member's bytes, or None with a problem when it cannot be extracted or inflates past the cap.

    The declared sizes were checked by :func:`archive_entries`; zipfile stops at the declared size
    and then fails the CRC check, so the sum of what is read stays within ``max_total_bytes``.
    """
    read = read_entry_packed(zf, entry, limits=limits, problems=problems)
    return None if read is None else read[0]


def read_entry_packed(
    zf: zipfile.ZipFile, entry: Entry, *, limits: ZipLimits, problems: list[str]
) -> tuple[bytes, str] | None:
    """``read_entry``'s bytes with their ``packed_fingerprint`` ("" when ``zipfile`` had to read them)."""
    read = read_direct_packed(zf.fp, entry.info)
    if read is not None:
        return read
    try:
        with zf.open(entry.info) as handle:
            data = handle.read(limits.max_member_bytes + 1)
    except _MEMBER_ERRORS as exc:
        problems.append(f"{entry.label}: cannot be extracted: {exc}")
        return None
    if len(data) > limits.max_member_bytes:
        problems.append(
            f"{entry.label}: inflates to more than the per-file cap of {limits.max_member_bytes} bytes "
            f"(declared {entry.info.file_size}); skipped (zip bomb?)"
        )
        return None
    return data, ""


def read_direct(source, info: zipfile.ZipInfo) -> bytes | None:
    """The member's bytes read at its offset and inflated here, or None: then ``zipfile`` reads it.

    ``source``: the archive's open file (read with ``os.pread``, so a shared position is never
    moved) or the ``BytesIO`` of an archive held in memory. The caller has checked the declared
    size against the caps; the output is never longer than declared.
    """
    read = read_direct_packed(source, info)
    return None if read is None else read[0]


def read_direct_packed(source, info: zipfile.ZipInfo) -> tuple[bytes, str] | None:
    """``read_direct``'s bytes and the fingerprint of the member as stored (``packed_fingerprint``)."""
    raw = read_packed(source, info)
    if raw is None:
        return None
    try:
        data = zlib.decompressobj(-15).decompress(raw, info.file_size + 1) if info.compress_type else raw
    except zlib.error:
        return None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        return None
    return data, packed_fingerprint(info, raw)


def packed_fingerprint(info: zipfile.ZipInfo, raw: bytes) -> str:
    """Who the member is as stored: its method, sizes, CRC and compressed bytes, digested without inflating.

    Equal stored bytes under the same method inflate to equal bytes, so a re-delivered archive's unchanged
    members are known without inflating them (a day of DÖE is 10,000 members, ~100 MB inflated). An archive
    compressed anew gives other fingerprints: its members are read and parsed once more, never skipped wrongly.
    """
    digest = blake2b(b"%d:%d:%d:%08x\0" % (info.compress_type, info.file_size, len(raw), info.CRC), digest_size=16)
    digest.update(raw)
    return digest.hexdigest()


def read_packed(source, info: zipfile.ZipInfo) -> bytes | None:
    """The member's compressed bytes at its offset, or None where ``zipfile`` must decide (see ``read_direct``)."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) or info.flag_bits & 0x1:
        return None
    # The compressed size is the archive's claim too: deflate never grows data by more than a few
    # bytes per 16 KiB block, so a larger claim is not read in one piece (zipfile reads it in chunks).
    if info.compress_size > info.file_size + (info.file_size >> 6) + 1024:
        return None
    try:
        # One read for header, name and data where the local header is as long as the directory's entry
        # suggests (the usual case): a day's 10,000 members cost 10,000 reads, not 30,000.
        guess = _LOCAL_HEADER.size + len(info.orig_filename.encode()) + len(info.extra)
        chunk = _read_at(source, info.header_offset, guess + info.compress_size)
        if chunk is None or len(chunk) < _LOCAL_HEADER.size:
            return None
        fields = _LOCAL_HEADER.unpack_from(chunk)
        if fields[0] != _LOCAL_SIGNATURE:
            return None
        name_length, extra_length = fields[10], fields[11]
        start = _LOCAL_HEADER.size + name_length + extra_length
        if start + info.compress_size > len(chunk):  # a longer local extra field: read what is missing
            more = _read_at(source, info.header_offset + len(chunk), start + info.compress_size - len(chunk))
            chunk += more or b""
        encoding = "utf-8" if fields[3] & _UTF8_NAME else "cp437"
        if chunk[_LOCAL_HEADER.size : _LOCAL_HEADER.size + name_length].decode(encoding) != info.orig_filename:
            return None
        raw = chunk[start : start + info.compress_size]
    except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
        return None
    if len(raw) != info.compress_size:
        return None
    return raw


def _read_at(source, offset: int, size: int) -> bytes | None:
    if isinstance(source, io.BytesIO):
        with source.getbuffer() as view:
            return bytes(view[offset : offset + size])
    try:
        descriptor = source.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return os.pread(descriptor, size, offset)


def _acceptable(
    infos: list[zipfile.ZipInfo], *, label: str, limits: ZipLimits, problems: list[str]
) -> Iterator[tuple[zipfile.ZipInfo, str]]:
    """Members worth reading, with their base names; everything else is skipped (most with a problem)."""
    for info in infos:
        name = info.filename
        where = f"{label}/{name}"
        if info.is_dir() or name.replace("\\", "/").startswith("__MACOSX/"):
            continue
        base = safe_base_name(name)
        if base is None:
            problems.append(f"{label}/{name!r}: unsafe member name (absolute path or '..'); refused")
        elif not base.lower().endswith(NOTICE_SUFFIXES):
            problems.append(f"{where}: unsupported file type (expected .xml or .json, nested archives unsupported)")
        elif info.flag_bits & 0x1:
            problems.append(f"{where}: encrypted member; skipped")
        elif info.file_size > limits.max_member_bytes:
            problems.append(
                f"{where}: declared size {info.file_size} bytes exceeds the per-file cap of "
                f"{limits.max_member_bytes} bytes; skipped unread (zip bomb?)"
            )
        else:
            yield info, base
