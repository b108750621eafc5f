"""One buyer's tenders in several currencies, multi-lot, won by one supplier in part, some with estimates only.

Shared by the market read's tests, the portal page and CSV tests and the partner API tests, so all three
are checked against the same expected figures. The supplier is "Hochbau Weber GmbH"; every other winner
is a competitor. Figures in ``SUPPLIER_AWARDS`` are the award rows (lot, value, currency) it won.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from kernel.records import Award, AwardStatus, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)
BUYER = "Zweckverband Oder-Neiße"
SUPPLIER = "Hochbau Weber GmbH"
OTHER = "Budimex S.A."

# What the supplier won, lot by lot: the figures its market view must add up to, per currency.
SUPPLIER_AWARDS = {
    "Brücke Görlitz": [("LOT-1", Decimal("100000.10"), "EUR"), ("LOT-2", Decimal("50000.00"), "EUR")],
    "Brücke Zgorzelec": [("LOT-1", Decimal("14500000.00"), "PLN")],
    "Kita Görlitz": [("", Decimal("20000.00"), "EUR")],
    "Grenzbrücke Basel": [("LOT-1", Decimal("1000.00"), "EUR"), ("LOT-2", Decimal("2000.00"), "CHF")],
    "Schule Zittau": [("LOT-1", None, "")],  # won, no value stated; the tender has an estimate only
}


def _lot(lot: str, supplier: str, value: str | None, currency: str = "EUR") -> Award:
    return Award(lot_id=lot, supplier_name=supplier, value=Decimal(value) if value else None, currency=currency)


def _notice(number: int, title: str, *, awards=(), estimate: str | None = None, currency: str = "EUR", **fields):
    awarded = bool(awards)
    return NoticeRecordFactory(
        source="doe",
        source_notice_id=f"market-corpus-{number}",
        kind=NoticeKind.AWARD if awarded else NoticeKind.CONTRACT_NOTICE,
        status=TenderStatus.AWARDED if awarded else TenderStatus.ACTIVE,
        title=title,
        buyer_name=BUYER,
        cpv_codes=("45221111",),
        main_cpv="45221111",
        bundesland="Sachsen",
        published_at=datetime(2026, 1, number, 9, 0, tzinfo=BERLIN),
        submission_deadline=None,
        estimated_value=Decimal(estimate) if estimate else None,
        currency=currency if estimate else "",
        awards=tuple(awards),
        suppliers=tuple(dict.fromkeys(a.supplier_name for a in awards if a.supplier_name)),
        **fields,
    )


def market_corpus() -> dict[str, int]:
    """Ingest the corpus; tender ids by title. The first tender's awards list repeats a (lot, winner) row, as
    a notice read twice would: written straight into the column, since the compile step may drop it."""
    records = [
        _notice(
            1,
            "Brücke Görlitz",
            awards=[
                _lot("LOT-1", SUPPLIER, "100000.10"),
                _lot("LOT-2", "Hochbau Weber", "50000"),  # another spelling of the same firm
                _lot("LOT-3", OTHER, "70000"),
            ],
            estimate="300000",
        ),
        _notice(
            2,
            "Brücke Zgorzelec",
            awards=[_lot("LOT-1", SUPPLIER, "14500000", "PLN"), _lot("LOT-2", OTHER, "3000000", "PLN")],
        ),
        _notice(3, "Kita Görlitz", awards=[_lot("", SUPPLIER, "20000")]),
        _notice(
            4,
            "Grenzbrücke Basel",
            awards=[_lot("LOT-1", SUPPLIER, "1000"), _lot("LOT-2", SUPPLIER, "2000", "CHF")],
        ),
        _notice(
            5,
            "Schule Zittau",
            awards=[_lot("LOT-1", SUPPLIER, None), Award(lot_id="LOT-2", status=AwardStatus.NOT_AWARDED)],
            estimate="500000",
        ),
        _notice(6, "Turnhalle Löbau", awards=[_lot("LOT-1", OTHER, "80000")]),
        _notice(7, "Radweg Neiße", estimate="40000"),  # open, estimate only
        _notice(8, "Most Zgorzelec", estimate="2000000", currency="PLN"),  # open, estimate only, in PLN
    ]
    notices_ingest(records=records, now=NOW, use_fingerprint=False)
    ids = dict(Tender.objects.filter(buyer_name=BUYER).values_list("title", "id"))
    first = Tender.objects.get(pk=ids["Brücke Görlitz"])
    Tender.objects.filter(pk=first.pk).update(awards=[first.awards[0], *first.awards])
    return ids
