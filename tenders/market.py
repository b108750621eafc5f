"""Market view reads: who won what, for whom, for how much (portal pages next to a tender).

Each read starts from an index (``tender_supplier_keys_gin``, ``tender_buyer_published_idx``,
``tender_awarded_similar_idx``). Counts per year cover every tender of the buyer or supplier (one
aggregate over the index); the detailed figures (CPV mix, typical values, partners, lead time) are
computed in Python over the newest ``limit`` rows and the page says so, so a buyer with 20,000
tenders costs the same as one with 200. Measured at 1M tenders by ``python bench/run.py market``.
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
from tenders.merging.compiling import supplier_key
from tenders.models import Tender

# As the indexes sort: DESC NULLS LAST (a plain "-published_at" would sort NULLS FIRST and miss them).
NEWEST_FIRST = F("published_at").desc(nulls_last=True)
MARKET_ROWS = 200  # the newest tenders a buyer or supplier page summarises in detail


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


@dataclass
class MarketRow:
    """One tender as a market page lists it: its winners (each once) and the awarded value that counts here."""

    tender: MarketTender
    winners: list[str]
    value: Decimal | None  # the sum over the lots that count (a supplier page: only the lots it won)
    currency: str
    estimated: bool = False  # no award value stated: the tender's estimate stands in


@dataclass
class MarketSummary:
    name: str
    rows: list[MarketRow] = field(default_factory=list)
    total: int = 0  # every tender of the buyer / won by the supplier, not only the rows shown
    by_year: list[tuple[int, int]] = field(default_factory=list)  # over every tender, by publication year
    cpv_mix: list[tuple[str, int]] = field(default_factory=list)
    median_value: Decimal | None = None
    partners: list[tuple[str, int]] = field(default_factory=list)  # suppliers of a buyer, buyers of a supplier
    median_lead_days: int | None = None
    places: list[tuple[str, int]] = field(default_factory=list)

    @property
    def tenders(self) -> list[MarketTender]:
        return [row.tender for row in self.rows]

    @property
    def partial(self) -> bool:
        return self.total > len(self.rows)


def awards_shown(awards: list[dict]) -> tuple[list[dict], list[dict]]:
    """(lots with a winner, lots ended without one or still open) for the tender page's "Zuschlag", with the
    award date as a date (stored as ISO text, shown in the reader's format)."""
    won, unawarded = [], []
    for award in awards:
        shown = award | {"date": date.fromisoformat(award["date"]) if award.get("date") else None}
        (won if award.get("status") == "awarded" or award.get("supplier_name") else unawarded).append(shown)
    return won, unawarded


def _won(award: dict, key: str) -> bool:
    return bool(award.get("supplier_name")) and (not key or supplier_key(award["supplier_name"]) == key)


def market_row(tender: MarketTender, *, only_supplier: str = "") -> MarketRow:
    """Winners in notice order, each once; the awarded value summed when every counted lot is in one currency."""
    counted = [a for a in tender.awards if _won(a, only_supplier)]
    winners = list(dict.fromkeys(a["supplier_name"] for a in counted))
    valued = [a for a in counted if a.get("value")]
    currencies = {a.get("currency") or "EUR" for a in valued}
    if valued and len(currencies) == 1:
        return MarketRow(tender, winners, sum(Decimal(a["value"]) for a in valued), currencies.pop())
    if not valued and not only_supplier and tender.estimated_value:
        return MarketRow(tender, winners, tender.estimated_value, tender.currency or "EUR", estimated=True)
    return MarketRow(tender, winners, None, "")


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
    values = [row.value for row in rows if row.value is not None and not row.estimated]
    values = values or [row.value for row in rows if row.value is not None]
    return MarketSummary(
        name=name,
        rows=rows,
        total=total,
        by_year=years,
        cpv_mix=_cpv_mix(tenders),
        median_value=median(values) if values else None,
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
        return MarketSummary(name=name)
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
