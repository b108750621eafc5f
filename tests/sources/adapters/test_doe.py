"""DÖE adapter against a real local HTTP server and the real Fetcher, with real DÖE data.

The export ZIPs in ``tests/data/doe/exports`` are built from the real fixtures (see the
README there; one OCDS package is derived so that a notice exists in both formats).
Hostile archives (corrupt, bombs, traversal names) are built per test. No database.
"""

from __future__ import annotations

import dataclasses
import io
import shutil
import struct
import zipfile
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from pytest_httpserver import HTTPServer

from kernel.network import Blocked, Fetcher, FetchPolicy, HttpStatusError
from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import AdapterError, FetchedBatch, SourceConfig
from sources.adapters.doe import DoeAdapter, ZipLimits, days_to_fetch, join_doe_records, stem_key
from sources.parsers.eforms import parse_eforms
from sources.parsers.ocds import parse_ocds_package
from sources.registry import get_adapter, validate_source_settings
from tests.fixtures.network import loopback_resolver

DOE = Path(__file__).resolve().parents[2] / "data" / "doe"
OCDS_AWARD = DOE / "ocds_release-package_award_single-supplier_contract_00725bdd-1ad2-4de5-b6c2-ab6113dabd5f.json"
EXPORTS = DOE / "exports"
EFORMS_ZIP = EXPORTS / "2026-09-14_eforms.zip"
OCDS_ZIP = EXPORTS / "2026-09-14_ocds.zip"
MPI_XML = DOE / "eforms-de-2.1_cn-standard_16_24d29507-f9dd-4712-aef0-9d864df3af8e-01.xml"
DAY = "2026-09-14"
MPI = "24d29507-f9dd-4712-aef0-9d864df3af8e"
MPI_PROCEDURE = "e2530ce2-555c-4a3f-81f1-0bf04a1ee9a5"
# 08:00 Berlin on 2026-09-15: yesterday (2026-09-14) is the newest closed day.
NOW = datetime(2026, 9, 15, 8, 0, tzinfo=BERLIN)
EXPECTED_IDS = [
    ("000ada85-c11f-44cf-b1e6-b4bb5232ed7b", "01"),
    ("00725bdd-1ad2-4de5-b6c2-ab6113dabd5f", "01"),
    ("008b7d74-6c76-412e-bf72-67ca753055aa", "01"),
    ("010f171c-7d99-4e3a-b573-94b6d635a592", "01"),
    ("17750180", "01"),
    (MPI, "01"),
]
MIB = 1024 * 1024


# -- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    policy = FetchPolicy(
        allowed_hosts=frozenset({"localhost", "127.0.0.1"}),
        allow_loopback=True,
        min_delay_seconds=0,
        jitter_seconds=0,
        respect_robots=True,
    )
    with Fetcher(policy, sleep=lambda s: None, resolver=loopback_resolver) as client:
        yield client


@pytest.fixture
def server(httpserver: HTTPServer) -> HTTPServer:
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n", content_type="text/plain")
    return httpserver


def config(httpserver: HTTPServer, cursor: dict | None = None, **settings: object) -> SourceConfig:
    values = {"base_url": httpserver.url_for(""), "allowed_hosts": ["localhost", "127.0.0.1"], **settings}
    return SourceConfig(key="doe", adapter="doe", settings=values, cursor=cursor or {})


def serve_day(httpserver: HTTPServer, day: str, *, ocds: bytes | int = 404, eforms: bytes | int = 404) -> None:
    """Answer the day's two exports: bytes as a 200 ZIP, an int as that status with an empty body."""
    for export_format, answer in (("ocds.zip", ocds), ("eforms.zip", eforms)):
        handler = httpserver.expect_request(
            "/api/notice-exports", query_string={"pubDay": day, "format": export_format}
        )
        if isinstance(answer, int):
            handler.respond_with_data(b"", status=answer)
        else:
            mime = f"application/vnd.bekanntmachungsservice.{export_format}+zip"
            handler.respond_with_data(answer, content_type=mime)


