"""Award results through the ingest: kept per version, merged lot by lot, joined by publication number, exported."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal

import pytest
from django.core.management import call_command

from kernel.records import Award, AwardStatus, Deadline, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import MergeRule, Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


def _contract_notice(**changes):
    return NoticeRecordFactory(
        source="ted",
        source_notice_id="615938-2024",
        publication_number="615938-2024",
        title="Neubau Feuerwache Nord",
        buyer_name="Stadt Musterstadt",
        cpv_codes=("45216121",),
        main_cpv="45216121",
        bundesland="Thüringen",
        deadlines=(Deadline("teilnahmefrist", datetime(2024, 11, 4, 10, 0, tzinfo=BERLIN)),),
        submission_deadline=datetime(2024, 11, 4, 10, 0, tzinfo=BERLIN),
        published_at=datetime(2024, 10, 11, tzinfo=BERLIN),
        **changes,
    )


def _award_notice(**changes):
    values = {
        "source": "doe",
        "source_notice_id": "6a1f0d59-0000-4000-8000-000000000001",
        "kind": NoticeKind.AWARD,
        "status": TenderStatus.AWARDED,
        "referenced_notice_ids": ("00615938-2024",),  # written with leading zeros
        "title": "Neubau Feuerwache Nord",
        "buyer_name": "Stadt Musterstadt",
        "estimated_value": Decimal("2500000"),
        "currency": "EUR",
        "published_at": datetime(2025, 3, 1, tzinfo=BERLIN),
        "awards": (
            Award(
                lot_id="LOT-0001",
                supplier_name="Hochbau Müller GmbH",
                supplier_town="Erfurt",
                value=Decimal("2310000"),
                currency="EUR",
                tenders_received=4,
                date=date(2025, 2, 20),
            ),
            Award(lot_id="LOT-0002", status=AwardStatus.NOT_AWARDED, tenders_received=0),
        ),
        "suppliers": ("Hochbau Müller GmbH",),
    }
    return NoticeRecordFactory(**(values | changes))


@pytest.mark.django_db
def test_award_notice_with_zero_padded_reference_joins_its_contract_notice_and_is_exported(capsys):
    notices_ingest(records=[_contract_notice(estimated_value=None)], now=NOW, use_fingerprint=False)
    notices_ingest(records=[_award_notice()], now=NOW, use_fingerprint=False)

    tender = Tender.objects.get()
    assert tender.sources.get(source="doe").merge_rule == MergeRule.NOTICE_REFERENCE
    assert tender.status == "awarded"
    assert tender.publication_numbers == ["615938-2024"] and tender.ted_publication_number == "615938-2024"
    assert tender.estimated_value == Decimal("2500000")  # stated only in the award notice
    assert tender.supplier_keys == ["hochbau mueller"]
    assert [a["supplier_name"] for a in tender.awards] == ["Hochbau Müller GmbH", ""]

    call_command("export_tenders", "--format", "jsonl")
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["deadline"] is None  # a Teilnahmefrist is no Angebotsfrist
    assert row["deadlines"] == [
        {"kind": "teilnahmefrist", "label": "Teilnahmefrist", "datetime": "2024-11-04T10:00:00+01:00", "lot": None}
    ]
    assert row["ted_publication_number"] == "615938-2024"
    assert row["ted_url"] == "https://ted.europa.eu/de/notice/-/detail/615938-2024"
    assert row["main_cpv"] == "45216121"
    assert row["awards"] == [
        {
            "lot": "LOT-0001",
            "status": "awarded",
            "supplier_name": "Hochbau Müller GmbH",
            "supplier_id": None,
            "supplier_town": "Erfurt",
            "supplier_country": None,
            "value": "2310000",
            "currency": "EUR",
            "tenders_received": 4,
            "date": "2025-02-20",
        },
        {
            "lot": "LOT-0002",
            "status": "not_awarded",
            "supplier_name": None,
            "supplier_id": None,
            "supplier_town": None,
            "supplier_country": None,
            "value": None,
            "currency": None,
            "tenders_received": 0,
            "date": None,
        },
    ]
    assert row["buyer"]["name"] == "Stadt Musterstadt"


@pytest.mark.django_db
def test_a_later_result_replaces_only_the_lots_it_states():
    first = _award_notice()
    later = _award_notice(
        source_notice_id="6a1f0d59-0000-4000-8000-000000000002",
        published_at=datetime(2025, 5, 1, tzinfo=BERLIN),
        awards=(Award(lot_id="LOT-0002", supplier_name="Tiefbau Kunz KG", value=Decimal("90000"), currency="EUR"),),
    )
    notices_ingest(records=[_contract_notice(), first, later], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert [(a["lot_id"], a["supplier_name"]) for a in tender.awards] == [
        ("LOT-0001", "Hochbau Müller GmbH"),
        ("LOT-0002", "Tiefbau Kunz KG"),
    ]
    assert sorted(tender.supplier_keys) == ["hochbau mueller", "tiefbau kunz"]


@pytest.mark.django_db
def test_placeholders_are_dropped_at_the_ingest_boundary():
    record = _contract_notice(
        estimated_value=Decimal("1"), currency="EUR", town="Standort der beauftragten Firma", buyer_id="-"
    )
    notices_ingest(records=[record], now=NOW, use_fingerprint=False)
    tender = Tender.objects.get()
    assert (tender.estimated_value, tender.town, tender.buyer_id) == (None, "", "")
