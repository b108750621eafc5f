"""The stored form of a record and its content hash (pure, no database)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from decimal import Decimal

from kernel.records import Award, Lot
from kernel.vocabulary.time_zone import BERLIN
from tenders.merging import content_hash, record_from_json, record_json, record_storable, record_to_json
from tests.factories.records import OCDS_3LOTS, NoticeRecordFactory, eforms_record, ocds_records


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


def test_clean_records_are_stored_as_they_are():
    record = NoticeRecordFactory(payload={"format": "ocds", "tag": ["tender"]})
    stored, digest = record_storable(record)
    assert stored is record and digest == content_hash(record)


def test_nul_and_lone_surrogates_are_scrubbed_everywhere_postgresql_would_refuse_them():
    record = NoticeRecordFactory(
        source_notice_id="54321-Tender-\x00abc",
        url="https://www.tender24.de/x?\ud800=1",
        cpv_codes=("4526\x001210",),
        lots=(Lot(lot_id="LOT-\x000001", title="Los\x00 1"),),
        payload={"raw\x00key": ["wert\x00", {"tief": "\udfff"}]},
    )
    stored, digest = record_storable(record)
    assert stored.source_notice_id == "54321-Tender-abc"
    assert stored.url == "https://www.tender24.de/x??=1"
    assert stored.cpv_codes == ("45261210",)
    assert stored.lots == (Lot(lot_id="LOT-0001", title="Los 1"),)
    assert stored.payload == {"rawkey": ["wert", {"tief": "?"}]}
    assert digest == content_hash(stored)
    assert "\\u0000" not in record_json(stored)
    assert record_storable(record) == (stored, digest)  # the same hostile notice again: the same row


def test_only_the_payload_can_make_a_record_dirty():
    record = NoticeRecordFactory(payload={"note": "a\x00b"})
    stored, digest = record_storable(record)
    assert stored.payload == {"note": "ab"} and digest == content_hash(record)  # the hash never covered the payload


def test_over_long_identifiers_are_shortened_without_losing_identity():
    long_id = "54321-Tender-" + "x" * 300
    record = NoticeRecordFactory(
        source_notice_id=long_id,
        ocid="ocds-" + "o" * 200,
        procedure_id="p" * 121,
        version="0" * 11 + "2",
        portal_references=("netserver:" + "t" * 250,),
    )
    stored, _ = record_storable(record)
    assert len(stored.source_notice_id) == 200 and stored.source_notice_id.startswith("54321-Tender-xxx")
    assert (len(stored.ocid), len(stored.procedure_id), len(stored.version)) == (120, 120, 10)
    assert len(stored.portal_references[0]) == 200
    other, _ = record_storable(record.replace(source_notice_id=long_id + "y"))
    assert other.source_notice_id != stored.source_notice_id  # a different id stays different
    assert record_storable(record)[0] == stored  # and the same one stays the same


def test_identifier_limits_are_the_column_sizes():
    from tenders.merging.documents import IDENTIFIER_LIMITS, PORTAL_REFERENCE_LIMIT
    from tenders.models import Tender, TenderSource, TenderVersion

    def size(model, name):
        return model._meta.get_field(name).max_length

    assert {
        "source_notice_id": min(size(TenderSource, "source_notice_id"), size(TenderVersion, "source_notice_id")),
        "ocid": min(size(Tender, "ocid"), size(TenderSource, "ocid")),
        "procedure_id": min(size(Tender, "procedure_id"), size(TenderSource, "procedure_id")),
        "version": min(size(TenderVersion, "version"), size(TenderSource, "latest_version")),
    } == IDENTIFIER_LIMITS
    assert Tender._meta.get_field("portal_references").base_field.max_length == PORTAL_REFERENCE_LIMIT


def test_cpv_codes_that_are_not_eight_digits_are_dropped():
    record = NoticeRecordFactory(cpv_codes=("45261210", "45000000-7", "4526", "ABCDEFGH"))
    stored, digest = record_storable(record)
    assert stored.cpv_codes == ("45261210",) and digest == content_hash(stored)
    clean = NoticeRecordFactory(cpv_codes=("45261210",))
    assert record_storable(clean)[0] is clean


def test_everything_out_of_bounds_is_fitted_in_one_pass():
    record = NoticeRecordFactory(
        title="T" * 2_100,
        description="Beschreibung " * 5_000,
        url="javascript:alert(1)",
        documents_url="https://vergabe.example/docs",
        town="Standort der beauftragten Firma",
        buyer_town="k. A.",
        buyer_phone="000",
        buyer_id="-",
        estimated_value=Decimal("1"),
        awards=(
            Award(lot_id="LOT-1", value=Decimal("1"), currency="EUR"),
            Award(lot_id="LOT-2", value=Decimal("5000"), currency="EUR"),
            Award(lot_id="LOT-3", value=Decimal(10) ** 17, currency="EUR"),
        ),
        lots=(Lot(lot_id="LOT-1", town="Seeburg"), Lot(lot_id="LOT-2", town="siehe Vergabeunterlagen")),
        submission_deadline=datetime(9999, 12, 31, tzinfo=BERLIN),
    )
    stored, digest = record_storable(record)
    assert len(stored.title) == 2_000 and stored.title.endswith("…")
    assert len(stored.description) <= 50_000 and stored.description.endswith("…")
    assert (stored.url, stored.documents_url) == ("", "https://vergabe.example/docs")
    assert (stored.town, stored.buyer_town, stored.buyer_phone, stored.buyer_id) == ("", "", "", "")
    assert stored.estimated_value is None and stored.submission_deadline is None
    assert [(a.value, a.currency) for a in stored.awards] == [(None, ""), (Decimal("5000"), "EUR"), (None, "")]
    assert stored.awards[1] is record.awards[1]
    assert [lot.town for lot in stored.lots] == ["Seeburg", ""] and stored.lots[0] is record.lots[0]
    assert digest == content_hash(stored) and record_storable(stored) == (stored, digest)


def test_plain_values_keep_the_record_as_it_is():
    record = NoticeRecordFactory(
        town="Seeburg",
        buyer_phone="+49 30 1234",
        buyer_id="DE123456789",
        url="https://vergabe.example/x?id=1",
        documents_url="HTTP://Vergabe.Example:8080/ä",
        awards=(Award(lot_id="LOT-1", value=Decimal("5000"), currency="EUR"),),
        lots=(Lot(lot_id="LOT-1", town="Seeburg"),),
        title="T" * 2_000,
        portal_references=("netserver:" + "t" * 190,),
    )
    assert record_storable(record)[0] is record


def test_long_texts_are_judged_like_short_ones_but_not_remembered():
    from tenders.merging.documents import _implausible_buyer_id, _placeholder

    town, buyer_id = "siehe Vergabeunterlagen " + "x" * 200, "Stadtverwaltung " * 20
    before = (_placeholder.cache_info().currsize, _implausible_buyer_id.cache_info().currsize)
    stored, _ = record_storable(NoticeRecordFactory(town=town, buyer_id=buyer_id, buyer_town="Seeburg " * 30))
    assert (stored.town, stored.buyer_id, stored.buyer_town) == ("", "", "Seeburg " * 30)
    assert (_placeholder.cache_info().currsize, _implausible_buyer_id.cache_info().currsize) == before


def test_stray_full_stops_double_escaped_links_and_placeholder_supplier_ids_are_tidied():
    # Seen in the field audit of real notices (issue 28): "Leipzig." read from a free-text line, a document
    # link escaped twice at the source ("&amp;amp;" in the XML), a supplier id "--".
    record = NoticeRecordFactory(
        town="Leipzig.",
        buyer_town="Frankfurt a. M.",
        documents_url="https://www.evergabe.de/unterlagen?id=123&amp;view=all",
        awards=(
            Award(lot_id="LOT-1", supplier_name="Muster GmbH", supplier_id="--", value=Decimal("5000"), currency="EUR"),
            Award(lot_id="LOT-2", supplier_name="Beispiel AG", supplier_id="DE123456789", currency="EUR"),
        ),
    )
    stored, digest = record_storable(record)
    assert stored.town == "Leipzig" and stored.buyer_town == "Frankfurt a. M."
    assert stored.documents_url == "https://www.evergabe.de/unterlagen?id=123&view=all"
    assert [award.supplier_id for award in stored.awards] == ["", "DE123456789"]
    assert stored.awards[0].value == Decimal("5000")
    assert digest == content_hash(stored)
