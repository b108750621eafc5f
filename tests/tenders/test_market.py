"""Market reads: a supplier's value is only the lots it won, partners count tenders, totals cover every tender."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from kernel.records import Award, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from kernel.vocabulary.time_zone import BERLIN
from tenders.market import buyer_market, similar_awarded, supplier_market
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


def _award(number: int, *, year: int, awards: tuple[Award, ...], buyer: str = "Stadt Worms", **fields):
    return NoticeRecordFactory(
        source="doe",
        source_notice_id=f"market-{number}",
        kind=NoticeKind.AWARD,
        status=TenderStatus.AWARDED,
        title=f"Bewachung {number}",
        buyer_name=buyer,
        cpv_codes=("79713000",),
        main_cpv="79713000",
        bundesland="Rheinland-Pfalz",
        published_at=datetime(year, 1, 1, 0, 30, tzinfo=BERLIN),  # 31 Dec in UTC: the Berlin year counts
        submission_deadline=None,
        awards=awards,
        suppliers=tuple(dict.fromkeys(a.supplier_name for a in awards)),
        **fields,
    )


def _lot(lot: str, supplier: str, value: str) -> Award:
    return Award(lot_id=lot, supplier_name=supplier, value=Decimal(value), currency="EUR", tenders_received=9)


@pytest.fixture
def awarded(db):
    records = [
        _award(
            1,
            year=2026,
            awards=(
                _lot("LOT-0001", "Wachschutz Strube GmbH", "320649.86"),
                _lot("LOT-0002", "Wachschutz Strube GmbH", "210787.86"),
                _lot("LOT-0003", "AWD-Gebäudedienste", "5850.00"),
            ),
        ),
        _award(2, year=2025, awards=(_lot("LOT-0001", "Wachschutz Strube GmbH", "100000"),)),
        _award(3, year=2024, awards=(_lot("LOT-0001", "AWD Gebäudedienste", "7000"),)),
        _award(4, year=2023, awards=(_lot("LOT-0001", "Rheinwacht GmbH", "90000"),), buyer="Stadt Mainz"),
    ]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)
    return {t.title: t for t in Tender.objects.all()}


def test_supplier_page_counts_only_the_lots_it_won(awarded):
    summary = supplier_market(name="Wachschutz Strube")
    assert summary.name == "Wachschutz Strube GmbH"
    assert [(row.tender.title, row.value) for row in summary.rows] == [
        ("Bewachung 1", Decimal("531437.72")),  # not the 5,850 EUR lot AWD won
        ("Bewachung 2", Decimal("100000")),
    ]
    assert summary.median_value == Decimal("315718.86")
    assert summary.partners == [("Stadt Worms", 2)]
    assert summary.places == [("Rheinland-Pfalz", 2)]


def test_buyer_page_counts_each_winner_once_per_tender_and_years_in_berlin_time(awarded):
    summary = buyer_market(name="stadt worms")
    assert summary.total == 3 and not summary.partial
    assert summary.by_year == [(2024, 1), (2025, 1), (2026, 1)]
    assert summary.partners == [("Wachschutz Strube GmbH", 2), ("AWD-Gebäudedienste", 2)]  # one firm, two spellings
    assert summary.rows[0].winners == ["Wachschutz Strube GmbH", "AWD-Gebäudedienste"]
    assert summary.rows[0].value == Decimal("537287.72")


def test_a_window_smaller_than_the_buyer_still_counts_every_tender_per_year(awarded):
    summary = buyer_market(name="Stadt Worms", limit=2)
    assert [row.tender.title for row in summary.rows] == ["Bewachung 1", "Bewachung 2"]
    assert summary.total == 3 and summary.partial
    assert summary.by_year == [(2024, 1), (2025, 1), (2026, 1)]


def test_similar_awarded_is_same_cpv_class_and_land_with_winner_and_price(awarded):
    rows = similar_awarded(tender=awarded["Bewachung 1"])
    assert [(row.tender.title, row.winners, row.value) for row in rows] == [
        ("Bewachung 2", ["Wachschutz Strube GmbH"], Decimal("100000")),
        ("Bewachung 3", ["AWD Gebäudedienste"], Decimal("7000")),
        ("Bewachung 4", ["Rheinwacht GmbH"], Decimal("90000")),
    ]