def export_requests(httpserver: HTTPServer) -> list[str]:
    return [request.query_string.decode() for request, _ in httpserver.log if request.path == "/api/notice-exports"]


def run(httpserver: HTTPServer, fetcher: Fetcher, now: datetime = NOW, **kwargs: object) -> list[FetchedBatch]:
    return list(DoeAdapter().fetch(config=config(httpserver, **kwargs), fetcher=fetcher, now=now))


def make_zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def by_id(batch: FetchedBatch) -> dict[str, NoticeRecord]:
    return {record.source_notice_id: record for record in batch.records}


@pytest.fixture(scope="module")
def bomb_member() -> bytes:
    """21 MiB of zeros: deflates to ~21 KB, inflates past the 20 MiB per-file cap."""
    return bytes(21 * MIB)


# -- day selection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "newest"),
    [
        (datetime(2026, 9, 14, 22, 30, tzinfo=UTC), date(2026, 9, 14)),  # 00:30 Berlin on the 15th
        (datetime(2026, 9, 14, 21, 59, tzinfo=UTC), date(2026, 9, 13)),  # 23:59 Berlin: the 14th is today
        (datetime(2026, 12, 1, 23, 30, tzinfo=UTC), date(2026, 12, 1)),  # winter time: 00:30 CET on the 2nd
        (datetime(2026, 12, 1, 22, 59, tzinfo=UTC), date(2026, 11, 30)),
    ],
)
def test_newest_day_is_yesterday_in_berlin(now: datetime, newest: date) -> None:
    assert days_to_fetch(now=now, cursor={}, start_day=None, max_days=3) == [newest]
    assert days_to_fetch(now=now, cursor={"last_day": newest.isoformat()}, start_day=None, max_days=3) == []


def test_fetch_just_after_midnight_berlin_fetches_the_day_that_just_closed(server, fetcher) -> None:
    serve_day(server, DAY)
    batches = run(server, fetcher, now=datetime(2026, 9, 14, 22, 30, tzinfo=UTC), start_day=DAY)
    assert [b.scope for b in batches] == [DAY]
    assert batches[0].cursor == {"last_day": DAY}


def test_fetch_just_before_midnight_berlin_never_asks_for_today(server, fetcher) -> None:
    batches = run(server, fetcher, now=datetime(2026, 9, 14, 21, 59, tzinfo=UTC), start_day=DAY)
    assert batches == []
    assert export_requests(server) == []


def test_cursor_continues_with_the_next_day(server, fetcher) -> None:
    for day in ("2026-09-12", "2026-09-13", DAY):
        serve_day(server, day)
    batches = run(server, fetcher, cursor={"last_day": "2026-09-11"}, start_day="2026-01-01")
    assert [b.scope for b in batches] == ["2026-09-12", "2026-09-13", DAY]  # cursor beats start_day
    assert [b.cursor for b in batches] == [{"last_day": d} for d in ("2026-09-12", "2026-09-13", DAY)]


def test_max_days_per_run_caps_the_run(server, fetcher) -> None:
    for day in ("2026-09-02", "2026-09-03"):
        serve_day(server, day)
    batches = run(server, fetcher, cursor={"last_day": "2026-09-01"}, max_days_per_run=2)
    assert [b.scope for b in batches] == ["2026-09-02", "2026-09-03"]
    assert {q.split("&")[0] for q in export_requests(server)} == {"pubDay=2026-09-02", "pubDay=2026-09-03"}


def test_up_to_date_cursor_makes_no_request(server, fetcher) -> None:
    assert run(server, fetcher, cursor={"last_day": DAY}) == []
    assert server.log == []


def test_default_start_is_yesterday(server, fetcher) -> None:
    serve_day(server, DAY)
    assert [b.scope for b in run(server, fetcher)] == [DAY]


