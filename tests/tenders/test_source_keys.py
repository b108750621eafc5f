"""The console's portal filter offers the source keys that have notices, read without a scan of every notice."""

from __future__ import annotations

from datetime import datetime

from kernel.vocabulary.time_zone import BERLIN
from tenders.selectors import tender_source_keys
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


def test_every_key_with_notices_once_in_order(db):
    records = [
        NoticeRecordFactory(source=source, source_notice_id=f"keys-{source}-{n}", title=f"Dachsanierung {source} {n}")
        for source in ("ted", "doe", "rss-berlin", "doe")
        for n in range(2)
    ]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)

    assert tender_source_keys() == ["doe", "rss-berlin", "ted"]


def test_no_notices_no_keys(db):
    assert tender_source_keys() == []
