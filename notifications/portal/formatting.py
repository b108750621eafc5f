"""Pure presentation rules of the portal: deadline wording, change history, chart geometry, safe links.

No ORM and no request here: these functions take plain values, so every rule
is tested without a database. Wording is translated at call time (gettext), in the active
language; the deadline wording is kept per language and day count once translated.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation

from django.utils.formats import date_format
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from kernel.links import safe_link
from kernel.vocabulary.contract_nature import contract_nature_label
from kernel.vocabulary.cpv import cpv_label
from kernel.vocabulary.deadlines import DeadlineKind, deadline_label
from kernel.vocabulary.legal_basis import legal_basis_label
from kernel.vocabulary.places import kreis_by_key
from kernel.vocabulary.procedures import procedure_type_label
from kernel.vocabulary.time_zone import BERLIN
from tenders.filter_fields import FILTER_FIELDS, Q_SCOPE_CHOICES
from tenders.filters import TenderFilters
from tenders.models import TENDER_STATUS_LABELS

# --- deadlines ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeadlineDistance:
    text: str
    urgency: str  # "past" | "urgent" (≤ 3 days) | "soon" (≤ 7 days) | "later"


def deadline_distance(deadline: datetime | None, *, now: datetime) -> DeadlineDistance | None:
    """ "heute", "morgen", "in N Tagen" or "abgelaufen", counted in Berlin calendar days."""
    if deadline is None:
        return None
    if deadline < now:
        return _distance(get_language(), None)
    return _distance(get_language(), (deadline.astimezone(BERLIN).date() - now.astimezone(BERLIN).date()).days)


# Per language and day count: a result page words 25 deadlines, most of them a few weeks out.
@functools.lru_cache(maxsize=512)
def _distance(language: str | None, days: int | None) -> DeadlineDistance:
    if days is None:
        return DeadlineDistance(_("abgelaufen"), "past")
    if days == 0:
        text = _("heute")
    elif days == 1:
        text = _("morgen")
    else:
        text = ngettext("in %(days)d Tag", "in %(days)d Tagen", days) % {"days": days}
    urgency = "urgent" if days <= 3 else "soon" if days <= 7 else "later"
    return DeadlineDistance(text, urgency)


# --- portal references ------------------------------------------------------------------------------------

PORTAL_FAMILY_NAMES = {
    "netserver": gettext_lazy("Vergabeplattform Vergabe@Net (NetServer)"),
    "cosinex": gettext_lazy("Vergabemarktplatz (cosinex)"),
    "dtad": gettext_lazy("DTAD"),
}


def portal_references_shown(references) -> list[dict[str, str]]:
    """``Tender.portal_references`` ("netserver:<TenderOID>") as the portal's kind and its id there.

    They are merge keys without a host, so nothing here is a link; the page's sources carry the links."""
    shown = []
    for reference in references or ():
        family, _sep, value = str(reference).partition(":")
        if value:
            shown.append({"portal": str(PORTAL_FAMILY_NAMES.get(family, family)), "id": value})
    return shown


# --- version history ---------------------------------------------------------------------------------------

CHANGE_LABELS = {
    "submission_deadline": gettext_lazy("Angebotsfrist"),
    "questions_deadline": gettext_lazy("Frist für Bieterfragen"),
    "status": gettext_lazy("Status"),
    "estimated_value": gettext_lazy("Geschätzter Wert"),
    "title": gettext_lazy("Titel"),
    "contract_start": gettext_lazy("Ausführungsbeginn"),
}
_DATETIME_FIELDS = {"submission_deadline", "questions_deadline"}
_DATE_FIELDS = {"contract_start"}  # a day, stored as "2026-10-01": shown as the reader's date, never as ISO
NOTICE_KIND_LABELS = {
    "prior_information": gettext_lazy("Vorinformation"),
    "contract_notice": gettext_lazy("Auftragsbekanntmachung"),
    "change": gettext_lazy("Änderungsbekanntmachung"),
    "award": gettext_lazy("Vergabebekanntmachung"),
    "cancellation": gettext_lazy("Aufhebung"),
}


