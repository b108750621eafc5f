""" "Warum gefunden" as the portal shows it: ``tenders.match_reasons.MatchReasons`` in words a reader understands.

Pure: reasons in, (label, text) lines out, translated at call time. One line per field the keywords hit
("Titel: Reinigung, Gebäudereinigung"), one per CPV code ("CPV 9091 → 90911200 Reinigung von
Gebäuden"), one per other filter with the tender's own value ("Bundesland: Bayern"). A tender found
only through CPV label words says so, since that is the weakest reason a search has.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.utils.formats import date_format, number_format
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from kernel.vocabulary.cpv import cpv_label
from kernel.vocabulary.time_zone import BERLIN
from notifications.portal.formatting import FILTER_LABELS
from tenders.match_reasons import MatchReasons
from tenders.models import TENDER_STATUS_LABELS

WORD_FIELD_LABELS = {
    "title": gettext_lazy("Titel"),
    "buyer": gettext_lazy("Auftraggeber"),
    "description": gettext_lazy("Beschreibung"),
    "lots": gettext_lazy("Lose"),
    "cpv_labels": gettext_lazy("CPV-Bezeichnung"),
}


@dataclass(frozen=True)
class ReasonLine:
    label: str
    text: str
    kind: str  # "words", "cpv" or "filter": the page styles them alike, tests tell them apart


@dataclass(frozen=True)
class ReasonsView:
    lines: tuple[ReasonLine, ...]
    only_cpv_label: bool

    def __bool__(self) -> bool:
        return bool(self.lines)


def _moment(raw: str) -> str:
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        return raw
    return date_format(moment.astimezone(BERLIN) if moment.tzinfo else moment, "SHORT_DATE_FORMAT")


def _filter_text(name: str, value: str) -> str:
    if name == "status":
        return str(TENDER_STATUS_LABELS.get(value, value))
    if name in ("value_min", "value_max"):
        try:
            return f"{number_format(Decimal(value), decimal_pos=0, force_grouping=True)}"
        except (InvalidOperation, ValueError):
            return value
    if name in ("deadline_days", "deadline_until", "published_since"):
        return _moment(value)
    return value


def reasons_view(reasons: MatchReasons | None, *, with_filters: bool = True) -> ReasonsView:
    """``with_filters=False`` on a result list: the user set those filters a moment ago, every row meets them."""
    if reasons is None or reasons.is_empty:
        return ReasonsView((), False)
    language = get_language() or "de"
    lines = [
        ReasonLine(str(WORD_FIELD_LABELS.get(hit.field, hit.field)), ", ".join(hit.words), "words")
        for hit in reasons.words
    ]
    for reason in reasons.cpv:
        label = cpv_label(reason.code, language)
        shown = reason.code if reason.code == reason.filter else f"{reason.filter} → {reason.code}"
        lines.append(ReasonLine("CPV", f"{shown} {label}".strip(), "cpv"))
    for name, value in reasons.filters if with_filters else ():
        if name == "value_max" and any(n == "value_min" for n, _v in reasons.filters):
            continue  # one "Wert" line for a range
        label = _("Wert") if name in ("value_min", "value_max") else str(FILTER_LABELS.get(name, name))
        lines.append(ReasonLine(label, _filter_text(name, value), "filter"))
    return ReasonsView(tuple(lines), reasons.only_cpv_label)
