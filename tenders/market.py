"""Market view reads: who won what, for whom, for how much (portal pages next to a tender).

Each read starts from an index (``tender_supplier_keys_gin``, ``tender_buyer_published_idx``,
``tender_awarded_similar_idx``) and touches at most ``limit`` tender rows, so the pages stay fast
at a million tenders; figures are computed over those rows in Python.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from statistics import median

from django.db.models import F
from django.db.models.functions import Substr

from tenders.merging.compiling import supplier_key
from tenders.models import Tender, TenderStatus

# As the indexes sort: DESC NULLS LAST (a plain "-published_at" would sort NULLS FIRST and miss them).
NEWEST_FIRST = F("published_at").desc(nulls_last=True)
MARKET_ROWS = 200  # the newest tenders a buyer or supplier page summarises
_COLUMNS = (
    "id",
    "title",
    "buyer_name",
    "buyer_key",
    "status",
    "published_at",
    "submission_deadline",
    "town",
    "bundesland",
    "cpv_codes",
    "main_cpv",
    "estimated_value",
    "currency",
    "awards",
)


@dataclass
class MarketSummary:
    name: str
    tenders: list[Tender]
    by_year: list[tuple[int, int]] = field(default_factory=list)
    cpv_mix: list[tuple[str, int]] = field(default_factory=list)
    median_value: Decimal | None = None
    partners: list[tuple[str, int]] = field(default_factory=list)  # suppliers of a buyer, buyers of a supplier
    median_lead_days: int | None = None
    places: list[tuple[str, int]] = field(default_factory=list)


def _awarded_values(tenders, *, only_supplier: str = "") -> list[Decimal]:
    return [
        Decimal(a["value"])
        for t in tenders
        for a in t.awards
        if a.get("value") and (not only_supplier or supplier_key(a.get("supplier_name", "")) == only_supplier)
    ]


def buyer_market(*, name: str, limit: int = MARKET_ROWS) -> MarketSummary:
    """A buyer's newest tenders, per year, CPV mix, typical award values, suppliers, lead time before deadlines."""
    key = supplier_key(name)
    tenders = (
        list(Tender.objects.filter(buyer_key=key).exclude(buyer_key="").only(*_COLUMNS).order_by(NEWEST_FIRST)[:limit])
        if key
        else []
    )
    summary = MarketSummary(name=tenders[0].buyer_name if tenders else name, tenders=tenders)
    summary.by_year = sorted(Counter(t.published_at.year for t in tenders if t.published_at).items())
    summary.cpv_mix = Counter((t.main_cpv or (t.cpv_codes or [""])[0])[:2] for t in tenders if t.cpv_codes).most_common(
        8
    )
    values = _awarded_values(tenders) or [t.estimated_value for t in tenders if t.estimated_value]
    summary.median_value = median(values) if values else None
    summary.partners = Counter(
        a["supplier_name"] for t in tenders for a in t.awards if a.get("supplier_name")
    ).most_common(10)
    leads = [(t.submission_deadline - t.published_at).days for t in tenders if t.submission_deadline and t.published_at]
    summary.median_lead_days = int(median(leads)) if leads else None
    return summary


def supplier_market(*, name: str, limit: int = MARKET_ROWS) -> MarketSummary:
    """A supplier's contracts won: where, for whom, for how much."""
    key = supplier_key(name)
    tenders = (
        list(Tender.objects.filter(supplier_keys__contains=[key]).only(*_COLUMNS).order_by(NEWEST_FIRST)[:limit])
        if key
        else []
    )
    shown = next(
        (a["supplier_name"] for t in tenders for a in t.awards if supplier_key(a.get("supplier_name", "")) == key),
        name,
    )
    summary = MarketSummary(name=shown, tenders=tenders)
    summary.by_year = sorted(Counter(t.published_at.year for t in tenders if t.published_at).items())
    values = _awarded_values(tenders, only_supplier=key)
    summary.median_value = median(values) if values else None
    summary.partners = Counter(t.buyer_name for t in tenders if t.buyer_name).most_common(10)
    summary.places = Counter(t.bundesland for t in tenders if t.bundesland).most_common(8)
    summary.cpv_mix = Counter((t.main_cpv or (t.cpv_codes or [""])[0])[:2] for t in tenders if t.cpv_codes).most_common(
        8
    )
    return summary


def similar_awarded(*, tender: Tender, limit: int = 10) -> list[Tender]:
    """Awarded tenders of the same CPV class (first four digits of the main CPV) in the same Land, newest first."""
    cpv = tender.main_cpv or (tender.cpv_codes[0] if tender.cpv_codes else "")
    if len(cpv) < 4 or not tender.bundesland:
        return []
    return list(
        Tender.objects.annotate(cpv_class=Substr("main_cpv", 1, 4))
        .filter(status=TenderStatus.AWARDED, bundesland=tender.bundesland, cpv_class=cpv[:4])
        .exclude(pk=tender.pk)
        .only(*_COLUMNS)
        .order_by(NEWEST_FIRST)[:limit]
    )
