"""The market's money rules, pure: each (lot, winner) once, sums per currency, the origin kept, rounded once."""

from __future__ import annotations

from decimal import Decimal

from tenders.market_figures import Amount, AwardLine, award_lines, market_totals, row_amounts
from tenders.merging.compiling import supplier_key


def _award(lot: str, supplier: str, value: str | None, currency: str = "EUR") -> dict:
    return {"lot_id": lot, "status": "awarded", "supplier_name": supplier, "value": value, "currency": currency}


def test_a_repeated_lot_and_winner_counts_once_and_keeps_its_value():
    awards = [
        _award("LOT-1", "Bau GmbH", None, ""),
        _award("LOT-1", "BAU GMBH", "100"),  # the same firm, the amount stated this time
        _award("LOT-1", "Bau GmbH", "100"),
        _award("LOT-2", "Bau GmbH", "50"),
        {"lot_id": "LOT-3", "status": "not_awarded", "supplier_name": "", "value": None, "currency": ""},
    ]
    assert award_lines(awards) == (
        AwardLine("LOT-1", "BAU GMBH", Decimal("100"), "EUR"),
        AwardLine("LOT-2", "Bau GmbH", Decimal("50"), "EUR"),
    )


def test_a_supplier_sees_only_its_lots():
    awards = [_award("LOT-1", "Bau GmbH", "100"), _award("LOT-2", "Tiefbau AG", "70")]
    assert [line.lot_id for line in award_lines(awards, supplier=supplier_key("Tiefbau"))] == ["LOT-2"]


def test_amounts_are_per_currency_and_an_estimate_only_stands_in_marked():
    lines = award_lines([_award("1", "A", "10.005"), _award("2", "B", "5", "PLN"), _award("3", "C", "1")])
    assert row_amounts(lines, estimate=Decimal("999")) == (
        Amount(Decimal("11.01"), "EUR", "award"),
        Amount(Decimal("5.00"), "PLN", "award"),
    )
    unvalued = award_lines([_award("1", "A", None, "")])
    assert row_amounts(unvalued, estimate=Decimal("300"), estimate_currency="") == (
        Amount(Decimal("300.00"), "EUR", "estimate"),
    )
    assert row_amounts(unvalued) == ()


def test_totals_never_mix_currencies_or_origins():
    totals = market_totals(
        [
            (Amount(Decimal("100"), "EUR", "award"),),
            (Amount(Decimal("14500000"), "PLN", "award"),),
            (Amount(Decimal("300"), "EUR", "award"), Amount(Decimal("7"), "CHF", "award")),
            (Amount(Decimal("1000"), "EUR", "estimate"),),
            (),
        ]
    )
    assert [(t.origin, t.currency, t.tenders, t.total, t.median) for t in totals] == [
        ("award", "EUR", 2, Decimal("400.00"), Decimal("200.00")),
        ("award", "CHF", 1, Decimal("7.00"), Decimal("7.00")),
        ("award", "PLN", 1, Decimal("14500000.00"), Decimal("14500000.00")),
        ("estimate", "EUR", 1, Decimal("1000.00"), Decimal("1000.00")),
    ]
