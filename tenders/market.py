"""Market view reads: who won what, for whom, for how much (portal pages next to a tender).

Each read starts from an index (``tender_supplier_keys_gin``, ``tender_buyer_published_idx``,
``tender_awarded_similar_idx``). Counts per year cover every tender of the buyer or supplier (one
aggregate over the index); the detailed figures (CPV mix, values, partners, lead time) are
computed in Python over the newest ``limit`` rows and the page says so, so a buyer with 20,000
tenders costs the same as one with 200. Measured at 1M tenders by ``python bench/run.py market``.

Money is counted by ``tenders.market_figures``: per (lot, winner) once, per currency, origin kept.
``market_summary`` is the one read the page, its CSV and the partner API render.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields
from datetime import date, datetime
from decimal import Decimal
from statistics import median

from django.db.models import Count, F, Q
from django.db.models.functions import ExtractYear, Substr

from kernel.vocabulary.statuses import TenderStatus
from kernel.vocabulary.time_zone import BERLIN
from tenders.market_figures import (
    ESTIMATE,
    Amount,
    AwardLine,
    MarketTotal,
    award_lines,
    market_totals,
    row_amounts,
)
from tenders.merging.compiling import supplier_key
from tenders.models import Tender

# As the indexes sort: DESC NULLS LAST (a plain "-published_at" would sort NULLS FIRST and miss them).
NEWEST_FIRST = F("published_at").desc(nulls_last=True)
MARKET_ROWS = 200  # the newest tenders a buyer or supplier page summarises in detail
BUYER = "buyer"
SUPPLIER = "supplier"
ROLES = (BUYER, SUPPLIER)


@dataclass(frozen=True, slots=True)
class MarketTender:
    """The columns a market page shows, read as plain values: building 200 full model instances with
    deferred fields cost more than every query of the page together (``bench/market.py``)."""

    id: int
    title: str
    buyer_name: str
    buyer_key: str
    status: str
    published_at: datetime | None
    submission_deadline: datetime | None
    town: str
    bundesland: str
    cpv_codes: list[str]
    main_cpv: str
    estimated_value: Decimal | None
    currency: str
    awards: list[dict]

    @property
    def pk(self) -> int:
        return self.id


_COLUMNS = tuple(f.name for f in fields(MarketTender))


def _market_tenders(queryset) -> list[MarketTender]:
    return [MarketTender(*values) for values in queryset.values_list(*_COLUMNS)]


@dataclass(frozen=True, slots=True)
class MarketRow:
    """One tender as a market page lists it: the lots that count here, each (lot, winner) once, and its amounts
    (one per currency; award values, or the estimate standing in, marked as such)."""

    tender: MarketTender
    awards: tuple[AwardLine, ...]  # a supplier page: only the lots that supplier won
    amounts: tuple[Amount, ...]

    @property
    def winners(self) -> list[str]:
        return list(dict.fromkeys(line.supplier_name for line in self.awards))

    @property
    def value(self) -> Decimal | None:
        """The one amount of a single-currency row (a one-cell display); None when there are several."""
        return self.amounts[0].value if len(self.amounts) == 1 else None

    @property
    def currency(self) -> str:
        return self.amounts[0].currency if len(self.amounts) == 1 else ""

    @property
    def estimated(self) -> bool:
        return any(amount.origin == ESTIMATE for amount in self.amounts)


@dataclass
class MarketSummary:
    name: str
    role: str = BUYER
    rows: list[MarketRow] = field(default_factory=list)
    total: int = 0  # every tender of the buyer / won by the supplier, not only the rows shown
    by_year: list[tuple[int, int]] = field(default_factory=list)  # over every tender, by publication year
    cpv_mix: list[tuple[str, int]] = field(default_factory=list)
    totals: list[MarketTotal] = field(default_factory=list)  # over the rows, per (origin, currency)
    partners: list[tuple[str, int]] = field(default_factory=list)  # suppliers of a buyer, buyers of a supplier
    median_lead_days: int | None = None
    places: list[tuple[str, int]] = field(default_factory=list)

    @property
    def tenders(self) -> list[MarketTender]:
        return [row.tender for row in self.rows]

    @property
    def partial(self) -> bool:
        return self.total > len(self.rows)

    @property
    def without_value(self) -> int:
        return sum(1 for row in self.rows if not row.amounts)


def awards_shown(awards: list[dict]) -> tuple[list[dict], list[dict]]:
    """(lots with a winner, lots ended without one or still open) for the tender page's "Zuschlag", with the
    award date as a date (stored as ISO text, shown in the reader's format)."""
    won, unawarded = [], []
    for award in awards:
        shown = award | {"date": date.fromisoformat(award["date"]) if award.get("date") else None}
        (won if award.get("status") == "awarded" or award.get("supplier_name") else unawarded).append(shown)
    return won, unawarded


def market_row(tender: MarketTender, *, only_supplier: str = "") -> MarketRow:
    """The lots that count (a supplier key: only that supplier's) and their values per currency.

    Without any award value the tender's estimate stands in, marked, but never on a supplier page: it is
    the value of every lot together, not of the lots one supplier won.
    """
    lines = award_lines(tender.awards, supplier=only_supplier)
    estimate = None if only_supplier else tender.estimated_value
    return MarketRow(tender, lines, row_amounts(lines, estimate=estimate, estimate_currency=tender.currency))


def _per_year(queryset) -> tuple[int, list[tuple[int, int]]]:
    """(every tender, tenders per publication year in Berlin): one aggregate over the index, the count included."""
    years = (
        queryset.annotate(year=ExtractYear("published_at", tzinfo=BERLIN))
        .values("year")
        .annotate(count=Count("*"))  # not Count("id"): every column is in the buyer index, so no heap fetch
        .order_by("year")
    )
    counted = [(row["year"], row["count"]) for row in years]
    return sum(count for _year, count in counted), [(year, count) for year, count in counted if year is not None]


def _cpv_mix(tenders: list[MarketTender]) -> list[tuple[str, int]]:
    return Counter((t.main_cpv or t.cpv_codes[0])[:2] for t in tenders if t.main_cpv or t.cpv_codes).most_common(8)


def _summary(name: str, queryset, *, limit: int, only_supplier: str = "") -> MarketSummary:
    tenders = _market_tenders(queryset.order_by(NEWEST_FIRST)[:limit])
    rows = [market_row(t, only_supplier=only_supplier) for t in tenders]
    if len(rows) < limit:
        total = len(rows)
        years = sorted(Counter(t.published_at.astimezone(BERLIN).year for t in tenders if t.published_at).items())
    else:
        total, years = _per_year(queryset)
    return MarketSummary(
        name=name,
        role=SUPPLIER if only_supplier else BUYER,
        rows=rows,
        total=total,
        by_year=years,
        cpv_mix=_cpv_mix(tenders),
        totals=market_totals(row.amounts for row in rows),
    )


def _buyer_tenders(key: str):
    return Tender.objects.filter(buyer_key=key).exclude(buyer_key="")


def buyer_market(*, name: str, limit: int = MARKET_ROWS) -> MarketSummary:
    """A buyer's tenders per year, and over its newest ones: CPV mix, typical values, suppliers, lead time."""
    key = supplier_key(name)
    if not key:
        return MarketSummary(name=name)
    summary = _summary(name, _buyer_tenders(key), limit=limit)
    if summary.rows:
        summary.name = summary.rows[0].tender.buyer_name
    # Counted per tender (three lots of one tender are one tender won) and per firm: spellings that fold
    # to the same key are one supplier, shown as first seen (the newest).
    names: dict[str, str] = {}
    won: Counter[str] = Counter()
    for row in summary.rows:
        for firm in dict.fromkeys(supplier_key(winner) for winner in row.winners):
            won[firm] += 1
        for winner in row.winners:
            names.setdefault(supplier_key(winner), winner)
    summary.partners = [(names[firm], count) for firm, count in won.most_common(10)]
    leads = [
        (t.submission_deadline - t.published_at).days
        for t in summary.tenders
        if t.submission_deadline and t.published_at and t.submission_deadline > t.published_at
    ]
    summary.median_lead_days = int(median(leads)) if leads else None
    return summary


def _supplier_tenders(key: str):
    return Tender.objects.filter(supplier_keys__contains=[key])


def supplier_market(*, name: str, limit: int = MARKET_ROWS) -> MarketSummary:
    """A supplier's contracts won: where, for whom, for how much (only the lots it won)."""
    key = supplier_key(name)
    if not key:
        return MarketSummary(name=name, role=SUPPLIER)
    summary = _summary(name, _supplier_tenders(key), limit=limit, only_supplier=key)
    summary.name = next((winner for row in summary.rows for winner in row.winners), name)
    summary.partners = Counter(t.buyer_name for t in summary.tenders if t.buyer_name).most_common(10)
    summary.places = Counter(t.bundesland for t in summary.tenders if t.bundesland).most_common(8)
    return summary


def similar_awarded(*, tender: Tender, limit: int = 10) -> list[MarketRow]:
    """Awarded tenders of the same CPV class (first four digits of the main CPV) in the same Land, newest first."""
    cpv = tender.main_cpv or (tender.cpv_codes[0] if tender.cpv_codes else "")
    if len(cpv) < 4 or not tender.bundesland:
        return []
    others = _market_tenders(
        Tender.objects.annotate(cpv_class=Substr("main_cpv", 1, 4))
        .filter(Q(status=TenderStatus.AWARDED), bundesland=tender.bundesland, cpv_class=cpv[:4])
        .exclude(pk=tender.pk)
        .order_by(NEWEST_FIRST)[:limit]
    )
    return [market_row(other) for other in others]


def market_summary(*, role: str, name: str, limit: int = MARKET_ROWS) -> MarketSummary:
    """The one read behind a market page, its CSV and the API: they show the same figures because they
    render the same summary."""
    if role not in ROLES:
        raise ValueError(f"unknown market role {role!r}")
    read = buyer_market if role == BUYER else supplier_market
    return read(name=name, limit=limit)