def notice_kind_label(kind: str) -> str:
    return str(NOTICE_KIND_LABELS.get(kind, kind))


# The German names of kernel.vocabulary.procedures.PROCEDURE_TYPES, marked for translation
# (shared code has no UI strings).
PROCEDURE_TYPE_LABELS = {
    "open": gettext_lazy("Offenes Verfahren"),
    "restricted": gettext_lazy("Nicht offenes Verfahren"),
    "negotiated_with_call": gettext_lazy("Verhandlungsverfahren mit Teilnahmewettbewerb"),
    "negotiated_without_call": gettext_lazy("Verhandlungsverfahren ohne Teilnahmewettbewerb"),
    "competitive_dialogue": gettext_lazy("Wettbewerblicher Dialog"),
    "innovation_partnership": gettext_lazy("Innovationspartnerschaft"),
    "public_tender": gettext_lazy("Öffentliche Ausschreibung"),
    "limited_tender": gettext_lazy("Beschränkte Ausschreibung"),
    "negotiated_award": gettext_lazy("Verhandlungsvergabe"),
    "other": gettext_lazy("Sonstiges Verfahren"),
}


def procedure_type_text(code: str) -> str:
    """The procedure type in the current language; unknown codes fall back to the shared German label."""
    if code in PROCEDURE_TYPE_LABELS:
        return str(PROCEDURE_TYPE_LABELS[code])
    return procedure_type_label(code) or code


# German labels of kernel.vocabulary (legal_basis, contract_nature, deadlines) that are words, not names:
# "VgV" or "VOB/A-EU" stay as they are in English, "Richtlinie 2014/24/EU" does not.
LEGAL_BASIS_TEXTS = {
    "vob-a": gettext_lazy("VOB/A (Abschnitt 1)"),
    "haushaltsrecht": gettext_lazy("Haushaltsrecht"),
    "eu-2014-24": gettext_lazy("Richtlinie 2014/24/EU"),
    "eu-2014-25": gettext_lazy("Richtlinie 2014/25/EU"),
    "eu-2014-23": gettext_lazy("Richtlinie 2014/23/EU"),
    "eu-2009-81": gettext_lazy("Richtlinie 2009/81/EG"),
    "other": gettext_lazy("Sonstige"),
}
CONTRACT_NATURE_TEXTS = {
    "works": gettext_lazy("Bauleistung"),
    "supplies": gettext_lazy("Lieferleistung"),
    "services": gettext_lazy("Dienstleistung"),
}
DEADLINE_TEXTS = {
    DeadlineKind.TENDER: gettext_lazy("Angebotsfrist"),
    DeadlineKind.PARTICIPATION: gettext_lazy("Teilnahmefrist"),
    DeadlineKind.QUESTIONS: gettext_lazy("Fragenfrist"),
    DeadlineKind.OPENING: gettext_lazy("Eröffnungstermin"),
}


def legal_basis_text(code: str) -> str:
    return str(LEGAL_BASIS_TEXTS[code]) if code in LEGAL_BASIS_TEXTS else legal_basis_label(code)


def contract_nature_text(code: str) -> str:
    return str(CONTRACT_NATURE_TEXTS[code]) if code in CONTRACT_NATURE_TEXTS else contract_nature_label(code)


def deadline_text(kind: str) -> str:
    return str(DEADLINE_TEXTS[kind]) if kind in DEADLINE_TEXTS else deadline_label(kind)


# --- durations ------------------------------------------------------------------------------------------------

_ISO_DURATION = re.compile(
    r"P(?!$)(?:(?P<years>\d+)Y)?(?:(?P<months>\d+)M)?(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?=\d)(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?)?"
)


