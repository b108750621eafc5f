"""CSV of a result list for Excel as used in Germany: UTF-8 with BOM, ``;`` separator, decimal comma.

Cells that a spreadsheet would run as a formula (=, +, -, @ …) get a leading
apostrophe: titles come from foreign portals and must not execute anything.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.utils.translation import gettext as _

from kernel.vocabulary.time_zone import BERLIN

BOM = "\ufeff"
ROW_CAP = 10_000
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class ExportRow:
    tender_id: int
    title: str
    buyer_name: str
    postal_code: str
    town: str
    bundesland: str
    cpv_codes: tuple[str, ...]
    cpv_labels: tuple[str, ...]  # the exact label of each code, in the same order
    estimated_value: Decimal | None
    currency: str
    published_at: datetime | None
    submission_deadline: datetime | None
    status: str
    triage: str
    url: str


def header() -> list[str]:
    return [
        _("ID"),
        _("Titel"),
        _("Auftraggeber"),
        _("PLZ"),
        _("Ort"),
        _("Bundesland"),
        _("CPV"),
        _("CPV-Bezeichnung"),
        _("Geschätzter Wert"),
        _("Währung"),
        _("Veröffentlicht"),
        _("Angebotsfrist"),
        _("Status"),
        _("Meine Bewertung"),
        _("Link"),
    ]


def spreadsheet_safe(text: str) -> str:
    text = (text or "").replace("\r\n", " ").replace("\n", " ")
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def decimal_cell(value: Decimal | None) -> str:
    return "" if value is None else f"{value:.2f}".replace(".", ",")


def moment_cell(value: datetime | None) -> str:
    return value.astimezone(BERLIN).strftime("%d.%m.%Y %H:%M") if value else ""


def row_cells(row: ExportRow) -> list[str]:
    return [
        str(row.tender_id),
        spreadsheet_safe(row.title),
        spreadsheet_safe(row.buyer_name),
        spreadsheet_safe(row.postal_code),
        spreadsheet_safe(row.town),
        spreadsheet_safe(row.bundesland),
        " ".join(row.cpv_codes),
        spreadsheet_safe("; ".join(label for label in row.cpv_labels if label)),
        decimal_cell(row.estimated_value),
        spreadsheet_safe(row.currency),
        moment_cell(row.published_at),
        moment_cell(row.submission_deadline),
        spreadsheet_safe(row.status),
        spreadsheet_safe(row.triage),
        row.url,
    ]


def csv_lines(
    rows: Iterable[ExportRow], *, total: int, cap: int = ROW_CAP, total_is_estimate: bool = False
) -> Iterator[str]:
    """The file as chunks of text: BOM + header, at most ``cap`` rows, then a note row if rows were left out.

    Translated texts are taken now, not while the response streams (the language is the request's).
    """
    head = header()
    if total_is_estimate:
        note = _("Hinweis: Export auf %(cap)s von ca. %(total)s Zeilen begrenzt – bitte die Suche eingrenzen.")
    else:
        note = _("Hinweis: Export auf %(cap)s von %(total)s Zeilen begrenzt – bitte die Suche eingrenzen.")
    return _chunks(rows, head=head, note=note, total=total, cap=cap)


def _chunks(rows: Iterable[ExportRow], *, head: list[str], note: str, total: int, cap: int) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    writer.writerow(head)
    yield BOM + flush()
    written = 0
    for row in rows:
        if written >= cap:
            break
        writer.writerow(row_cells(row))
        written += 1
        if written % 500 == 0:
            yield flush()
    if total > written:
        writer.writerow([note % {"cap": written, "total": total}])
    yield flush()
