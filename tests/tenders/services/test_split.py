"""The operator's split of a wrongly merged source."""

from __future__ import annotations

from datetime import datetime

import pytest

from kernel.errors import ApplicationError
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import MergeRule, Tender, TenderSource, TenderVersion
from tenders.services import notices_ingest, tender_split_source
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


@pytest.mark.django_db
def test_operator_splits_a_wrongly_merged_source():
    portal = NoticeRecordFactory(source="tender24", title="Winterdienst Stadtgebiet Nord 2026/2027")
    other = NoticeRecordFactory(source="service-bund", title="Winterdienst Stadtgebiet Nord 2026/2027")
    notices_ingest(records=[portal, other], now=NOW, use_fingerprint=True)
    assert Tender.objects.count() == 1
    wrong = TenderSource.objects.get(source="service-bund")
    new_tender = tender_split_source(tender_source_id=wrong.pk, now=NOW)
    wrong.refresh_from_db()
    assert wrong.tender_id == new_tender.pk and wrong.merge_rule == MergeRule.SPLIT
    assert Tender.objects.count() == 2
    assert new_tender.versions.count() == 1
    # A re-poll of the split notice stays on its own tender.
    notices_ingest(records=[other.replace(version="02")], now=NOW, use_fingerprint=True)
    assert Tender.objects.count() == 2
    assert TenderSource.objects.get(source="service-bund").tender_id == new_tender.pk
    assert set(
        TenderVersion.objects.filter(tender_source__source="service-bund").values_list("tender_id", flat=True)
    ) == {new_tender.pk}


@pytest.mark.django_db
def test_a_tender_s_only_source_cannot_be_split_off():
    notices_ingest(records=[NoticeRecordFactory()], now=NOW, use_fingerprint=False)
    with pytest.raises(ApplicationError, match="einzige der Ausschreibung") as caught:
        tender_split_source(tender_source_id=TenderSource.objects.get().pk, now=NOW)
    assert (caught.value.code, caught.value.status) == ("only_source", 400)
    assert Tender.objects.count() == 1
