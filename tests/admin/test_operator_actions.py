"""Console actions: split a wrongly merged source from the tender page, fetch a source now, fetch-run filters."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from config.celery import app as celery_app
from sources.models import FetchRun, Source
from tenders.models import MergeRule, Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory


@pytest.fixture
def merged_tender() -> Tender:
    """One procedure published on DÖE and on TED: merged into one tender by its procedure id."""
    records = [
        NoticeRecordFactory(source="doe", procedure_id="proc-4711", title="Neubau Kita Sonnenschein"),
        NoticeRecordFactory(source="ted", procedure_id="proc-4711", title="Neubau Kita Sonnenschein (TED)"),
    ]
    notices_ingest(records=records, use_fingerprint=False)
    tender = Tender.objects.get(procedure_id="proc-4711")
    assert tender.sources.count() == 2
    return tender


def test_split_is_reachable_from_the_tender_page(operator_client, merged_tender):
    ted = merged_tender.sources.get(source="ted")
    page = operator_client.get(f"/admin/tenders/tender/{merged_tender.pk}/change/").content.decode()
    split_url = f"/admin/tenders/tender/{merged_tender.pk}/abtrennen/{ted.pk}/"
    assert split_url in page
    doe = merged_tender.sources.get(source="doe")
    assert doe.source_notice_id in page and ted.source_notice_id in page  # both sources, with their versions

    confirm = operator_client.get(split_url)
    assert confirm.status_code == 200
    assert f"ted:{ted.source_notice_id}" in confirm.content.decode()
    assert TenderSource.objects.get(pk=ted.pk).tender_id == merged_tender.pk  # GET changes nothing

    response = operator_client.post(split_url)
    ted.refresh_from_db()
    assert ted.tender_id != merged_tender.pk
    assert ted.merge_rule == MergeRule.SPLIT
    assert response.status_code == 302
    assert response["Location"] == f"/admin/tenders/tender/{ted.tender_id}/change/"
    assert list(merged_tender.sources.values_list("source", flat=True)) == ["doe"]
    assert ted.versions.filter(tender_id=ted.tender_id).count() == ted.versions.count() == 1


def test_the_only_source_cannot_be_split(operator_client):
    notices_ingest(records=[NoticeRecordFactory(title="Einzelstück")], use_fingerprint=False)
    tender = Tender.objects.get(title="Einzelstück")
    source = tender.sources.get()
    page = operator_client.get(f"/admin/tenders/tender/{tender.pk}/change/").content.decode()
    assert "einzige Quelle" in page and "/abtrennen/" not in page
    response = operator_client.post(f"/admin/tenders/tender/{tender.pk}/abtrennen/{source.pk}/", follow=True)
    assert "es gibt nichts abzutrennen" in response.content.decode()
    assert Tender.objects.count() == 1


def test_split_of_a_source_of_another_tender_is_404(operator_client, merged_tender):
    notices_ingest(records=[NoticeRecordFactory(title="Andere")], use_fingerprint=False)
    other = Tender.objects.get(title="Andere")
    ted = merged_tender.sources.get(source="ted")
    assert operator_client.post(f"/admin/tenders/tender/{other.pk}/abtrennen/{ted.pk}/").status_code == 404


def test_split_needs_an_operator(public_client, merged_tender):
    ted = merged_tender.sources.get(source="ted")
    response = public_client.post(f"/admin/tenders/tender/{merged_tender.pk}/abtrennen/{ted.pk}/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert TenderSource.objects.get(pk=ted.pk).tender_id == merged_tender.pk


def _drain_ingest_queue() -> list[dict]:
    """Messages waiting in the (in-memory) broker's ingest queue, as (task name, args)."""
    found = []
    with celery_app.connection_for_read() as conn, conn.SimpleQueue("ingest") as queue:
        while True:
            try:
                message = queue.get(timeout=0.2)
            except queue.Empty:
                return found
            found.append({"task": message.headers["task"], "args": message.payload[0]})
            message.ack()


def test_fetch_now_button_enqueues_after_commit(operator_client, django_capture_on_commit_callbacks):
    _drain_ingest_queue()
    source = Source.objects.get(key="doe")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = operator_client.post(f"/admin/sources/source/{source.pk}/jetzt-abrufen/")
    assert response.status_code == 302
    run = FetchRun.objects.get(source=source, trigger="manual")
    assert response["Location"] == f"/admin/sources/fetchrun/{run.pk}/change/"  # "Jetzt abrufen" leads to its run
    assert _drain_ingest_queue() == []  # nothing is sent before the transaction commits
    assert len(callbacks) == 1
    callbacks[0]()
    assert _drain_ingest_queue() == [{"task": "sources.poll_source_now", "args": [source.pk]}]
    assert operator_client.get(f"/admin/sources/source/{source.pk}/jetzt-abrufen/").status_code == 405