def test_bad_cursor_and_naive_now_are_refused(server, fetcher) -> None:
    with pytest.raises(AdapterError) as excinfo:
        run(server, fetcher, cursor={"last_day": "14.09.2026"})
    assert excinfo.value.reason == "bad_cursor"
    with pytest.raises(ValueError, match="timezone-aware"):
        run(server, fetcher, now=datetime(2026, 9, 15, 8, 0))


# -- fetch: formats, join, empty days ---------------------------------------------------------


def test_fetch_requests_both_formats_and_joins_by_stem(server, fetcher) -> None:
    serve_day(server, DAY, ocds=OCDS_ZIP.read_bytes(), eforms=EFORMS_ZIP.read_bytes())
    [batch] = run(server, fetcher)

    assert export_requests(server) == [f"pubDay={DAY}&format=ocds.zip", f"pubDay={DAY}&format=eforms.zip"]
    assert (batch.scope, batch.cursor, batch.requests, batch.problems) == (DAY, {"last_day": DAY}, 2, ())
    assert batch.bytes == OCDS_ZIP.stat().st_size + EFORMS_ZIP.stat().st_size
    assert [(r.source_notice_id, r.version) for r in batch.records] == EXPECTED_IDS
    assert {r.source for r in batch.records} == {"doe"}

    mpi = by_id(batch)[MPI]
    assert mpi.submission_deadline == datetime(2026, 10, 20, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert mpi.ocid == f"ocds-mnwr74-{MPI_PROCEDURE}"  # only the OCDS rendition has it
    assert mpi.procedure_id == MPI_PROCEDURE  # eForms ContractFolderID, not the OCDS tender.id
    assert mpi.title == "MICADO Integral Field Unit II"  # eForms text first
    assert mpi.cpv_codes == ("38433000", "34144210")  # union, eForms first
    assert mpi.portal_references == ("netserver:54321-Tender-1a09ee5f4b7-72f9ab694e623ec2",)
    assert mpi.url == f"https://oeffentlichevergabe.de/ui/de/search/details?noticeId={MPI}"
    assert set(mpi.payload) == {"format", "eforms", "ocds"}


def test_mixed_eforms_profiles_and_single_format_notices(server, fetcher) -> None:
    serve_day(server, DAY, ocds=OCDS_ZIP.read_bytes(), eforms=EFORMS_ZIP.read_bytes())
    records = by_id(run(server, fetcher)[0])
    legacy = records["17750180"]  # eforms-sdk-0.1, file 17750180-1.xml, no OCDS counterpart
    assert (legacy.version, legacy.ocid, legacy.payload["eforms"]["customization"]) == ("01", None, "eforms-sdk-0.1")
    assert legacy.portal_references == ("cosinex:CXP4Y9PRGS5",)
    assert records[MPI].payload["eforms"]["customization"] == "eforms-de-2.1"
    ocds_only = records["000ada85-c11f-44cf-b1e6-b4bb5232ed7b"]
    assert ocds_only.ocid == "ocds-mnwr74-3388307f-365f-4502-a18d-41661ae47e9e"
    assert ocds_only.submission_deadline is None  # DÖE's OCDS has no tenderPeriod
    assert ocds_only.estimated_value == Decimal("500000.0")
    assert set(ocds_only.payload) == {"format", "ocds"}


EMPTY_ZIP = make_zip({})


@pytest.mark.parametrize(
    ("ocds", "eforms"), [(404, 404), (204, 204), (b"", b""), (EMPTY_ZIP, EMPTY_ZIP), (404, EMPTY_ZIP)]
)
def test_day_without_notices_is_an_empty_batch(server, fetcher, ocds, eforms) -> None:
    serve_day(server, DAY, ocds=ocds, eforms=eforms)
    [batch] = run(server, fetcher)
    assert (batch.records, batch.problems, batch.requests, batch.cursor) == ((), (), 2, {"last_day": DAY})


def test_one_format_missing_still_yields_the_other(server, fetcher) -> None:
    serve_day(server, DAY, ocds=404, eforms=EFORMS_ZIP.read_bytes())
    [batch] = run(server, fetcher)
    assert [r.source_notice_id for r in batch.records] == ["17750180", MPI]
    assert by_id(batch)[MPI].ocid is None


def test_other_http_errors_propagate(server, fetcher) -> None:
    serve_day(server, DAY, ocds=400)
    with pytest.raises(HttpStatusError) as excinfo:
        run(server, fetcher)
    assert excinfo.value.status == 400


def test_redirect_to_a_login_page_is_blocked_not_empty(server, fetcher) -> None:
    server.expect_request("/api/notice-exports").respond_with_data(
        b"", status=302, headers={"Location": server.url_for("/login")}
    )
    server.expect_request("/login").respond_with_data(b"<form><input type=password></form>", content_type="text/html")
    with pytest.raises(Blocked):
        run(server, fetcher)


# -- fetch: hostile archives ------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [b"PK\x03\x04 this is not really a zip", b"<html><body>Wartung</body></html>", "truncated"],
)
def test_corrupt_zip_fails_the_day(server, fetcher, body) -> None:
    if body == "truncated":
        data = EFORMS_ZIP.read_bytes()
        body = data[: len(data) // 2]
    serve_day(server, DAY, ocds=OCDS_ZIP.read_bytes(), eforms=body)
    with pytest.raises(AdapterError) as excinfo:
        run(server, fetcher)
    assert excinfo.value.reason == "bad_zip"
    assert f"{DAY} eforms.zip" in str(excinfo.value)


def test_zip_bomb_member_is_skipped_with_a_problem(server, fetcher, bomb_member) -> None:
    eforms = make_zip({f"{MPI}-01.xml": MPI_XML.read_bytes(), "bomb-01.xml": bomb_member})
    assert len(eforms) < 100_000  # the download is small; only inflating it would hurt
    serve_day(server, DAY, eforms=eforms)
    [batch] = run(server, fetcher)
    [problem] = batch.problems
    assert problem.startswith(f"{DAY} eforms.zip/bomb-01.xml: declared size {21 * MIB} bytes exceeds")
    assert "zip bomb" in problem
    assert [r.source_notice_id for r in batch.records] == [MPI]


def test_member_lying_about_its_size_is_not_inflated_past_the_header(server, fetcher, bomb_member) -> None:
    eforms = bytearray(make_zip({"liar-01.xml": bomb_member, f"{MPI}-01.xml": MPI_XML.read_bytes()}))
    central = eforms.index(b"PK\x01\x02")  # the first central directory entry is liar-01.xml
    eforms[central + 24 : central + 28] = struct.pack("<I", 1000)  # declared uncompressed size: 1000 bytes
    serve_day(server, DAY, eforms=bytes(eforms))
    [batch] = run(server, fetcher)
    [problem] = batch.problems
    assert problem.startswith(f"{DAY} eforms.zip/liar-01.xml: cannot be extracted")
    assert [r.source_notice_id for r in batch.records] == [MPI]


def test_archive_level_caps_refuse_the_archive(server, fetcher, monkeypatch) -> None:
    serve_day(server, DAY, eforms=EFORMS_ZIP.read_bytes())
    monkeypatch.setattr(DoeAdapter, "zip_limits", ZipLimits(max_total_bytes=10_000))
    with pytest.raises(AdapterError, match="declare 22114 bytes uncompressed") as excinfo:
        run(server, fetcher)
    assert excinfo.value.reason == "zip_too_large"
    monkeypatch.setattr(DoeAdapter, "zip_limits", ZipLimits(max_members=1))
    with pytest.raises(AdapterError, match="2 members, more than the cap of 1") as excinfo:
        run(server, fetcher)
    assert excinfo.value.reason == "zip_too_large"


def test_broken_member_is_a_problem_and_the_rest_comes_through(server, fetcher) -> None:
    broken = "0badc0de-0000-4000-8000-000000000000-01"
    eforms = make_zip({f"{MPI}-01.xml": MPI_XML.read_bytes(), f"{broken}.xml": MPI_XML.read_bytes()[:5000]})
    ocds = make_zip({f"{broken}.json": b'{"releases": [', f"{MPI}-01.json": _derived_ocds()})
    serve_day(server, DAY, ocds=ocds, eforms=eforms)
    [batch] = run(server, fetcher)
    assert [r.source_notice_id for r in batch.records] == [MPI]
    assert by_id(batch)[MPI].ocid == f"ocds-mnwr74-{MPI_PROCEDURE}"
    assert len(batch.problems) == 2
    assert batch.problems[0].startswith(f"{DAY} ocds.zip/{broken}.json: not a usable OCDS release package")
    assert batch.problems[1].startswith(f"{DAY} eforms.zip/{broken}.xml: not a usable eForms notice")


def test_unsafe_names_and_unknown_members_are_refused(server, fetcher) -> None:
    xml = MPI_XML.read_bytes()
    eforms = make_zip(
        {
            "../24d29507-f9dd-4712-aef0-9d864df3af8e-02.xml": xml,
            "/abs/24d29507-f9dd-4712-aef0-9d864df3af8e-03.xml": xml,
            "C:/win/24d29507-f9dd-4712-aef0-9d864df3af8e-04.xml": xml,
            "notes.txt": b"hello",
            "nested.zip": EFORMS_ZIP.read_bytes(),
            "folder/": b"",
            "__MACOSX/._x-01.xml": b"\x00\x05\x16\x07",
            f"{DAY}/{MPI}-01.xml": xml,  # a folder inside the archive is fine
            f"copy/{MPI}-01.xml": xml,
        }
    )
    serve_day(server, DAY, eforms=eforms)
    [batch] = run(server, fetcher)
    assert [r.source_notice_id for r in batch.records] == [MPI]
    problems = "\n".join(batch.problems)
    assert len(batch.problems) == 6, problems
    unsafe = [p for p in batch.problems if "unsafe member name" in p]
    assert [p.split(": ")[0] for p in unsafe] == [
        f"{DAY} eforms.zip/'../{MPI}-02.xml'",
        f"{DAY} eforms.zip/'/abs/{MPI}-03.xml'",
        f"{DAY} eforms.zip/'C:/win/{MPI}-04.xml'",
    ]
    assert f"{DAY} eforms.zip/notes.txt: unsupported file type" in problems
    assert f"{DAY} eforms.zip/nested.zip: unsupported file type" in problems
    assert f"{DAY} eforms.zip/copy/{MPI}-01.xml: notice {MPI} version 01 also in" in problems


def _derived_ocds() -> bytes:
    with zipfile.ZipFile(OCDS_ZIP) as archive:
        return archive.read(f"{MPI}-01.json")


# -- parse_files ------------------------------------------------------------------------------


@pytest.fixture
def fetched_records(server, fetcher) -> tuple[NoticeRecord, ...]:
    serve_day(server, DAY, ocds=OCDS_ZIP.read_bytes(), eforms=EFORMS_ZIP.read_bytes())
    [batch] = run(server, fetcher)
    return batch.records


def parse(*paths: Path) -> list[FetchedBatch]:
    doe_config = SourceConfig(key="doe", adapter="doe", settings={})
    return list(DoeAdapter().parse_files(config=doe_config, paths=list(paths)))


def extract(archive: Path, target: Path) -> list[Path]:
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(target)  # our own test data: trusted
        return [target / name for name in zf.namelist()]


def test_parse_files_both_export_zips_equal_fetch(fetched_records) -> None:
    [batch] = parse(EFORMS_ZIP, OCDS_ZIP)
    assert batch.records == fetched_records
    assert all(a.url == b.url and a.payload == b.payload for a, b in zip(batch.records, fetched_records, strict=True))
    assert (batch.scope, batch.problems, batch.cursor, batch.requests) == (
        "2026-09-14_eforms.zip, 2026-09-14_ocds.zip",
        (),
        None,  # files never move the cursor
        0,
    )
    assert batch.bytes == EFORMS_ZIP.stat().st_size + OCDS_ZIP.stat().st_size


def test_parse_files_one_zip_alone(fetched_records) -> None:
    [batch] = parse(EFORMS_ZIP, EFORMS_ZIP)  # the same input twice counts once
    assert batch.problems == ()
    assert batch.scope == "2026-09-14_eforms.zip"
    assert [r.source_notice_id for r in batch.records] == ["17750180", MPI]
    assert by_id(batch)[MPI].ocid is None


def test_parse_files_groups_zips_by_day_not_by_call(tmp_path) -> None:
    other_day = tmp_path / "2026-09-13_ocds.zip"
    shutil.copy(OCDS_ZIP, other_day)
    eforms_batch, ocds_batch = parse(EFORMS_ZIP, other_day)  # different days: never joined
    assert (eforms_batch.scope, ocds_batch.scope) == ("2026-09-14_eforms.zip", "2026-09-13_ocds.zip")
    assert by_id(eforms_batch)[MPI].ocid is None
    assert by_id(ocds_batch)[MPI].submission_deadline is None


def test_parse_files_folder_equals_fetch(tmp_path, fetched_records) -> None:
    zips = tmp_path / "exports"
    zips.mkdir()
    shutil.copy(EFORMS_ZIP, zips)
    shutil.copy(OCDS_ZIP, zips)
    (zips / "README.md").write_text("ignored")
    loose = tmp_path / "loose"
    extract(EFORMS_ZIP, loose / "eforms")
    extract(OCDS_ZIP, loose / "ocds")
    zip_batch, loose_batch = parse(zips, loose)
    assert (zip_batch.scope, loose_batch.scope) == ("exports", "loose")
    assert zip_batch.records == loose_batch.records == fetched_records
    assert zip_batch.problems == loose_batch.problems == ()


def test_parse_files_single_files_equal_fetch(tmp_path, fetched_records) -> None:
    files = extract(EFORMS_ZIP, tmp_path) + extract(OCDS_ZIP, tmp_path)
    [batch] = parse(*files)
    assert batch.records == fetched_records
    assert batch.scope.startswith("17750180-1.xml, 24d29507")


def test_parse_files_joins_hand_named_files_by_their_content(tmp_path) -> None:
    ocds = tmp_path / "mpi-ocds.json"  # no "<id>-<version>" stem: the ids inside decide
    ocds.write_bytes(_derived_ocds())
    [batch] = parse(MPI_XML, ocds)
    [record] = batch.records
    assert (record.source_notice_id, record.ocid) == (MPI, f"ocds-mnwr74-{MPI_PROCEDURE}")
    assert record.submission_deadline == datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN)


