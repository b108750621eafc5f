"""The market view's money, pure: award lines per (lot, winner), a row's amounts, totals per currency and origin.

The rules every output (page, API, CSV) inherits by reading these objects and nothing else:

* a (lot, winner) counts once, however often a tender's ``awards`` list repeats it;
* amounts are kept per currency and never converted: a PLN contract is a PLN figure;
* a value's origin (award value or the tender's estimate) travels with it, and totals are kept per
  (origin, currency), so an estimate never hides inside a sum of award values.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from statistics import median

from tenders.merging.compiling import supplier_key

AWARD = "award"
ESTIMATE = "estimate"
DEFAULT_CURRENCY = "EUR"  # what the compile step writes when a notice states a value without a currency
CENT = Decimal("0.01")


def cents(value: Decimal) -> Decimal:
    """Figures are rounded here, once, so the page, the API and the CSV cannot round differently."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True, slots=True)
class AwardLine:
    """One lot won by one supplier, as the market counts it."""

    lot_id: str
    supplier_name: str
    value: Decimal | None
    currency: str  # "" when no value is stated


@dataclass(frozen=True, slots=True)
class Amount:
    value: Decimal
    currency: str
    origin: str  # AWARD or ESTIMATE


@dataclass(frozen=True, slots=True)
class MarketTotal:
    """The tenders of one origin and currency: how many, their sum and their median (per tender)."""

    origin: str
    currency: str
    tenders: int
    total: Decimal
    median: Decimal

    @property
    def estimated(self) -> bool:
        return self.origin == ESTIMATE


def award_lines(awards: Iterable[dict], *, supplier: str = "") -> tuple[AwardLine, ...]:
    """The lots with a winner (only ``supplier``'s, a supplier key, when given), each (lot, winner) once.

    Spellings that fold to one supplier key are one winner. A repeat keeps the first line that states a
    value: a notice listing the same result twice, once without the amount, must not lose the amount.
    """
    lines: dict[tuple[str, str], AwardLine] = {}
    for award in awards:
        name = award.get("supplier_name") or ""
        key = supplier_key(name) if name else ""
        if not key or (supplier and key != supplier):
            continue
        value = Decimal(str(award["value"])) if award.get("value") not in (None, "") else None
        line = AwardLine(
            lot_id=award.get("lot_id") or "",
            supplier_name=name,
            value=value,
            currency=(award.get("currency") or DEFAULT_CURRENCY) if value is not None else "",
        )
        known = lines.get((line.lot_id, key))
        if known is None or (known.value is None and value is not None):
            lines[(line.lot_id, key)] = line
    return tuple(lines.values())


def row_amounts(
    lines: Iterable[AwardLine], *, estimate: Decimal | None = None, estimate_currency: str = ""
) -> tuple[Amount, ...]:
    """A tender's award values summed per currency (in order of first appearance); without any award value,
    the estimate when one is given, marked as such."""
    sums: dict[str, Decimal] = {}
    for line in lines:
        if line.value is not None:
            sums[line.currency] = sums.get(line.currency, Decimal(0)) + line.value
    if sums:
        return tuple(Amount(cents(value), currency, AWARD) for currency, value in sums.items())
    if estimate is not None:
        return (Amount(cents(estimate), estimate_currency or DEFAULT_CURRENCY, ESTIMATE),)
    return ()


def market_totals(amounts_per_tender: Iterable[Iterable[Amount]]) -> list[MarketTotal]:
    """Per (origin, currency): award values first, then the most frequent currency first."""
    groups: dict[tuple[str, str], list[Decimal]] = defaultdict(list)
    for amounts in amounts_per_tender:
        for amount in amounts:
            groups[(amount.origin, amount.currency)].append(amount.value)
    totals = [
        MarketTotal(origin, currency, len(values), cents(sum(values, Decimal(0))), cents(median(values)))
        for (origin, currency), values in groups.items()
    ]
    return sorted(totals, key=lambda t: (t.origin != AWARD, -t.tenders, t.currency))
