"""Where a tender's shown values came from, and where another source says otherwise - ready for the page.

``Tender.field_sources`` and ``Tender.conflicts`` (``tenders.merging.precedence``) name notice versions
by reference; this turns them into lines a reader understands: "DÖE · amtliche Bekanntmachung ·
Version 02 vom 14.09.2026" and "abweichende Angabe bei RSS-Feed …: 28.09.2026 10:00".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext_lazy as _

from kernel.vocabulary.provenance import Origin

ORIGIN_LABELS = {
    Origin.OFFICIAL: _("amtliche Bekanntmachung"),
    Origin.PORTAL_DETAIL: _("Detailseite des Portals"),
    Origin.PORTAL_LIST: _("Ergebnisliste des Portals"),
    Origin.FEED: _("RSS-Feed"),
    Origin.MAIL: _("Benachrichtigungs-Mail"),
}

# The fields the page names a source for, in the order it shows them.
FIELD_LABELS = {
    "title": _("Titel"),
    "buyer_name": _("Auftraggeber"),
    "submission_deadline": _("Angebotsfrist"),
    "questions_deadline": _("Frist für Bieterfragen"),
    "deadlines": _("Fristen"),
    "estimated_value": _("Geschätzter Wert"),
    "postal_code": _("PLZ"),
    "town": _("Ort"),
    "bundesland": _("Bundesland"),
    "nuts_codes": _("NUTS"),
    "cpv_codes": _("CPV"),
    "procedure_type": _("Verfahrensart"),
    "legal_basis": _("Rechtsgrundlage"),
    "contract_nature": _("Auftragsart"),
    "description": _("Beschreibung"),
    "lots": _("Lose"),
    "documents_url": _("Vergabeunterlagen"),
    "awards": _("Zuschlag"),
    "contract_start": _("Vertragsbeginn"),
    "contract_end": _("Vertragsende"),
}

# Where a conflict is shown on the page: the place fields share the "Ort" line.
CONFLICT_SLOTS = {
    "title": "title",
    "buyer_name": "buyer",
    "submission_deadline": "deadline",
    "estimated_value": "value",
    "postal_code": "place",
    "town": "place",
    "bundesland": "place",
}


@dataclass(frozen=True)
class NoticeRef:
    source: str
    notice_id: str
    version: str
    origin: str
    origin_label: str
    published_at: datetime | None


@dataclass(frozen=True)
class FieldSource:
    name: str
    label: str
    ref: NoticeRef


@dataclass(frozen=True)
class Disagreement:
    name: str
    label: str
    value: object  # a datetime, a Decimal or text, for the template's own formatting
    kind: str  # "datetime", "money" or "text"
    ref: NoticeRef


@dataclass(frozen=True)
class SourceGroup:
    """One notice version and the shown fields taken from it (the page lists sources, not 20 equal rows)."""

    ref: NoticeRef
    labels: list[str]


@dataclass
class Provenance:
    fields: list[FieldSource] = field(default_factory=list)
    groups: list[SourceGroup] = field(default_factory=list)
    by_field: dict[str, FieldSource] = field(default_factory=dict)
    conflicts: dict[str, list[Disagreement]] = field(default_factory=dict)  # by page slot

    @property
    def has_conflicts(self) -> bool:
        return bool(self.conflicts)


def _ref(raw: dict) -> NoticeRef:
    try:
        origin = Origin(raw.get("origin", ""))
    except ValueError:
        origin = Origin.PORTAL_LIST
    published = raw.get("published_at")
    return NoticeRef(
        source=str(raw.get("source", "")),
        notice_id=str(raw.get("notice_id", "")),
        version=str(raw.get("version", "")),
        origin=str(origin),
        origin_label=str(ORIGIN_LABELS[origin]),
        published_at=datetime.fromisoformat(published) if published else None,
    )


def _value(name: str, raw) -> tuple[object, str]:
    if raw is None:
        return None, "text"
    if name == "submission_deadline":
        try:
            return datetime.fromisoformat(str(raw)), "datetime"
        except ValueError:
            return str(raw), "text"
    if name == "estimated_value":
        try:
            return Decimal(str(raw)), "money"
        except InvalidOperation:
            return str(raw), "text"
    return str(raw), "text"


def provenance_of(*, field_sources: dict, conflicts: list) -> Provenance:
    """The page's view of a tender's lineage and conflicts; anything malformed is left out, not fatal."""
    refs = [_ref(raw) for raw in (field_sources or {}).get("refs", []) if isinstance(raw, dict)]
    result = Provenance()
    shown = (field_sources or {}).get("fields", {})
    for name, label in FIELD_LABELS.items():
        index = shown.get(name)
        if isinstance(index, int) and 0 <= index < len(refs):
            entry = FieldSource(name=name, label=str(label), ref=refs[index])
            result.fields.append(entry)
            result.by_field[name] = entry
    grouped: dict[int, list[str]] = {}
    for name, index in shown.items():
        if name in FIELD_LABELS and isinstance(index, int) and 0 <= index < len(refs):
            grouped.setdefault(index, [])
    for entry in result.fields:
        grouped[shown[entry.name]].append(entry.label)
    # The strongest source first (official before portal, feed and mail), then in reference order.
    rank = {origin: position for position, origin in enumerate(ORIGIN_LABELS)}
    result.groups = [
        SourceGroup(ref=refs[index], labels=labels)
        for index, labels in sorted(grouped.items(), key=lambda item: (rank[Origin(refs[item[0]].origin)], item[0]))
    ]
    for raw in conflicts or []:
        name, index = raw.get("field"), raw.get("ref")
        if name not in CONFLICT_SLOTS or not isinstance(index, int) or not 0 <= index < len(refs):
            continue
        value, kind = _value(name, raw.get("value"))
        result.conflicts.setdefault(CONFLICT_SLOTS[name], []).append(
            Disagreement(name=name, label=str(FIELD_LABELS[name]), value=value, kind=kind, ref=refs[index])
        )
    return result