def test_parse_files_unreadable_input_is_a_problem(tmp_path) -> None:
    corrupt = tmp_path / "broken.zip"
    corrupt.write_bytes(b"PK\x03\x04 nope")
    missing = tmp_path / "missing-01.xml"
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    zip_batch, loose_batch = parse(corrupt, missing, text, MPI_XML)
    assert zip_batch.records == ()
    [zip_problem] = zip_batch.problems
    assert zip_problem.startswith("broken.zip: not a readable ZIP archive")
    assert [r.source_notice_id for r in loose_batch.records] == [MPI]
    assert loose_batch.problems == (
        f"{missing}: cannot read file: No such file or directory",
        f"{text}: unsupported file type (expected .xml or .json)",
    )


# -- join_doe_records -------------------------------------------------------------------------


def _mpi_pair() -> tuple[NoticeRecord, NoticeRecord]:
    [ocds] = parse_ocds_package(_derived_ocds(), source="doe")
    return ocds, parse_eforms(MPI_XML.read_bytes(), source="doe")


def test_join_prefers_eforms_for_deadlines_and_ids_and_ocds_for_ocid() -> None:
    ocds, eforms = _mpi_pair()
    joined = join_doe_records(ocds, eforms)
    assert joined.submission_deadline == eforms.submission_deadline is not None
    assert ocds.submission_deadline is None
    assert (joined.ocid, joined.procedure_id) == (ocds.ocid, eforms.procedure_id)
    assert joined.kind is NoticeKind.CONTRACT_NOTICE
    assert joined.lots == eforms.lots
    assert (joined.postal_code, joined.town) == ("85748", "Garching")
    assert (joined.estimated_value, joined.currency) == (Decimal("500000.0"), "EUR")  # eForms has none
    assert joined.nuts_codes == ("DE212", "DEF0C", "DEF02")
    assert (joined.source, joined.source_notice_id, joined.version) == ("doe", MPI, "01")


