"""DÖE exports streamed through parse workers: same records as in-process, bounded batches, bounded memory."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.conf import settings

from kernel.records import NoticeRecord
from sources.adapters.doe import DoeAdapter, ZipLimits
from sources.adapters.doe.join import member_kind
from sources.adapters.doe.ordered_join import StreamJoiner
from sources.adapters.doe.reading import Joined
from sources.adapters.doe.stream import BatchLimits, ExportStream, LooseFile
from sources.models import FetchRun
from tests.fixtures.processes import test_database_url

DATA = Path(__file__).resolve().parents[2] / "data" / "doe"
EXPORTS = DATA / "exports"
REAL_FILES = sorted(p for p in DATA.iterdir() if p.suffix in (".xml", ".json"))
OCDS_TEMPLATE = (
    DATA / "ocds_release-package_tender_3lots_value_subreport-docs_000ada85-c11f-44cf-b1e6-b4bb5232ed7b.json"
)
MIB = 2**20


def _stream(workers: int, **material) -> list:
    return list(ExportStream(**material, limits=ZipLimits(), batch=BatchLimits(), workers=workers).batches(scope="t"))


def _material() -> dict:
    return {
        "archives": [(p.name, p) for p in sorted(EXPORTS.glob("*.zip"))],
        "loose": [LooseFile(path=p, label=p.name) for p in REAL_FILES],
    }


def _same_batches(parallel: list, sequential: list) -> None:
    """The same records and problems in the same batches, in the same order."""
    assert [b.records for b in parallel] == [b.records for b in sequential]
    assert [b.problems for b in parallel] == [b.problems for b in sequential]


def test_parallel_parsing_gives_exactly_the_records_of_the_in_process_path() -> None:
    sequential = _stream(1, **_material())
    parallel = _stream(2, **_material())
    records = [r for b in sequential for r in b.records]
    assert records, "the shared fixtures must yield notices"
    _same_batches(parallel, sequential)


def test_archives_held_in_memory_give_the_records_of_archives_on_disk(monkeypatch, tmp_path) -> None:
    """A fetched day's ZIPs are bytes: spooled to a temporary file, the workers read them as they read ``--file``."""
    import tempfile

    # This test's own temporary folder: other test processes spool DÖE days at the same time.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    from sources.adapters.doe import reading

    on_disk = _material()["archives"]
    in_memory = [(label, path.read_bytes()) for label, path in on_disk]
    sequential = _stream(1, archives=on_disk)
    assert [r for b in sequential for r in b.records]
    _same_batches(_stream(1, archives=in_memory), sequential)
    spools_before = set(Path(tempfile.gettempdir()).glob("doe-export-*"))

    def not_here(*args, **kwargs):
        raise AssertionError("the writer read a member of a spooled archive")

    monkeypatch.setattr(reading, "read_entry_packed", not_here)  # the workers are other processes
    _same_batches(_stream(2, archives=in_memory), sequential)
    assert set(Path(tempfile.gettempdir()).glob("doe-export-*")) == spools_before  # removed with the stream


def test_an_archive_that_cannot_be_spooled_is_read_by_the_writer(monkeypatch) -> None:
    import tempfile

    on_disk = _material()["archives"]
    in_memory = [(label, path.read_bytes()) for label, path in on_disk]

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", disk_full)
    _same_batches(_stream(2, archives=in_memory), _stream(1, archives=on_disk))


def test_a_daemonic_process_reads_and_parses_in_its_workers(monkeypatch) -> None:
    """A Celery prefork child is daemonic: its workers read the archives, and the batches are the same."""
    import multiprocessing

    from sources.adapters.doe import reading

    sequential = _stream(1, **_material())
    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True)
    _same_batches(_stream(2, **_material()), sequential)
    assert not reading._OPENED  # the workers opened the archives, not this process