def _duration_unit(unit: str, count: int) -> str:
    forms = {
        "years": ngettext("%(count)d Jahr", "%(count)d Jahre", count),
        "months": ngettext("%(count)d Monat", "%(count)d Monate", count),
        "weeks": ngettext("%(count)d Woche", "%(count)d Wochen", count),
        "days": ngettext("%(count)d Tag", "%(count)d Tage", count),
        "hours": ngettext("%(count)d Stunde", "%(count)d Stunden", count),
        "minutes": ngettext("%(count)d Minute", "%(count)d Minuten", count),
    }
    return forms[unit] % {"count": count}


def duration_text(raw: str | None) -> str:
    """An ISO 8601 duration as notices state it, in words: "P48M" → "48 Monate", "P2Y6M" → "2 Jahre 6 Monate".

    Anything that is not such a duration is returned as it came (a portal's own "48 Monate"); a zero
    duration ("P0D"), which says nothing about the contract, gives "".
    """
    text = (raw or "").strip()
    match = _ISO_DURATION.fullmatch(text.upper())
    if match is None:
        return text
    parts = [_duration_unit(unit, int(value)) for unit, value in match.groupdict().items() if value and int(value)]
    return " ".join(parts)


# --- notices -------------------------------------------------------------------------------------------------

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def notice_text(notice_id: str, publication_number: str = "") -> str:
    """What a notice is called on the page: its publication number ("615938-2024") where it has one,
    else the portal's id, except an eForms UUID, which no reader can use: then ""."""
    if publication_number:
        return publication_number
    notice_id = (notice_id or "").strip()
    return "" if _UUID.fullmatch(notice_id) or _UUID.match(notice_id) else notice_id


@dataclass(frozen=True)
class ChangeLine:
    field: str
    label: str
    kind: str  # "datetime" | "money" | "text": how the template formats old/new
    old: object
    new: object


def _change_value(name: str, raw):
    if raw in (None, ""):
        return None
    if name in _DATETIME_FIELDS:
        try:
            return datetime.fromisoformat(str(raw))
        except ValueError:
            return str(raw)
    if name in _DATE_FIELDS:
        try:
            return date.fromisoformat(str(raw)[:10])
        except ValueError:
            return str(raw)
    if name == "estimated_value":
        try:
            return Decimal(str(raw))
        except InvalidOperation:
            return str(raw)
    if name == "status":
        return str(TENDER_STATUS_LABELS.get(raw, raw))
    return str(raw)


def _deadline_moments(entries) -> dict[tuple[str, str], datetime | None]:
    moments = {}
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, Mapping) and entry.get("kind"):
            try:
                moments[(str(entry["kind"]), str(entry.get("lot_id") or ""))] = datetime.fromisoformat(str(entry["at"]))
            except (KeyError, ValueError):
                moments[(str(entry["kind"]), str(entry.get("lot_id") or ""))] = None
    return moments


# The list's Angebotsfrist and Fragenfrist of no lot are the tender's own fields, which have lines of their own.
_OWN_DEADLINES = {(DeadlineKind.TENDER, "submission_deadline"), (DeadlineKind.QUESTIONS, "questions_deadline")}


def _deadline_lines(pair, changes: Mapping) -> list[ChangeLine]:
    """A change of the deadline list (Teilnahmefrist, Bindefrist, …) as one line per deadline that differs."""
    before, after = _deadline_moments(pair[0]), _deadline_moments(pair[1])
    told = {str(kind) for kind, field_name in _OWN_DEADLINES if field_name in changes}
    lines = []
    for kind, lot in dict.fromkeys([*before, *after]):
        old, new = before.get((kind, lot)), after.get((kind, lot))
        if old != new and not (kind in told and not lot):
            label = deadline_text(kind) + (f" ({lot})" if lot else "")
            lines.append(ChangeLine("deadlines", label, "datetime", old, new))
    return lines