def test_join_single_rendition_and_argument_checks() -> None:
    ocds, eforms = _mpi_pair()
    assert join_doe_records(None, eforms).submission_deadline == eforms.submission_deadline
    assert join_doe_records(ocds, None).ocid == ocds.ocid
    with pytest.raises(ValueError, match="at least one"):
        join_doe_records(None, None)
    with pytest.raises(ValueError, match="different notices"):
        join_doe_records(ocds.replace(version="02"), eforms)


# What the join legitimately changes in a single rendition: the envelope, and ids it checks for plausibility.
_JOIN_REWRITES = {"payload", "url", "buyer_id"}


@pytest.mark.parametrize("path", sorted(DOE.glob("*.xml")) + sorted(DOE.glob("ocds_*.json")), ids=lambda p: p.name[:40])
def test_join_keeps_every_field_of_a_single_rendition(path: Path) -> None:
    """A field the join forgets is lost for every DÖE notice (it happened to the award results)."""
    [record] = (
        parse_ocds_package(path.read_bytes(), source="doe")
        if path.suffix == ".json"
        else [parse_eforms(path.read_bytes(), source="doe")]
    )
    joined = join_doe_records(None, record) if path.suffix == ".xml" else join_doe_records(record, None)
    lost = {
        f.name: (getattr(record, f.name), getattr(joined, f.name))
        for f in dataclasses.fields(NoticeRecord)
        if f.name not in _JOIN_REWRITES and getattr(record, f.name) != getattr(joined, f.name)
    }
    assert lost == {}


