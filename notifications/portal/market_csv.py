"""A market page as CSV, for Excel as used in Germany (BOM, ``;``, decimal comma, like the search export).

One line per lot won (a buyer's tender without an award value: one line with its estimate, marked
"Schätzwert"), then the totals per origin and currency exactly as the page shows them. Both halves are
read from the same ``MarketSummary`` as the page and the API, so the file cannot disagree with them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import datetime

from django.utils.translation import gettext as _

from kernel.vocabulary.time_zone import BERLIN
from notifications.portal.csv_export import BOM, decimal_cell, spreadsheet_safe
from tenders.market import ESTIMATE, MarketRow, MarketSummary


def origin_label(origin: str) -> str:
    return _("Schätzwert") if origin == ESTIMATE else _("Zuschlagswert")


def _day(value: datetime | None) -> str:
    return value.astimezone(BERLIN).strftime("%d.%m.%Y") if value else ""


def _lines(row: MarketRow, *, url: str) -> list[list[str]]:
    tender = row.tender
    start = [str(tender.id), _day(tender.published_at), spreadsheet_safe(tender.title)]
    start.append(spreadsheet_safe(tender.buyer_name))
    if row.estimated:  # the estimate covers the whole tender, not one lot
        (amount,) = row.amounts
        winners = spreadsheet_safe(", ".join(row.winners))
        return [[*start, "", winners, decimal_cell(amount.value), amount.currency, origin_label(amount.origin), url]]
    if not row.awards:
        return [[*start, "", "", "", "", "", url]]
    return [
        [
            *start,
            spreadsheet_safe(line.lot_id),
            spreadsheet_safe(line.supplier_name),
            decimal_cell(line.value),
            line.currency,
            _("Zuschlagswert") if line.value is not None else "",
            url,
        ]
        for line in row.awards
    ]


def market_csv(summary: MarketSummary, *, url_for: Callable[[int], str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    writer.writerow(
        [
            _("ID"),
            _("Veröffentlicht"),
            _("Titel"),
            _("Auftraggeber"),
            _("Los"),
            _("Bieter"),
            _("Wert"),
            _("Währung"),
            _("Herkunft"),
            _("Link"),
        ]
    )
    for row in summary.rows:
        writer.writerows(_lines(row, url=url_for(row.tender.id)))
    writer.writerow([])
    writer.writerow([_("Herkunft"), _("Währung"), _("Ausschreibungen"), _("Summe"), _("Median")])
    for total in summary.totals:
        writer.writerow(
            [
                origin_label(total.origin),
                total.currency,
                total.tenders,
                decimal_cell(total.total),
                decimal_cell(total.median),
            ]
        )
    writer.writerow([_("Ohne Wert"), "", summary.without_value, "", ""])
    if summary.partial:
        note = _("Hinweis: Werte aus den neuesten %(shown)s von %(total)s Ausschreibungen.")
        writer.writerow([note % {"shown": len(summary.rows), "total": summary.total}])
    return BOM + buffer.getvalue()
