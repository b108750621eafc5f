"""Pure merge helpers: the stored record form, content hashes and portal references (no database)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from sources.normalise import BERLIN
from sources.records import Lot
from tenders.merging import (
    compile_tender,
    content_hash,
    own_portal_references,
    record_from_json,
    record_json,
    record_to_json,
)
from tests.factories.records import OCDS_3LOTS, NoticeRecordFactory, eforms_record, ocds_records

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


def test_record_json_is_the_document_record_to_json_describes():
    for record in [eforms_record(), *ocds_records(OCDS_3LOTS)]:
        assert json.loads(record_json(record)) == record_to_json(record)


def test_record_json_round_trips_through_record_from_json():
    record = NoticeRecordFactory(
        lots=(Lot(lot_id="LOT-0001", title="Los 1", cpv_codes=("45261210",), estimated_value=Decimal("1200.50")),),
        questions_deadline=datetime(2026, 9, 20, 23, 59, 30, 125000, tzinfo=BERLIN),
    )
    assert record_from_json(json.loads(record_json(record))) == record


def test_record_json_survives_what_orjson_refuses():
    huge = 2**70  # foreign JSON may carry integers no 64-bit encoder can hold
    record = NoticeRecordFactory(payload={"id": huge}, source_notice_id="notice-\ud800")
    document = json.loads(record_json(record))
    assert document["payload"] == {"id": huge}
    assert document["source_notice_id"] == "notice-?"  # lone surrogate replaced, PostgreSQL accepts the text
    assert len(content_hash(record)) == 64


def test_content_hash_ignores_the_raw_payload_and_sees_every_stated_field():
    record = NoticeRecordFactory()
    assert content_hash(record) == content_hash(record.replace(payload={"raw": "anders"}))
    assert content_hash(record) != content_hash(record.replace(estimated_value=Decimal("250001")))
    assert content_hash(record) != content_hash(
        record.replace(lots=(Lot(lot_id="LOT-0001", estimated_value=Decimal("1")),))
    )
    moved = record.submission_deadline + timedelta(hours=1)
    assert content_hash(record) != content_hash(record.replace(submission_deadline=moved))


def test_state_hash_does_not_depend_on_how_the_time_zone_is_spelled():
    # Fresh records carry Europe/Berlin, records read back from JSON a fixed offset: same instant, same state.
    deadline = datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN)
    as_offset = deadline.astimezone(timezone(timedelta(hours=2)))
    record = NoticeRecordFactory(submission_deadline=deadline)
    state = compile_tender([record], now=NOW)
    same = compile_tender([record.replace(submission_deadline=as_offset)], now=NOW)
    assert state.content_hash() == same.content_hash()
    later = compile_tender([record.replace(submission_deadline=deadline + timedelta(minutes=1))], now=NOW)
    assert state.content_hash() != later.content_hash()


def test_portal_references_found_in_links_only_where_a_portal_is_named():
    plain = NoticeRecordFactory(url="https://oeffentlichevergabe.de/ui/de/search/details?noticeId=1", documents_url="")
    assert own_portal_references(plain) == ()
    netserver = plain.replace(
        documents_url="https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID=54321-Tender-18f2c0a1b2c"
    )
    assert own_portal_references(netserver) == ("netserver:54321-Tender-18f2c0a1b2c",)
    encoded = plain.replace(documents_url="https://www.tender24.de/NetServer/Details?Tender%4FID=54321-Tender-1a")
    assert own_portal_references(encoded) == ("netserver:54321-Tender-1a",)
    cosinex = plain.replace(documents_url="https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5/documents")
    assert own_portal_references(cosinex) == ("cosinex:CXP4Y9PRGS5",)