def test_join_takes_award_results_and_buyer_contact_from_ocds_when_eforms_is_silent() -> None:
    [award] = parse_ocds_package(OCDS_AWARD.read_bytes(), source="doe")
    eforms = NoticeRecord(source="doe", source_notice_id=award.source_notice_id, kind=NoticeKind.AWARD)
    joined = join_doe_records(award, eforms)
    assert [(a.lot_id, a.supplier_name, a.date) for a in joined.awards] == [
        ("LOT-0000", "msg systems ag", date(2026, 7, 20))
    ]
    assert (joined.buyer_street, joined.buyer_postal_code, joined.buyer_town) == ("Jüdenstr. 1", "10178", "Berlin")
    assert (joined.contract_nature, joined.main_cpv, joined.contract_duration) == ("services", "72000000", "P540D")


@pytest.mark.parametrize(
    ("ocds_type", "eforms_type", "expected"),
    [
        ("public_tender", "other", "public_tender"),
        ("", "open", "open"),
        ("other", "open", "open"),
        ("open", "", "open"),
    ],
)
def test_join_procedure_type(ocds_type: str, eforms_type: str, expected: str) -> None:
    ocds, eforms = _mpi_pair()
    joined = join_doe_records(ocds.replace(procedure_type=ocds_type), eforms.replace(procedure_type=eforms_type))
    assert joined.procedure_type == expected


