"""CSV for German Excel: BOM, semicolons, decimal comma, umlauts intact, formulas defused, cap with a note."""

from __future__ import annotations

import csv
import io
from datetime import datetime
from decimal import Decimal

from django.utils import translation

from kernel.vocabulary.time_zone import BERLIN
from notifications.portal.csv_export import BOM, ExportRow, csv_lines, spreadsheet_safe


def _row(tender_id: int = 1, **overrides) -> ExportRow:
    values = {
        "tender_id": tender_id,
        "title": "Straßenbau in Köln – Müllabfuhr",
        "buyer_name": "Stadt Köln",
        "postal_code": "50667",
        "town": "Köln",
        "bundesland": "Nordrhein-Westfalen",
        "cpv_codes": ("45233120", "90511000"),
        "cpv_labels": ("Straßenbauarbeiten", "Abholung von Siedlungsabfällen"),
        "estimated_value": Decimal("1234567.5"),
        "currency": "EUR",
        "published_at": datetime(2026, 9, 1, 9, 0, tzinfo=BERLIN),
        "submission_deadline": datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN),
        "status": "laufend",
        "triage": "interessant",
        "url": "http://alpha.localhost/ausschreibung/1/",
    }
    return ExportRow(**{**values, **overrides})


def _parse(text: str) -> list[list[str]]:
    assert text.startswith(BOM)
    return list(csv.reader(io.StringIO(text[1:]), delimiter=";"))


def test_bom_header_and_german_formats():
    with translation.override("de"):
        text = "".join(csv_lines([_row()], total=1))
    rows = _parse(text)
    assert rows[0][:3] == ["ID", "Titel", "Auftraggeber"]
    assert rows[1][1] == "Straßenbau in Köln – Müllabfuhr"
    assert rows[1][6] == "45233120 90511000"
    assert rows[0][7] == "CPV-Bezeichnung"
    assert rows[1][7] == "Straßenbauarbeiten; Abholung von Siedlungsabfällen"  # the exact label of each code
    assert rows[1][8] == "1234567,50"
    assert rows[1][10:12] == ["01.09.2026 09:00", "01.10.2026 12:00"]
    assert len(rows) == 2
    assert text.encode("utf-8").startswith(b"\xef\xbb\xbf")


def test_formula_cells_are_defused():
    assert spreadsheet_safe('=HYPERLINK("http://evil")') == '\'=HYPERLINK("http://evil")'
    assert spreadsheet_safe("+49 30 123") == "'+49 30 123"
    assert spreadsheet_safe("@SUM(A1)") == "'@SUM(A1)"
    assert spreadsheet_safe("Zeile 1\nZeile 2") == "Zeile 1 Zeile 2"
    rows = _parse("".join(csv_lines([_row(title="-1+2", buyer_name="=cmd|' /C calc'!A0")], total=1)))
    assert rows[1][1:3] == ["'-1+2", "'=cmd|' /C calc'!A0"]


def test_cap_adds_a_note_row():
    with translation.override("de"):
        text = "".join(csv_lines((_row(i) for i in range(1, 10)), total=9, cap=3))
    rows = _parse(text)
    assert [row[0] for row in rows[1:4]] == ["1", "2", "3"]
    assert len(rows) == 5
    assert rows[4][0].startswith("Hinweis: Export auf 3 von 9 Zeilen begrenzt")


def test_english_header():
    with translation.override("en"):
        rows = _parse("".join(csv_lines([], total=0)))
    assert rows[0][:3] == ["ID", "Title", "Buyer"]


def test_an_estimated_total_is_marked_as_such():
    with translation.override("de"):
        text = "".join(csv_lines((_row(i) for i in range(1, 10)), total=84_000, cap=3, total_is_estimate=True))
    assert "Export auf 3 von ca. 84000 Zeilen begrenzt" in text
