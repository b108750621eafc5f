"""A page of tenders is shaped exactly as each tender alone, from the represented columns and one history statement."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal

import pytest

from kernel.records import NoticeKind
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender
from tenders.representation import REPRESENTED_FIELDS, tender_representation, tender_representations
from tenders.selectors import tender_with_history
from tenders.services import notices_ingest
from tests.factories.records import OCDS_3LOTS, OCDS_AWARD, NoticeRecordFactory, eforms_record, ocds_records

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)
LATER = datetime(2026, 9, 21, 8, 0, tzinfo=BERLIN)
SAME_SECOND = datetime(2026, 9, 14, 10, 0, 12, tzinfo=BERLIN)


def _ingest(*records, now=NOW) -> None:
    notices_ingest(records=list(records), now=now, use_fingerprint=False)


@pytest.fixture
def varied(db) -> None:
    """Tenders with every part of the shape filled somewhere: two sources and a conflict, a changed version,
    awards, lots, deadlines, a notice and its same-second change, a page link, a version without a date."""
    official = eforms_record()
    _ingest(official)
    feed = NoticeRecordFactory(
        source="vergabe_rss",
        source_notice_id="rss-micado",
        origin=Origin.FEED,
        portal_references=official.portal_references,
        title="Integral Field Unit MICADO - Lieferung und Montage",
        buyer_name=official.buyer_name,
        town="Stuttgart",
        estimated_value=Decimal("480000"),
        # PostgreSQL writes a time's fraction without trailing zeros (".25"); the shape always has six digits.
        published_at=datetime(2026, 9, 18, 9, 0, 0, 250000, tzinfo=BERLIN),
        url="https://vergabe.example/rss-micado",
    )
    _ingest(feed)
    _ingest(feed.replace(version="02", kind=NoticeKind.CHANGE, town="Garching"), now=LATER)
    _ingest(*ocds_records(OCDS_AWARD))
    _ingest(*ocds_records(OCDS_3LOTS))
    common = {"ocid": "ocds-b5fd17-page-1", "published_at": SAME_SECOND, "title": "Dachsanierung Grundschule"}
    _ingest(NoticeRecordFactory(source="ted", source_notice_id="200002-2026", kind=NoticeKind.CHANGE, **common))
    _ingest(NoticeRecordFactory(source="ted", source_notice_id="200001-2026", **common))
    _ingest(NoticeRecordFactory(title="Ohne Datum", published_at=None))


@pytest.mark.parametrize("read_as", ["tenders", "rows"])
def test_a_page_is_shaped_as_each_tender_alone(varied, django_assert_num_queries, read_as):
    expected = [tender_representation(tender) for tender in tender_with_history().order_by("id")]
    tenders = Tender.objects.order_by("id")
    if read_as == "tenders":
        page = list(tenders.only(*REPRESENTED_FIELDS))
    else:
        page = list(tenders.values_list(*REPRESENTED_FIELDS, named=True))
    with django_assert_num_queries(1):  # both histories at once; no column read after the page's statement
        shaped = tender_representations(tenders=page)
    assert shaped == expected
    assert json.dumps(shaped) == json.dumps(expected)  # the same keys in the same order
    # Each part of the shape is there to compare.
    sources = [source for row in shaped for source in row["sources"]]
    versions = [version for row in shaped for version in row["versions"]]
    assert max(len(row["sources"]) for row in shaped) == 2
    assert {source["url"] for source in sources} >= {None, "https://vergabe.example/rss-micado"}
    assert any(version["changes"] for version in versions)
    assert any(version["published_at"] is None for version in versions)
    assert "2026-09-18T09:00:00.250000+02:00" in {version["published_at"] for version in versions}
    assert all(any(row[part] for row in shaped) for part in ("awards", "lots", "deadlines", "conflicts"))
    same_second = next(row for row in shaped if row["title"] == "Dachsanierung Grundschule")
    assert [version["kind"] for version in same_second["versions"]] == ["contract_notice", "change"]


def test_an_empty_page_reads_nothing(db, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert tender_representations(tenders=[]) == []
