"""Compiling stored tenders again: lineage and conflicts for tenders stored before them, official values back."""

from __future__ import annotations

from datetime import datetime
from io import StringIO

from django.core.management import call_command
from django.db import connection

from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender, TenderDelta
from tenders.services import notices_ingest
from tenders.services.recompile import tenders_recompile
from tests.factories.records import NoticeRecordFactory, eforms_record

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


def _stored_as_before(tender_id: int) -> None:
    """The row as the earlier rule ("newest wins") left it: the feed's title, no lineage, no conflicts; the
    feed's stored version without an origin, as versions were stored before records carried one."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE tenders_tender SET title = 'Integral Field Unit (RSS)', field_sources = '{}', conflicts = '[]', "
            "content_hash = 'old' WHERE id = %s",
            [tender_id],
        )
        cursor.execute("UPDATE tenders_tenderversion SET record = record - 'origin' WHERE source = 'old_rss'")


def test_recompiling_restores_the_official_title_records_lineage_and_hands_the_change_to_matching(db):
    official = eforms_record()
    feed = NoticeRecordFactory(
        source="old_rss",
        source_notice_id="rss-1",
        portal_references=official.portal_references,
        title="Integral Field Unit (RSS)",
        buyer_name=official.buyer_name,
        published_at=datetime(2026, 9, 18, tzinfo=BERLIN),
    )
    notices_ingest(records=[official, feed], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    _stored_as_before(tender.pk)
    TenderDelta.objects.all().delete()

    result = tenders_recompile(batch_size=1, now=NOW)

    tender.refresh_from_db()
    assert (result.done, result.updated, result.changed) == (1, 1, 1)
    assert tender.title == "MICADO Integral Field Unit II"
    refs = tender.field_sources["refs"]
    assert refs[tender.field_sources["fields"]["title"]]["source"] == "doe"
    assert {c["field"] for c in tender.conflicts} >= {"title"}
    [delta] = TenderDelta.objects.all()
    assert delta.changed == {str(tender.pk): {"title": ["Integral Field Unit (RSS)", "MICADO Integral Field Unit II"]}}

    again = tenders_recompile(now=NOW)
    assert (again.done, again.updated, again.changed) == (1, 0, 0)  # nothing differs: nothing written


def test_the_command_resumes_after_an_id_and_reports(db):
    records = [NoticeRecordFactory(source_notice_id=f"recompile-{n}", title=f"Dach {n} Sanierung") for n in range(3)]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)
    first = Tender.objects.order_by("id").values_list("id", flat=True).first()
    out = StringIO()
    call_command("recompile_tenders", "--after-id", str(first), "--batch-size", "1", stdout=out)
    assert "2/2 tenders (100 %)" in out.getvalue()
    assert "done: 2 tenders looked at" in out.getvalue()