def test_join_drops_phone_numbers_as_buyer_id() -> None:
    ocds, eforms = _mpi_pair()
    assert join_doe_records(None, eforms.replace(buyer_id="t: +49 46 32 84 91 0")).buyer_id == ""
    assert join_doe_records(ocds.replace(buyer_id=""), eforms.replace(buyer_id="DE129420400")).buyer_id == "DE129420400"


@pytest.mark.parametrize(
    ("name", "key"),
    [
        (f"{MPI}-01.xml", (MPI, "01")),
        ("17750180-1.xml", ("17750180", "01")),
        (f"{MPI.upper()}-2.json", (MPI, "02")),
        (f"{MPI}.json", None),
        ("notes.xml", None),
    ],
)
def test_stem_key(name: str, key: tuple[str, str] | None) -> None:
    assert stem_key(name) == key


# -- settings ---------------------------------------------------------------------------------


def test_registered_with_defaults() -> None:
    assert get_adapter("doe") is DoeAdapter
    assert DoeAdapter.label == "DÖE / oeffentlichevergabe.de OpenData"
    assert validate_source_settings(adapter="doe", settings={}) == {
        "base_url": "https://oeffentlichevergabe.de",
        "max_days_per_run": 3,
    }
    assert DoeAdapter.validate_settings(
        {"base_url": "https://oeffentlichevergabe.de/", "start_day": "2026-09-01", "max_days_per_run": 31}
    ) == {"base_url": "https://oeffentlichevergabe.de", "start_day": "2026-09-01", "max_days_per_run": 31}


