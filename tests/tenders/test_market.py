"""Market reads: a supplier's value is only the lots it won, partners count tenders, totals cover every tender."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from kernel.records import Award, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from kernel.vocabulary.time_zone import BERLIN
from tenders.market import buyer_market, market_summary, similar_awarded, supplier_market
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory
from tests.tenders.market_corpus import BUYER, SUPPLIER, SUPPLIER_AWARDS, market_corpus

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
    [eur] = summary.totals
    assert (eur.origin, eur.currency, eur.tenders, eur.total) == ("award", "EUR", 2, Decimal("631437.72"))
    assert eur.median == Decimal("315718.86")
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


@pytest.fixture
def corpus(db) -> dict[str, int]:
    return market_corpus()


def _award_row_sums(summary) -> dict[str, Decimal]:
    sums: dict[str, Decimal] = {}
    for row in summary.rows:
        for line in row.awards:
            if line.value is not None:
                sums[line.currency] = sums.get(line.currency, Decimal(0)) + line.value
    return sums


def test_a_suppliers_figures_equal_the_sum_of_its_award_rows_per_currency(corpus):
    summary = supplier_market(name=SUPPLIER)
    expected: dict[str, Decimal] = {}
    for lots in SUPPLIER_AWARDS.values():
        for _lot, value, currency in lots:
            if value is not None:
                expected[currency] = expected.get(currency, Decimal(0)) + value
    totals = {t.currency: t.total for t in summary.totals}
    assert totals == expected == _award_row_sums(summary)
    assert totals == {"EUR": Decimal("171000.10"), "PLN": Decimal("14500000.00"), "CHF": Decimal("2000.00")}
    assert {t.origin for t in summary.totals} == {"award"}  # a tender's estimate is never a supplier's share
    # Each row: only the supplier's lots, each once (the repeated LOT-1 of "Brücke Görlitz" included).
    rows = {row.tender.title: [(line.lot_id, line.value, line.currency) for line in row.awards] for row in summary.rows}
    assert rows == SUPPLIER_AWARDS
    assert [(t.currency, t.tenders, t.median) for t in summary.totals] == [
        ("EUR", 3, Decimal("20000.00")),
        ("CHF", 1, Decimal("2000.00")),
        ("PLN", 1, Decimal("14500000.00")),
    ]
    assert summary.without_value == 1  # Schule Zittau: won, value unknown
    assert summary.total == 5 and summary.partners == [(BUYER, 5)]


def test_a_buyers_figures_keep_currencies_and_estimates_apart(corpus):
    summary = buyer_market(name=BUYER)
    amounts = {row.tender.title: [(a.value, a.currency, a.origin) for a in row.amounts] for row in summary.rows}
    assert amounts == {
        "Brücke Görlitz": [(Decimal("220000.10"), "EUR", "award")],  # the repeated lot counted once
        "Brücke Zgorzelec": [(Decimal("17500000.00"), "PLN", "award")],
        "Kita Görlitz": [(Decimal("20000.00"), "EUR", "award")],
        "Grenzbrücke Basel": [(Decimal("1000.00"), "EUR", "award"), (Decimal("2000.00"), "CHF", "award")],
        "Schule Zittau": [(Decimal("500000.00"), "EUR", "estimate")],
        "Turnhalle Löbau": [(Decimal("80000.00"), "EUR", "award")],
        "Radweg Neiße": [(Decimal("40000.00"), "EUR", "estimate")],
        "Most Zgorzelec": [(Decimal("2000000.00"), "PLN", "estimate")],
    }
    assert [(t.origin, t.currency, t.tenders, t.total, t.median) for t in summary.totals] == [
        ("award", "EUR", 4, Decimal("321000.10"), Decimal("50000.00")),
        ("award", "CHF", 1, Decimal("2000.00"), Decimal("2000.00")),
        ("award", "PLN", 1, Decimal("17500000.00"), Decimal("17500000.00")),
        ("estimate", "EUR", 2, Decimal("540000.00"), Decimal("270000.00")),
        ("estimate", "PLN", 1, Decimal("2000000.00"), Decimal("2000000.00")),
    ]
    assert summary.without_value == 0
    assert summary.partners == [(SUPPLIER, 5), ("Budimex S.A.", 3)]  # tenders won, spellings folded


def test_one_read_serves_both_roles_in_two_statements_at_most(corpus, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):
        summary = market_summary(role="supplier", name=SUPPLIER, limit=2)
    assert summary.partial and summary.total == 5 and len(summary.rows) == 2
    with django_assert_max_num_queries(1):
        assert market_summary(role="buyer", name=BUYER).total == 8
    with pytest.raises(ValueError):
        market_summary(role="competitor", name=SUPPLIER)
