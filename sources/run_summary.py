"""A run in one line: what became of the tenders, then what could not be read.

Why two parts: "neu / geändert / unverändert / abgelehnt" count tenders (notices the source offered);
a field that could not be read is no failed tender - the tender was stored without it - so field
problems are counted per field after the tender counts ("14 Veröffentlichungsdaten nicht lesbar").
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# FieldProblem.field -> what the summary calls such statements (plural).
FIELD_PROBLEM_LABELS = {
    "deadline": gettext_lazy("Fristen"),
    "published": gettext_lazy("Veröffentlichungsdaten"),
    "date": gettext_lazy("Datumsangaben ohne bekannte Bezeichnung"),
    "place": gettext_lazy("Orte"),
    "procedure": gettext_lazy("Verfahrensarten"),
    "legal_basis": gettext_lazy("Rechtsgrundlagen"),
    "nature": gettext_lazy("Leistungsarten"),
    "period": gettext_lazy("Ausführungsfristen"),
}


def tender_counts_text(*, new: int, changed: int, unchanged: int, refused: int) -> str:
    return _("neu %(new)d, geändert %(changed)d, unverändert %(unchanged)d, abgelehnt %(refused)d") % {
        "new": new,
        "changed": changed,
        "unchanged": unchanged,
        "refused": refused,
    }


def field_problems_text(counts: Mapping[str, int] | None) -> str:
    """ "14 Veröffentlichungsdaten nicht lesbar, 10 Fristen nicht lesbar", most first; "" when none."""
    parts = [
        _("%(count)d %(what)s nicht lesbar") % {"count": count, "what": FIELD_PROBLEM_LABELS.get(field, field)}
        for field, count in sorted((counts or {}).items(), key=lambda pair: (-pair[1], pair[0]))
        if count
    ]
    return ", ".join(parts)


def run_summary_text(run) -> str:
    """The console's and ``manage.py ingest``'s line for a FetchRun (any object with its counts)."""
    text = tender_counts_text(new=run.new, changed=run.changed, unchanged=run.unchanged, refused=run.refused)
    fields = field_problems_text(run.field_problems)
    return f"{text}; {fields}" if fields else text
