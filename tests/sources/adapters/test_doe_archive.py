"""Reading members of a DÖE export: the direct reader gives zipfile's bytes, or leaves the member to zipfile."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from sources.adapters.doe.archive import ZipLimits, archive_entries, open_archive, read_direct, read_entry

BODY = ("<ContractNotice>" + "Unterhaltsreinigung der Grundschule Musterstadt. " * 400 + "</ContractNotice>").encode()


def _archive(method: int = zipfile.ZIP_DEFLATED, *, name: str = "aaaa-01.xml", body: bytes = BODY) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("zzzz-01.json", b"{}")
        archive.writestr(name, body)
        archive.writestr("yyyy-01.xml", b"<x/>")
    return buffer.getvalue()


def _entry(data: bytes, name: str = "aaaa-01.xml"):
    zf = open_archive(data, label="day.zip")
    entries = archive_entries(zf, label="day.zip", limits=ZipLimits(), problems=[])
    return zf, next(e for e in entries if e.name == name)


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
def test_direct_reading_gives_the_bytes_zipfile_gives(method: int, tmp_path: Path) -> None:
    data = _archive(method)
    zf, entry = _entry(data)
    assert read_direct(zf.fp, entry.info) == zf.read(entry.info) == BODY
    on_disk = tmp_path / "day.zip"
    on_disk.write_bytes(data)
    with open(on_disk, "rb", buffering=0) as handle:
        assert read_direct(handle, entry.info) == BODY  # only the directory entry is needed


@pytest.mark.parametrize("central_extra", [b"", b"\x99\x99\x02\x00ab"])
def test_a_local_extra_field_the_directory_does_not_announce_is_read_too(central_extra: bytes) -> None:
    # Header, name and data are read in one piece sized by the directory's entry; a local header with a longer
    # (or other) extra field than the directory says needs the rest read once more.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo("aaaa-01.xml")
        info.compress_type = zipfile.ZIP_DEFLATED
        info.extra = b"\x99\x99\x10\x00" + b"x" * 16
        archive.writestr(info, BODY)
    zf, entry = _entry(buffer.getvalue())
    entry.info.extra = central_extra
    assert read_direct(zf.fp, entry.info) == BODY


def test_a_non_ascii_member_name_is_checked_against_its_local_header() -> None:
    zf, entry = _entry(_archive(name="ä-01.xml"), name="ä-01.xml")
    assert read_direct(zf.fp, entry.info) == BODY


def _flip(data: bytes, marker: bytes, offset: int) -> bytes:
    changed = bytearray(data)
    changed[data.index(marker) + offset] ^= 0xFF
    return bytes(changed)


def test_a_bad_crc_is_left_to_zipfile_which_names_the_problem() -> None:
    data = _archive(zipfile.ZIP_STORED)
    broken = _flip(data, b"aaaa-01.xml" + b"<ContractNotice>", len("aaaa-01.xml") + 50)  # the member's data
    zf, entry = _entry(broken)
    assert read_direct(zf.fp, entry.info) is None
    problems: list[str] = []
    assert read_entry(zf, entry, limits=ZipLimits(), problems=problems) is None
    assert problems == [f"day.zip/aaaa-01.xml: cannot be extracted: Bad CRC-32 for file {'aaaa-01.xml'!r}"]


def test_a_local_header_that_disagrees_with_the_directory_is_left_to_zipfile() -> None:
    data = _archive()
    local_name = data.index(b"aaaa-01.xml")  # the first occurrence is the local header's
    renamed = data[:local_name] + b"bbbb" + data[local_name + 4 :]
    zf, entry = _entry(renamed)
    assert read_direct(zf.fp, entry.info) is None
    problems: list[str] = []
    assert read_entry(zf, entry, limits=ZipLimits(), problems=problems) is None
    assert problems and "File name in directory 'aaaa-01.xml' and header b'bbbb-01.xml' differ" in problems[0]


def test_a_wrong_signature_and_a_member_shorter_than_declared_are_refused() -> None:
    data = _archive()
    zf, entry = _entry(data)
    signature = entry.info.header_offset
    no_signature = data[:signature] + b"XX" + data[signature + 2 :]
    zf, entry = _entry(no_signature)
    assert read_direct(zf.fp, entry.info) is None
    zf, entry = _entry(data)
    entry.info.file_size += 1  # the stream ends before the declared size
    assert read_direct(zf.fp, entry.info) is None


def test_a_compressed_size_no_deflate_stream_can_have_is_not_read_in_one_piece() -> None:
    zf, entry = _entry(_archive())
    entry.info.compress_size = 2**40  # a claim, not a size: reading it would allocate a terabyte
    assert read_direct(zf.fp, entry.info) is None


def test_other_methods_and_closed_archives_are_left_to_zipfile() -> None:
    zf, entry = _entry(_archive(zipfile.ZIP_BZIP2))
    assert read_direct(zf.fp, entry.info) is None
    assert read_entry(zf, entry, limits=ZipLimits(), problems=[]) == BODY  # zipfile reads it
    zf.close()
    assert read_direct(zf.fp, entry.info) is None
    problems: list[str] = []
    assert read_entry(zf, entry, limits=ZipLimits(), problems=problems) is None
    assert problems and problems[0].startswith("day.zip/aaaa-01.xml: cannot be extracted:")
