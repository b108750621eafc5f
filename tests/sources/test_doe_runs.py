"""A DÖE source run end to end: local HTTP server → real fetcher → adapter → ingest → FetchRun."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone
from werkzeug import Response

from config.celery import app as celery_app
from kernel.network import Fetcher
from kernel.vocabulary.time_zone import BERLIN
from sources.models import FetchRun, Source
from sources.services import source_poll
from tenders.models import Tender, TenderSource
from tests.notifications.alerts.helpers import wait_for

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "doe" / "exports"
NOW = datetime(2026, 9, 15, 9, 0, tzinfo=BERLIN)


def _no_sleep_fetcher(policy):
    return Fetcher(policy, sleep=lambda seconds: None)


@pytest.fixture
def doe_server(httpserver):
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    for fmt in ("ocds", "eforms"):
        httpserver.expect_request(
            "/api/notice-exports", query_string={"pubDay": "2026-09-14", "format": f"{fmt}.zip"}
        ).respond_with_data((EXPORTS / f"2026-09-14_{fmt}.zip").read_bytes(), content_type="application/zip")
    httpserver.expect_request("/api/notice-exports").respond_with_data("", status=404)
    return httpserver


@pytest.fixture
def doe_source(db, doe_server):
    source = Source.objects.get(key="doe")
    source.settings = {
        "base_url": doe_server.url_for("/").rstrip("/"),
        "allowed_hosts": ["localhost", "127.0.0.1"],
    }
    source.cursor = {"last_day": "2026-09-13"}
    source.politeness_seconds = 0  # the commands build their own fetcher; no 2 s spacing against a test server
    source.save()
    return source


def test_scheduled_run_fetches_the_closed_day_and_records_it(doe_source):
    outcome = source_poll(source_id=doe_source.pk, now=NOW, fetcher_factory=_no_sleep_fetcher)
    run = FetchRun.objects.get(pk=outcome.run.pk)
    assert run.status == "succeeded", run.error
    assert (run.fetched, run.new, run.changed, run.failed) == (6, 6, 0, 0)
    assert run.requests == 2 and run.bytes > 0
    assert run.scope == "2026-09-14"
    doe_source.refresh_from_db()
    assert doe_source.cursor == {"last_day": "2026-09-14"}
    mpi = Tender.objects.get(submission_deadline=datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN))
    assert mpi.ocid and mpi.procedure_id
    assert TenderSource.objects.filter(source="doe").count() == 6


def test_rerunning_a_day_is_idempotent(doe_source):
    source_poll(source_id=doe_source.pk, now=NOW, fetcher_factory=_no_sleep_fetcher)
    before = list(Tender.objects.order_by("id").values_list("id", "content_hash"))
    again = source_poll(
        source_id=doe_source.pk,
        now=NOW,
        trigger="backfill",
        cursor={"last_day": "2026-09-13"},
        fetcher_factory=_no_sleep_fetcher,
    ).run
    assert (again.status, again.new, again.unchanged) == ("succeeded", 0, 6)
    assert list(Tender.objects.order_by("id").values_list("id", "content_hash")) == before


def test_a_failing_export_is_recorded_not_raised(db, httpserver):
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/api/notice-exports").respond_with_data("<html>not a zip</html>", status=200)
    source = Source.objects.get(key="doe")
    source.settings = {"base_url": httpserver.url_for("/").rstrip("/"), "allowed_hosts": ["localhost", "127.0.0.1"]}
    source.cursor = {"last_day": "2026-09-13"}
    source.save()
    run = source_poll(source_id=source.pk, now=NOW, fetcher_factory=_no_sleep_fetcher).run
    assert run.status == "failed"
    assert run.error_reason == "bad_zip" and "zip" in run.error.lower()
    source.refresh_from_db()
    assert source.cursor == {"last_day": "2026-09-13"}  # the day is not marked done
    assert Tender.objects.count() == 0


def test_ingest_command_backfills_days_with_a_real_server(doe_source, capsys):
    call_command("ingest", "doe", "--day", "2026-09-14")
    out = capsys.readouterr().out
    assert "succeeded" in out and "fetched 6" in out
    assert Tender.objects.count() == 6


@pytest.mark.django_db
def test_ingest_command_imports_files_without_network(capsys):
    call_command(
        "ingest", "doe", "--file", str(EXPORTS / "2026-09-14_ocds.zip"), str(EXPORTS / "2026-09-14_eforms.zip")
    )
    call_command("ingest", "ted", "--file", str(Path(__file__).resolve().parents[1] / "data" / "ted"))
    out = capsys.readouterr().out
    assert out.count("succeeded") + out.count("partial") == 2
    assert Tender.objects.count() >= 8
    assert FetchRun.objects.filter(trigger="file").count() == 2


@pytest.mark.django_db
def test_ingest_command_rejects_unknown_sources_and_bad_days():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="unknown source"):
        call_command("ingest", "nowhere", "--day", "2026-09-14")
    with pytest.raises(CommandError, match="not a date"):
        call_command("ingest", "doe", "--day", "14.09.2026")


@pytest.mark.django_db
def test_ingest_command_exits_with_an_error_when_its_run_failed(tmp_path, capsys):
    from django.core.management.base import CommandError

    missing = tmp_path / "2026-09-14_eforms.zip"
    with pytest.raises(CommandError, match=r"the run failed .*FetchRun \d+"):
        call_command("ingest", "doe", "--file", str(missing))
    out = capsys.readouterr().out
    assert "failed" in out and "file_missing" in out  # reported before the exit
    assert FetchRun.objects.get(trigger="file").status == "failed"


@pytest.mark.usefixtures("committed")
def test_a_failed_ingest_exits_1_and_a_good_one_0_in_a_real_process(tmp_path):
    """What a cron job or a script sees of ``manage.py ingest``."""
    import os
    import subprocess
    import sys

    from django.conf import settings

    from tests.fixtures.processes import test_database_url

    env = {**os.environ, "DATABASE_URL": test_database_url()}

    def ingest(*paths):
        args = [sys.executable, "manage.py", "ingest", "doe", "--file", *map(str, paths)]
        return subprocess.run(args, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120)

    failed = ingest(tmp_path / "missing_eforms.zip")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "file_missing" in failed.stdout and "CommandError: the run failed" in failed.stderr
    good = ingest(EXPORTS / "2026-09-14_ocds.zip", EXPORTS / "2026-09-14_eforms.zip")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "succeeded" in good.stdout


def test_ingest_command_backfill_reports_every_day_and_exits_with_an_error_when_one_failed(db, httpserver, capsys):
    from django.core.management.base import CommandError

    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    for fmt in ("ocds", "eforms"):
        httpserver.expect_request(
            "/api/notice-exports", query_string={"pubDay": "2026-09-14", "format": f"{fmt}.zip"}
        ).respond_with_data((EXPORTS / f"2026-09-14_{fmt}.zip").read_bytes(), content_type="application/zip")
    # The next day's export is broken (a truncated download); the day after is served well again.
    for fmt in ("ocds", "eforms"):
        httpserver.expect_request(
            "/api/notice-exports", query_string={"pubDay": "2026-09-15", "format": f"{fmt}.zip"}
        ).respond_with_data(b"PK\x03\x04 truncated", content_type="application/zip")
    httpserver.expect_request("/api/notice-exports").respond_with_data("", status=404)
    source = Source.objects.get(key="doe")
    source.settings = {"base_url": httpserver.url_for("/").rstrip("/"), "allowed_hosts": ["localhost", "127.0.0.1"]}
    source.politeness_seconds = 0  # the command builds its own fetcher; no 2 s spacing against a test server
    source.save()

    with pytest.raises(CommandError, match="1 of 3 runs failed"):
        call_command("ingest", "doe", "--from", "2026-09-14", "--to", "2026-09-16")
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out if line.startswith("doe ")] == [
        "doe 2026-09-14 succeeded",
        "doe 2026-09-15 failed",
        "doe 2026-09-16 succeeded",  # a failed day does not stop the backfill
    ]
    assert Tender.objects.count() == 6  # the good day's notices stay


@pytest.mark.usefixtures("committed")
def test_a_scheduled_poll_in_a_celery_prefork_worker_parses_in_worker_processes(processes, httpserver):
    """A prefork child is daemonic (billiard's process state): its DÖE poll still parses on every core."""

    def export(request):
        fmt = request.args.get("format", "").removesuffix(".zip")
        if fmt not in ("ocds", "eforms"):
            return Response("", status=404)
        return Response((EXPORTS / f"2026-09-14_{fmt}.zip").read_bytes(), content_type="application/zip")

    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/api/notice-exports").respond_with_handler(export)
    source = Source.objects.get(key="doe")
    source.settings = {"base_url": httpserver.url_for("/").rstrip("/"), "allowed_hosts": ["localhost", "127.0.0.1"]}
    # the day before yesterday is done, so the poll fetches yesterday (two days if Berlin passes midnight)
    source.cursor = {"last_day": (timezone.now().astimezone(BERLIN).date() - timedelta(days=2)).isoformat()}
    source.politeness_seconds = 0.1
    source.save()
    # workers from the first member: the day is a small fixture
    worker = processes.worker(queues="ingest", SOURCES_PARSE_WORKERS="2", SOURCES_PARSE_PARALLEL_MEMBERS="0")
    celery_app.send_task("sources.poll_source", args=[source.pk])
    run = wait_for(
        lambda: FetchRun.objects.filter(source=source).exclude(status="running").first(), timeout=120, what="run end"
    )
    assert run.status == "succeeded", run.error
    assert run.new == 6 and run.failed == 0
    assert TenderSource.objects.filter(source="doe").count() == 6
    log = worker.log.read_text(errors="replace")
    assert "parsing in 2 worker processes" in log
    assert "daemonic processes are not allowed" not in log and "AuthenticationString" not in log