def test_fetch_now_action_enqueues_active_sources_only(operator_client, django_capture_on_commit_callbacks):
    _drain_ingest_queue()
    active = Source.objects.get(key="doe")
    inactive = Source.objects.get(key="ted")
    Source.objects.filter(pk=inactive.pk).update(is_active=False)
    with django_capture_on_commit_callbacks(execute=True):
        response = operator_client.post(
            "/admin/sources/source/", {"action": "fetch_now", "_selected_action": [active.pk, inactive.pk]}
        )
    assert response.status_code == 302
    assert _drain_ingest_queue() == [{"task": "sources.poll_source_now", "args": [active.pk]}]
    run = FetchRun.objects.get(source=active, trigger="manual")
    page = operator_client.get(response["Location"]).content.decode()
    assert f'href="/admin/sources/fetchrun/{run.pk}/change/"' in page
    assert not FetchRun.objects.filter(source=inactive).exists()


def test_source_page_shows_health_and_links(operator_client):
    source = Source.objects.get(key="doe")
    now = timezone.now()
    FetchRun.objects.create(source=source, started_at=now - timedelta(hours=3), status="succeeded", fetched=40, new=5)
    FetchRun.objects.create(source=source, started_at=now - timedelta(hours=2), status="failed", error="HTTP 503")
    FetchRun.objects.create(source=source, started_at=now - timedelta(hours=1), status="failed", low_yield=True)
    listing = operator_client.get("/admin/sources/source/").content.decode()
    assert "wenig Treffer" in listing and "40 / 5 / 0" in listing
    assert f"?source__id__exact={source.pk}" in listing
    change = operator_client.get(f"/admin/sources/source/{source.pk}/change/").content.decode()
    assert f"/admin/sources/source/{source.pk}/jetzt-abrufen/" in change
    assert "/admin/sources/source/denylist/" in change


def test_fetch_runs_filter_by_source_and_status(operator_client):
    doe, ted = Source.objects.get(key="doe"), Source.objects.get(key="ted")
    now = timezone.now()
    FetchRun.objects.create(source=doe, started_at=now, status="failed", scope="doe-failed-scope")
    FetchRun.objects.create(source=doe, started_at=now, status="succeeded", scope="doe-ok-scope")
    FetchRun.objects.create(source=ted, started_at=now, status="failed", scope="ted-failed-scope")
    body = operator_client.get(
        "/admin/sources/fetchrun/", {"source__id__exact": doe.pk, "status__exact": "failed"}
    ).content.decode()
    assert "doe-failed-scope" in body
    assert "doe-ok-scope" not in body and "ted-failed-scope" not in body


def test_denylist_is_read_only_with_reasons(operator_client):
    page = operator_client.get("/admin/sources/source/denylist/")
    body = page.content.decode()
    assert "untersagen automatisierten Zugriff" in body
    assert "<form" not in body.split('id="content"')[-1]


def test_the_queued_run_is_the_one_the_task_fills_in(db):
    from sources.services import source_poll_now_enqueue
    from sources.tasks import source_poll_now_task
    from tests.fixtures.network import free_loopback_port

    source = Source.objects.get(key="doe")
    Source.objects.filter(pk=source.pk).update(
        settings={"base_url": f"http://127.0.0.1:{free_loopback_port()}", "allowed_hosts": ["127.0.0.1"]},
        politeness_seconds=0,
    )
    (run,) = source_poll_now_enqueue(source_ids=[source.pk])
    assert run.status == "running" and run.trigger == "manual"
    assert source_poll_now_task(source.pk, run_id=run.pk) == run.pk
    run.refresh_from_db()
    assert run.status == "failed" and run.finished_at is not None
    assert source_poll_now_task(source.pk, run_id=run.pk) == run.pk  # a redelivered task does not run it again
    assert FetchRun.objects.filter(source=source).count() == 1


def test_a_source_already_running_gets_a_skipped_run_and_no_task(db, django_capture_on_commit_callbacks):
    from sources.services import source_poll_now_enqueue

    source = Source.objects.get(key="doe")
    with django_capture_on_commit_callbacks() as sent:
        (first,) = source_poll_now_enqueue(source_ids=[source.pk])
        (second,) = source_poll_now_enqueue(source_ids=[source.pk])
    assert first.status == "running"
    assert second.status == "skipped" and second.error_reason == "overlap" and str(first.pk) in second.error
    assert len(sent) == 1  # only the run that holds the source is polled


def test_fetch_now_on_a_running_source_says_so_and_queues_nothing(operator_client, django_capture_on_commit_callbacks):
    source = Source.objects.get(key="doe")
    running = FetchRun.objects.create(source=source, started_at=timezone.now(), trigger="schedule")
    with django_capture_on_commit_callbacks(execute=False) as sent:
        button = operator_client.post(f"/admin/sources/source/{source.pk}/jetzt-abrufen/", follow=True)
        action = operator_client.post(
            "/admin/sources/source/", {"action": "fetch_now", "_selected_action": [source.pk]}, follow=True
        )
    assert sent == []
    skipped = FetchRun.objects.filter(source=source, status="skipped").order_by("pk")
    assert skipped.count() == 2 and all(str(running.pk) in run.error for run in skipped)
    assert "wird gerade abgerufen; kein weiterer Abruf eingeplant" in button.content.decode()
    page = action.content.decode()
    assert "eingeplant." not in page and "Läuft bereits, nicht erneut eingeplant" in page