def change_lines(changes: Mapping | None) -> list[ChangeLine]:
    """``TenderVersion.changes`` ({field: [old, new]}) as labelled lines; malformed entries are skipped."""
    lines = []
    for name, pair in (changes or {}).items():
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            continue
        if name == "deadlines":
            lines += _deadline_lines(pair, changes)
            continue
        moment = name in _DATETIME_FIELDS or name in _DATE_FIELDS
        kind = "datetime" if moment else "money" if name == "estimated_value" else "text"
        old, new = _change_value(name, pair[0]), _change_value(name, pair[1])
        if kind == "datetime" and not all(v is None or isinstance(v, date) for v in (old, new)):
            kind = "text"
        if kind == "money" and not all(v is None or isinstance(v, Decimal) for v in (old, new)):
            kind = "text"
        lines.append(ChangeLine(name, str(CHANGE_LABELS.get(name, name)), kind, old, new))
    return lines


# --- saved search summary -------------------------------------------------------------------------------------

FILTER_LABELS = {field.name: field.summary for field in FILTER_FIELDS}


def _cpv_with_label(code: str) -> str:
    # A filter may name a division or group by its leading digits ("45"): its label is the padded code's.
    label = cpv_label(code.ljust(8, "0"), get_language() or "de")
    return f"{code} – {label}" if label else code


def _kreis_name(key: str) -> str:
    kreis = kreis_by_key(key)
    return kreis.name if kreis else key


def filters_summary(filters: TenderFilters) -> list[tuple[str, str]]:
    """Readable (label, value) pairs of the set filters, in form order."""
    rows = []
    for name, label in FILTER_LABELS.items():
        value = getattr(filters, name)
        if value in (None, "", ()):
            continue
        if name == "status":
            value = ", ".join(str(TENDER_STATUS_LABELS.get(s, s)) for s in value)
        elif name == "q_scope":
            value = dict(Q_SCOPE_CHOICES).get(value, value)
        elif name == "cpv":
            value = "; ".join(_cpv_with_label(code) for code in value)  # labels hold commas
        elif name == "kreis":
            value = "; ".join(_kreis_name(key) for key in value)  # names hold commas ("München, Landkreis")
        elif name == "umkreis_plz":
            # One line for the radius: "50 km um PLZ 70173"; the km row is left out below.
            value = _("%(km)s km um PLZ %(plz)s") % {"km": filters.umkreis_km, "plz": value}
        elif name == "umkreis_km" and filters.umkreis_plz:
            continue
        elif isinstance(value, tuple):
            value = ", ".join(value)
        elif isinstance(value, date):
            value = date_format(value, "SHORT_DATE_FORMAT")  # the active language's format
        rows.append((str(label), str(value)))
    return rows


# --- links ------------------------------------------------------------------------------------------------------


def external_url(url: str | None) -> str:
    """The URL if it is an http(s) link with a host, else "" (the one rule: ``kernel.links.safe_link``)."""
    return safe_link(url)


# --- chart ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    day: date
    count: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class DailyChart:
    bars: tuple[Bar, ...]
    width: int
    height: int
    max_count: int
    total: int


def daily_chart(
    counts: Mapping[date, int], *, end: date, days: int = 30, width: int = 600, height: int = 120
) -> DailyChart:
    """Bar geometry for ``days`` days ending at ``end`` (days without tenders are zero-height bars)."""
    series = [(end - timedelta(days=offset), 0) for offset in range(days - 1, -1, -1)]
    series = [(day, int(counts.get(day, 0))) for day, _zero in series]
    max_count = max((count for _day, count in series), default=0)
    slot = width / days
    gap = min(2.0, slot * 0.2)
    bars = []
    for index, (day, count) in enumerate(series):
        bar_height = round(height * count / max_count, 2) if max_count else 0.0
        if count and bar_height < 1:
            bar_height = 1.0  # a day with tenders is never invisible
        bars.append(
            Bar(
                day=day,
                count=count,
                x=round(index * slot, 2),
                y=round(height - bar_height, 2),
                width=round(slot - gap, 2),
                height=bar_height,
            )
        )
    return DailyChart(tuple(bars), width, height, max_count, sum(c for _d, c in series))