def test_local_test_server_is_valid_with_allowed_hosts() -> None:
    settings = {"base_url": "http://localhost:8080/", "allowed_hosts": ["localhost", "127.0.0.1"]}
    assert DoeAdapter.validate_settings(settings)["base_url"] == "http://localhost:8080"
    with pytest.raises(ValidationError, match="Host 'localhost' ist nicht erlaubt"):
        DoeAdapter.validate_settings({"base_url": "http://localhost:8080/"})


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"base_url": "http://oeffentlichevergabe.de"}, "base_url muss https verwenden"),
        ({"base_url": "ftp://oeffentlichevergabe.de"}, "base_url muss https verwenden"),
        ({"base_url": "https://evil.example.com"}, "base_url: Host 'evil.example.com' ist nicht erlaubt"),
        ({"base_url": "https://oeffentlichevergabe.de.evil.com"}, "ist nicht erlaubt"),
        ({"base_url": "https://u:p@oeffentlichevergabe.de"}, "darf keine Zugangsdaten enthalten"),
        ({"base_url": 42}, "base_url muss eine URL sein"),
        ({"start_day": "14.09.2026"}, "start_day muss ein ISO-Datum"),
        ({"start_day": "2022-11-30"}, "start_day muss 2022-12-01 oder später sein"),
        ({"max_days_per_run": 0}, "max_days_per_run muss eine ganze Zahl von 1 bis 31 sein"),
        ({"max_days_per_run": 32}, "max_days_per_run muss eine ganze Zahl von 1 bis 31 sein"),
        ({"max_days_per_run": True}, "max_days_per_run muss eine ganze Zahl"),
        ({"allowed_hosts": "localhost"}, "allowed_hosts muss eine Liste von Hostnamen sein"),
        ({"max_days": 3}, "Unbekannte DÖE-Einstellung(en): max_days"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_message(settings: dict, message: str) -> None:
    with pytest.raises(ValidationError) as excinfo:
        DoeAdapter.validate_settings(settings)
    assert any(message in text for text in excinfo.value.messages), excinfo.value.messages


def test_all_setting_errors_at_once_and_fetch_refuses_bad_settings(server, fetcher) -> None:
    with pytest.raises(ValidationError) as excinfo:
        DoeAdapter.validate_settings({"base_url": "https://evil.example.com", "max_days_per_run": 99})
    assert len(excinfo.value.messages) == 2
    bad = SourceConfig(key="doe", adapter="doe", settings={"base_url": "https://evil.example.com"})
    with pytest.raises(AdapterError) as run_error:
        list(DoeAdapter().fetch(config=bad, fetcher=fetcher, now=NOW))
    assert run_error.value.reason == "invalid_settings"
    assert server.log == []
