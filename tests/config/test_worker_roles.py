"""Several machines, one code: workers split by role (queue) share only PostgreSQL and Redis.

The README's production section runs parse workers (``-Q ingest``) on some machines and match/notify
workers (``-Q match,notify``) on others. Here each role is its own worker process with its own node
name and working folder, as on two machines: a source run polled by the ingest worker hands its delta
to matching, which only the other worker can take, and each task runs on the role that owns its queue.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django_tenants.utils import schema_context
from werkzeug import Response

from config.celery import app as celery_app
from kernel.vocabulary.statuses import TenderStatus
from notifications.models import TenderMatch
from sources.models import FetchRun, Source
from tenders.models import Tender
from tests.notifications.alerts.helpers import saved_search, user, wait_for

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "doe" / "exports"

pytestmark = pytest.mark.usefixtures("committed")


def _doe_source_on(httpserver) -> Source:
    def export(request):
        fmt = request.args.get("format", "").removesuffix(".zip")
        if fmt not in ("ocds", "eforms") or request.args.get("pubDay") != "2026-09-14":
            return Response("", status=404)
        return Response((EXPORTS / f"2026-09-14_{fmt}.zip").read_bytes(), content_type="application/zip")

    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/api/notice-exports").respond_with_handler(export)
    source = Source.objects.get(key="doe")
    source.settings = {"base_url": httpserver.url_for("/").rstrip("/"), "allowed_hosts": ["localhost", "127.0.0.1"]}
    source.cursor = {"last_day": "2026-09-13"}
    source.politeness_seconds = 0
    source.save()
    return source


def _ran(log: str, task: str) -> bool:
    return f"Task {task}[" in log and "succeeded in" in log


def test_an_ingest_worker_and_a_match_worker_on_other_machines_share_the_pipeline(
    processes, committed_tenants, httpserver
):
    alpha, beta = committed_tenants
    for schema, member in (("alpha", alpha.member_email), ("beta", beta.member_email)):
        with schema_context(schema):
            saved_search(user(member), name="alles")
    source = _doe_source_on(httpserver)

    ingest_machine = processes.worker(queues="ingest")
    match_machine = processes.worker(queues="match,notify")
    celery_app.send_task("sources.poll_source", args=[source.pk])

    run = wait_for(
        lambda: FetchRun.objects.filter(source=source).exclude(status="running").first(), timeout=120, what="run end"
    )
    assert run.status == "succeeded", run.error
    expected = set(Tender.objects.filter(status=TenderStatus.ACTIVE).values_list("pk", flat=True))
    assert expected
    for schema in ("alpha", "beta"):

        def matched(schema=schema):
            with schema_context(schema):
                return set(TenderMatch.objects.values_list("tender_id", flat=True))

        wait_for(lambda matched=matched: matched() == expected, timeout=120, what=f"matches in {schema}")

    ingest_log = ingest_machine.log.read_text(errors="replace")
    match_log = match_machine.log.read_text(errors="replace")
    # each role ran its own stage and never the other's
    assert _ran(ingest_log, "sources.poll_source")
    assert "Task notifications.match_pending_deltas[" not in ingest_log
    assert "Task notifications.match_pending_deltas[" in match_log
    assert "Task sources.poll_source[" not in match_log
