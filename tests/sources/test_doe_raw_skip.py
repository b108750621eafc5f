"""Unchanged DÖE notices are skipped before parsing by a digest of their bytes (tenders.services.ingest_raw)."""

from __future__ import annotations

import shutil
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

import sources.adapters.doe.reading as reading
from kernel.vocabulary.time_zone import BERLIN
from sources.models import FetchRun
from sources.services import source_ingest_files
from tenders.models import TenderSource, TenderVersion
from tenders.selectors import tender_export_iter

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "doe" / "exports"
DAY = [EXPORTS / "2026-09-14_eforms.zip", EXPORTS / "2026-09-14_ocds.zip"]
PAIRED = "24d29507-f9dd-4712-aef0-9d864df3af8e"  # the one notice the day has in both renditions (7 files, 6 notices)


class _Parsed:
    """Counts the members parsed in this process (the export is small: below the workers' threshold)."""

    def __init__(self, monkeypatch):
        self.count = 0
        original = reading.parse_members

        def counting(members):
            self.count += len(members)
            return original(members)

        monkeypatch.setattr(reading, "parse_members", counting)


def _row_versions() -> dict[int, str]:
    """Each tender row's xmin: it changes with every UPDATE of the row."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT id, xmin::text FROM tenders_tender")
        return dict(cursor.fetchall())


def _ingest(paths=DAY, batches=None) -> FetchRun:
    outcome = source_ingest_files(source_key="doe", paths=list(paths), on_batch=batches)
    run = FetchRun.objects.get(pk=outcome.run.pk)
    assert run.status == "succeeded", run.error
    return run


@pytest.mark.django_db
def test_an_unchanged_export_is_not_parsed_again_and_its_notices_are_marked_seen(monkeypatch):
    first = _ingest()
    assert (first.fetched, first.new) == (6, 6)
    assert all(":" in raw for raw in TenderVersion.objects.values_list("raw_hash", flat=True))
    stored = list(TenderVersion.objects.order_by("id").values_list("id", "record", "content_hash", "raw_hash"))
    earlier = timezone.now() - timedelta(days=3)
    TenderSource.objects.update(last_seen_at=earlier)
    written = _row_versions()

    parsed = _Parsed(monkeypatch)
    batches = []
    again = _ingest(batches=batches.append)
    assert parsed.count == 0
    assert (again.fetched, again.new, again.changed, again.unchanged, again.failed) == (6, 0, 0, 6, 0)
    assert sum(len(batch.records) for batch in batches) == 0
    assert sum(len(batch.unchanged_raw) for batch in batches) == 6
    assert list(TenderVersion.objects.order_by("id").values_list("id", "record", "content_hash", "raw_hash")) == stored
    assert not TenderSource.objects.filter(last_seen_at=earlier).exists()
    # Seen again, not written again: no tender row was updated (its search vector would be computed anew); the
    # tender's last sighting is its sources'.
    assert _row_versions() == written
    seen = {
        t: s.astimezone(BERLIN).isoformat() for t, s in TenderSource.objects.values_list("tender_id", "last_seen_at")
    }
    assert {t["id"]: t["last_seen_at"] for t in tender_export_iter()} == seen


@pytest.mark.django_db
def test_a_parser_change_parses_everything_once_more(monkeypatch):
    _ingest()
    monkeypatch.setattr(reading, "PARSE_VERSION", reading.PARSE_VERSION + 1)
    parsed = _Parsed(monkeypatch)
    again = _ingest()
    assert parsed.count == 7 and (again.new, again.unchanged) == (0, 6)
    parsed.count = 0
    _ingest()
    assert parsed.count == 0


@pytest.mark.django_db
def test_a_version_rewritten_since_is_parsed_again(monkeypatch):
    _ingest()
    version = TenderVersion.objects.get(source_notice_id=PAIRED)
    TenderVersion.objects.filter(pk=version.pk).update(content_hash="rewritten by another file")
    parsed = _Parsed(monkeypatch)
    _ingest()
    assert parsed.count == 2  # that notice's eForms XML and OCDS release; the other five notices are skipped
    version.refresh_from_db()
    assert version.raw_hash.endswith(":" + version.content_hash)


@pytest.mark.django_db
def test_changed_bytes_of_a_known_version_are_parsed(monkeypatch, tmp_path):
    _ingest()
    with zipfile.ZipFile(DAY[0]) as source, zipfile.ZipFile(tmp_path / "2026-09-14_eforms.zip", "w") as changed:
        for info in source.infolist():
            data = source.read(info)
            changed.writestr(info.filename, data + b"\n" if info.filename.startswith(PAIRED) else data)
    shutil.copy(DAY[1], tmp_path / DAY[1].name)
    parsed = _Parsed(monkeypatch)
    again = _ingest(paths=[tmp_path / "2026-09-14_eforms.zip", tmp_path / DAY[1].name])
    assert parsed.count == 2 and (again.new, again.unchanged) == (0, 6)


@pytest.mark.django_db
def test_an_unchanged_export_is_known_without_inflating_a_member(monkeypatch):
    _ingest()

    def inflating(*args, **kwargs):
        raise AssertionError("a member of an unchanged day was inflated")

    # Known by each member's compressed bytes (their digest as stored), read but never inflated.
    monkeypatch.setattr(reading, "read_direct_packed", inflating)
    monkeypatch.setattr(reading, "read_entry_packed", inflating)
    parsed = _Parsed(monkeypatch)
    again = _ingest()
    assert parsed.count == 0 and (again.new, again.unchanged) == (0, 6)


@pytest.mark.django_db
def test_an_export_compressed_anew_is_known_by_its_bytes(monkeypatch, tmp_path):
    _ingest()
    copies = []
    for path in DAY:
        copy = tmp_path / path.name
        with zipfile.ZipFile(path) as source, zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
            for info in source.infolist():
                out.writestr(info.filename, source.read(info))
        copies.append(copy)
    parsed = _Parsed(monkeypatch)
    again = _ingest(paths=copies)
    assert parsed.count == 0 and (again.new, again.changed, again.unchanged) == (0, 0, 6)


def test_a_members_fingerprint_is_its_stored_bytes_and_method():
    from sources.adapters.doe.archive import packed_fingerprint

    info = zipfile.ZipInfo("a-01.xml")
    info.compress_type, info.file_size, info.CRC = zipfile.ZIP_DEFLATED, 10, 123
    same = packed_fingerprint(info, b"\x01\x02")
    assert packed_fingerprint(info, b"\x01\x02") == same
    assert packed_fingerprint(info, b"\x01\x03") != same
    info.compress_type = zipfile.ZIP_STORED
    assert packed_fingerprint(info, b"\x01\x02") != same