def _with_a_corrupt_member(tmp_path: Path) -> Path:
    """A DÖE export whose second member fails its CRC check when it is read (the directory is intact)."""
    buffer = io.BytesIO()
    body = OCDS_TEMPLATE.read_bytes()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("aaaa-01.json", body)
        archive.writestr("bbbb-01.json", body)
    data = bytearray(buffer.getvalue())
    second = data.index(b"bbbb-01.json") + len("bbbb-01.json")  # its local header, then its data
    data[second + 100] ^= 0xFF
    export = tmp_path / "2026-09-14_ocds.zip"
    export.write_bytes(bytes(data))
    return export


def test_a_member_that_cannot_be_extracted_is_reported_by_name_whichever_process_reads_it(tmp_path: Path) -> None:
    export = _with_a_corrupt_member(tmp_path)
    sequential = _stream(1, archives=[(export.name, export)])
    problems = [p for b in sequential for p in b.problems]
    assert any(p.startswith("2026-09-14_ocds.zip/bbbb-01.json: cannot be extracted:") for p in problems), problems
    _same_batches(_stream(2, archives=[(export.name, export)]), sequential)
    _same_batches(_stream(2, archives=[(export.name, export.read_bytes())]), sequential)


def _ocds_copies(n: int, *, description: str = "", first: int = 0) -> bytes:
    """n OCDS release packages (a real DÖE package with fresh ids), zipped as a DÖE export."""
    template = json.loads(OCDS_TEMPLATE.read_text(encoding="utf-8"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(first, first + n):
            package = json.loads(json.dumps(template))
            release = package["releases"][0]
            notice_id = f"00000000-0000-4000-8000-{i:012d}"
            release["id"] = notice_id
            release["ocid"] = f"ocds-mnwr74-{notice_id}"
            release.setdefault("tender", {})["id"] = notice_id
            if description:
                release.setdefault("tender", {})["description"] = description
            archive.writestr(f"{notice_id}-01.json", json.dumps(package))
    return buffer.getvalue()


def test_a_big_unit_is_written_in_bounded_batches_with_the_cursor_on_the_last(tmp_path: Path) -> None:
    export = tmp_path / "2026-09-14_ocds.zip"
    export.write_bytes(_ocds_copies(25))
    stream = ExportStream(
        archives=[(export.name, export)], limits=ZipLimits(), batch=BatchLimits(notices=10), workers=2
    )
    batches = list(stream.batches(scope="2026-09-14", bytes_read=123, requests=2, cursor={"last_day": "2026-09-14"}))
    assert [len(b.records) for b in batches] == [10, 10, 5]
    assert [b.cursor for b in batches] == [None] * (len(batches) - 1) + [{"last_day": "2026-09-14"}]
    assert batches[0].bytes == 123 and batches[0].requests == 2
    assert sum(b.bytes for b in batches) == 123
    ids = [r.source_notice_id for b in batches for r in b.records]
    assert ids == sorted(ids) and len(set(ids)) == 25


def test_a_broken_member_is_reported_by_name_and_the_others_are_kept(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("aaaa-01.json", b"{not json")
        archive.writestr("bbbb-01.xml", b"<html>no notice</html>")
    export = tmp_path / "x_ocds.zip"
    export.write_bytes(buffer.getvalue())
    real = LooseFile(path=REAL_FILES[0], label=REAL_FILES[0].name)
    batches = _stream(2, archives=[(export.name, export)], loose=[real])
    problems = [p for b in batches for p in b.problems]
    assert any(p.startswith("x_ocds.zip/aaaa-01.json: not a usable OCDS release package") for p in problems)
    assert any(p.startswith("x_ocds.zip/bbbb-01.xml: not a usable eForms notice") for p in problems)
    assert sum(len(b.records) for b in batches) == 1


def test_a_misnamed_file_written_after_its_partner_is_reported_not_joined_twice(tmp_path: Path) -> None:
    """The one documented difference from joining a whole day in memory: see sources/adapters/doe/stream.py."""
    ocds = json.loads(OCDS_TEMPLATE.read_text(encoding="utf-8"))
    notice_id = ocds["releases"][0]["id"]
    folder = tmp_path / "day"
    folder.mkdir()
    (folder / f"{notice_id}-01.json").write_text(json.dumps(ocds))
    (folder / "zzzz-01.json").write_text(json.dumps(ocds))  # the same notice under another name, sorted later
    loose = [LooseFile(path=p, label=p.name) for p in sorted(folder.iterdir())]
    batches = _stream(1, loose=loose)
    assert [r.source_notice_id for b in batches for r in b.records] == [notice_id]
    assert any("zzzz-01.json: notice" in p and "the first one is kept" in p for b in batches for p in b.problems)


def _import_peak_mb(export: Path, *, parallel_from: str, members: int) -> float:
    """Import ``export`` with ``manage.py ingest doe --file`` in a process of its own; its peak RSS in MiB.

    ``wait4`` gives the largest resident set of the process and its waited-for parse workers.
    """
    env = {**os.environ, "DATABASE_URL": test_database_url(), "SOURCES_PARSE_PARALLEL_MEMBERS": parallel_from}
    process = subprocess.Popen(
        [sys.executable, "manage.py", "ingest", "doe", "--file", str(export)],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, output
    assert f"succeeded: fetched {members}, new {members}" in output, output
    return usage.ru_maxrss / 1024


@pytest.mark.parametrize("parallel_from", ["0", "2000"], ids=["parse-workers", "in-process"])
def test_an_amplifying_archive_is_imported_in_memory_that_does_not_grow_with_it(
    tmp_path: Path, committed, parallel_from
) -> None:
    """Members that inflate to 2 MiB each: the import holds one batch of parsed records, not the archive.

    The same import of 20 members (40 MiB, more than one 32 MiB batch) and of 50 (100 MiB) peaks at the
    same memory: the 30 extra members (60 MiB inflated) may add less than half of their size. An import
    that held the archive, or its parsed records, would add at least all of it.
    """
    member = 2 * MIB
    description = "Leistungsbeschreibung " * (member // 22)
    assert BatchLimits().member_bytes < 20 * member  # the smaller import fills a batch too
    peaks = {}
    for members in (20, 50):
        export = tmp_path / f"{members}" / "2026-09-14_ocds.zip"
        export.parent.mkdir()
        export.write_bytes(_ocds_copies(members, description=description, first=len(peaks) * 1000))
        assert export.stat().st_size < MIB  # small on disk, members × 2 MiB inflated
        peaks[members] = _import_peak_mb(export, parallel_from=parallel_from, members=members)
        assert FetchRun.objects.filter(source__key="doe").latest("pk").new == members
    extra_mb = 30 * member / MIB
    assert peaks[50] - peaks[20] < extra_mb / 2, (
        f"peak RSS {peaks[20]:.0f} MB for 20 members, {peaks[50]:.0f} MB for 50"
    )


def test_workers_default_to_the_available_cores_and_follow_the_setting(settings) -> None:
    from sources.parallel import available_cores, parse_workers

    settings.SOURCES_PARSE_WORKERS = 0
    assert parse_workers() == available_cores()
    settings.SOURCES_PARSE_WORKERS = 1
    assert parse_workers() == 1


def test_the_adapter_streams_with_its_batch_limits(tmp_path: Path, monkeypatch) -> None:
    export = tmp_path / "2026-09-14_ocds.zip"
    export.write_bytes(_ocds_copies(12))
    monkeypatch.setattr(DoeAdapter, "batch_limits", BatchLimits(notices=5))
    from sources.adapters.base import SourceConfig

    batches = list(DoeAdapter().parse_files(config=SourceConfig(key="doe", adapter="doe", settings={}), paths=[export]))
    assert [len(b.records) for b in batches] == [5, 5, 2]


def _misnamed_first(tmp_path: Path) -> dict:
    """The real material plus a copy of one OCDS notice under a name that sorts before its own."""
    ocds = json.loads(OCDS_TEMPLATE.read_text(encoding="utf-8"))
    folder = tmp_path / "day"
    folder.mkdir()
    (folder / "0000-01.json").write_text(json.dumps(ocds))  # the notice under another name, sorted first
    material = _material()
    material["loose"] = [LooseFile(path=folder / "0000-01.json", label="0000-01.json"), *material["loose"]]
    return material


def test_groups_joined_where_they_are_parsed_equal_the_writers_join(tmp_path: Path, monkeypatch) -> None:
    """Workers join a notice's two files; the writer's own join of the same files gives the same batches."""
    from sources.adapters.doe import reading

    material = _misnamed_first(tmp_path)
    in_workers = _stream(2, **material)
    in_process = _stream(1, **material)
    monkeypatch.setattr(reading, "joined_group", lambda stem, parsed: None)  # every group joined by the writer
    by_the_writer = _stream(1, **material)
    _same_batches(in_workers, by_the_writer)
    _same_batches(in_process, by_the_writer)
    assert [r for b in by_the_writer for r in b.records]


def test_a_key_held_by_a_misnamed_file_is_joined_by_the_writer_from_the_files(tmp_path: Path) -> None:
    """The worker's join cannot know the earlier file: the writer reads the group again and reports the duplicate."""
    material = _misnamed_first(tmp_path)
    notice_id = json.loads(OCDS_TEMPLATE.read_text(encoding="utf-8"))["releases"][0]["id"]
    batches = _stream(2, **material)
    problems = [p for b in batches for p in b.problems]
    assert any(p.startswith(f"{OCDS_TEMPLATE.name}: notice {notice_id}") and "0000-01.json" in p for p in problems)
    assert [r.source_notice_id for b in batches for r in b.records].count(notice_id) == 1


def test_a_joined_group_is_refused_when_a_file_is_broken_or_doubled_or_holds_another_notice() -> None:
    from kernel.records import NoticeRecord
    from sources.adapters.doe.reading import ParsedMember, joined_group

    def member(name: str, kind: str, notice: str = "abc", problem: str = "") -> ParsedMember:
        records = () if problem else (NoticeRecord(source="doe", source_notice_id=notice, version="01"),)
        return ParsedMember(label=name, name=name, records=records, problem=problem, kind=kind)

    stem = ("abc", "01")
    assert joined_group(stem, [member("abc-01.xml", "eforms"), member("abc-01.json", "ocds")]) is not None
    assert joined_group(stem, [member("abc-01.xml", "eforms"), member("abc-01.json", "ocds", problem="bad")]) is None
    assert joined_group(stem, [member("abc-01.json", "ocds"), member("abc-01.json", "ocds")]) is None
    assert joined_group(stem, [member("abc-01.xml", "eforms", notice="other")]) is None
    assert joined_group(stem, [None, member("abc-01.json", "ocds")]) is None
    assert joined_group(None, [member("abc.json", "ocds")]) is None
    only = joined_group(stem, [member("abc-01.json", "ocds")])
    assert only.labels == (("ocds", "abc-01.json"),) and only.record.source_notice_id == "abc"


_WRITER_WITHOUT_WORD_LIST = """
import sys
import django
django.setup()
from datetime import datetime, timezone
from pathlib import Path
from sources.adapters.doe import ZipLimits
from sources.adapters.doe.stream import BatchLimits, ExportStream, LooseFile
from tenders.merging import compile_tender
files = [Path(p) for p in sys.argv[1:]]
stream = ExportStream(loose=[LooseFile(path=p, label=p.name) for p in files], limits=ZipLimits(), batch=BatchLimits(),
                      workers=2)
records = [r for b in stream.batches(scope="t") for r in b.records]
states = [compile_tender([r], now=datetime(2026, 11, 2, tzinfo=timezone.utc)) for r in records]
assert records and any(s.title_parts or s.search_parts for s in states), "the fixtures hold compounds"
assert "kernel.vocabulary.compound_frequencies" not in sys.modules, "the writer loaded the word list"
print("\\n".join(f"{s.title_parts}|{s.search_parts}" for s in states))
"""


def test_the_writer_compiles_tenders_from_words_the_workers_split(tmp_path: Path) -> None:
    """Splitting compounds needs a 600,000-word list: the parse workers split, the writer only looks up."""
    from datetime import UTC, datetime

    from tenders.merging import compile_tender

    files = [str(p) for p in REAL_FILES]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": test_database_url()}
    done = subprocess.run(
        [sys.executable, "-c", _WRITER_WITHOUT_WORD_LIST, *files],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    here = _stream(1, loose=[LooseFile(path=p, label=p.name) for p in REAL_FILES])
    now = datetime(2026, 11, 2, tzinfo=UTC)
    expected = [compile_tender([r], now=now) for b in here for r in b.records]
    assert done.stdout.splitlines() == [f"{s.title_parts}|{s.search_parts}" for s in expected]


def test_a_unit_below_the_threshold_is_parsed_in_process(caplog) -> None:
    """Starting the workers costs about a second: a small unit does not, and gives the same batches."""
    import logging

    material = _material()
    members = sum(1 for _ in material.get("loose", ())) + sum(
        len(zipfile.ZipFile(archive).namelist()) for _, archive in material.get("archives", ())
    )
    with caplog.at_level(logging.INFO, logger="sources.parallel"):
        below = _stream(2, parallel_from=members + 1, **material)
    assert not [r for r in caplog.records if "worker processes" in r.getMessage()]
    with caplog.at_level(logging.INFO, logger="sources.parallel"):
        at = _stream(2, parallel_from=members, **_material())
    assert [r for r in caplog.records if "parsing in 2 worker processes" in r.getMessage()]
    _same_batches(below, at)


def test_a_unit_whose_versions_are_all_stored_is_read_in_process(caplog) -> None:
    """Only members still to parse count towards the workers: a re-read day that is all stored starts none."""
    import logging

    first = _stream(1, archives=_material()["archives"])
    stored = {(notice.lower(), version): (notice, digest) for b in first for notice, version, digest in b.raw_hashes}
    assert stored

    def raw_versions(_source, keys):
        return {key: stored[key] for key in keys if key in stored}

    members = sum(len(zipfile.ZipFile(archive).namelist()) for _, archive in _material()["archives"])
    with caplog.at_level(logging.INFO, logger="sources.parallel"):
        again = _stream(2, archives=_material()["archives"], parallel_from=members, raw_versions=raw_versions)
    assert not [r for r in caplog.records if "worker processes" in r.getMessage()]
    assert sum(len(b.unchanged_raw) for b in again) == len(stored)
    assert not [r for b in again for r in b.records if (r.source_notice_id.lower(), r.version) in stored]


@pytest.mark.parametrize(
    ("name", "kind"), [("a/x-01.xml", "eforms"), ("X-01.XML", "eforms"), ("x-01.json", "ocds"), ("x-01.pdf", "")]
)
def test_a_members_kind_follows_its_file_name(name, kind):
    assert member_kind(name) == kind


def test_a_group_skipped_unparsed_counts_as_written_for_both_of_its_renditions():
    """A later group of the same key (a duplicate in the export) is then joined from its files, not taken."""
    joiner = StreamJoiner([])
    key = ("abc", "01")
    joiner.skipped(key, ["day eforms.zip/abc-01.xml", "day ocds.zip/abc-01.json", "day/abc-01.pdf"])
    record = NoticeRecord(source="doe", source_notice_id="abc", version="01")
    for kind in ("eforms", "ocds"):
        assert joiner.take_joined(key, Joined(record=record, labels=((kind, f"other/abc-01.{kind}"),))) is None
    assert joiner.take_joined(("abd", "01"), Joined(record=record, labels=(("eforms", "abd-01.xml"),))) == [record]
