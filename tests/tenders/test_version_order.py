"""A tender's history lists a notice before what refers to it, also when both carry the same publication time."""

from __future__ import annotations

from datetime import datetime

from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender
from tenders.representation import tender_representation
from tenders.selectors import tender_with_history
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)
SAME_SECOND = datetime(2026, 9, 14, 10, 0, 12, tzinfo=BERLIN)


def test_a_change_with_the_timestamp_of_its_notice_is_listed_after_it(db):
    # TED stamps a notice and its correction with the same second; the correction may arrive first.
    common = {"ocid": "ocds-b5fd17-ordered-1", "published_at": SAME_SECOND, "title": "Dachsanierung Grundschule"}
    change = NoticeRecordFactory(source="ted", source_notice_id="100002-2026", kind=NoticeKind.CHANGE, **common)
    notice = NoticeRecordFactory(
        source="ted", source_notice_id="100001-2026", kind=NoticeKind.CONTRACT_NOTICE, **common
    )
    notices_ingest(records=[change], now=NOW, use_fingerprint=False)
    notices_ingest(records=[notice], now=NOW, use_fingerprint=False)

    (tender,) = Tender.objects.all()
    history = tender_representation(tender_with_history().get(pk=tender.pk))["versions"]
    assert [version["kind"] for version in history] == ["contract_notice", "change"]
