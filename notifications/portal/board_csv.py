"""The team board as CSV, for Excel as used in Germany (BOM, ``;``, decimal comma, like the search export).

One line per card, stage by stage in the board's order, with the same cards the board shows (``meine``,
``alle``). Every text from a portal or a person goes through ``spreadsheet_safe``: titles, buyers, names and
reasons must not run as formulas.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable

from django.utils.translation import gettext as _

from notifications.models import BidCard, BidDecision
from notifications.portal.csv_export import BOM, decimal_cell, moment_cell, spreadsheet_safe


def header() -> list[str]:
    return [
        _("Phase"),
        _("Titel"),
        _("Auftraggeber"),
        _("Angebotsfrist"),
        _("Geschätzter Wert"),
        _("Währung"),
        _("Zuständig"),
        _("Entscheidung"),
        _("Grund"),
        _("Letzte Änderung"),
        _("Link"),
    ]


def _person(user) -> str:
    if user is None:
        return ""
    return user.get_full_name() or user.email or ""


def card_cells(card: BidCard, *, url: str) -> list[str]:
    tender = card.tender
    decision = str(BidDecision(card.decision).label) if card.decision else ""
    return [
        spreadsheet_safe(card.stage.name),
        spreadsheet_safe(tender.title),
        spreadsheet_safe(tender.buyer_name),
        moment_cell(tender.submission_deadline),
        decimal_cell(tender.estimated_value),
        spreadsheet_safe(tender.currency),
        spreadsheet_safe(_person(card.owner)),
        decision,
        spreadsheet_safe(card.decision_reason.label if card.decision_reason else ""),
        moment_cell(card.updated_at),
        url,
    ]


def board_csv(cards: Iterable[BidCard], *, url_for: Callable[[int], str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    writer.writerow(header())
    for card in cards:
        writer.writerow(card_cells(card, url=url_for(card.pk)))
    return BOM + buffer.getvalue()
