"""One feed item -> one ``NoticeRecord``, as German buyers write their feed items.

The description HTML (usually CDATA) is read into "Label: value" fields with the shared label vocabulary
(:mod:`sources.adapters.mail.fields`, deadline labels from :mod:`kernel.vocabulary.deadlines`):
service.bund.de prints ``Erfüllungsort: <strong>…</strong><br />Angebotsfrist: <strong>dd.mm.yyyy HH:MM</strong>``;
Vergabeplattform Berlin prints ``Verfahrensart: Offenes Verfahren (VgV)<br>Ausführungsort: 13187, Berlin<br>
Ablauf Angebotsfrist: 14.10.2026, 11:00 Uhr<br>Online seit: 13.09.2026``; scraped feeds ``Typ: …, Veröffentlicher: …``.

Read per item: each kind of deadline as its own date (Angebotsfrist, Teilnahmefrist, Fragenfrist and the
Eröffnungstermin, which is never the deadline); the publication date from ``pubDate`` (RFC 822 without a
zone is Europe/Berlin local time, as the portal means it) else "Online seit" / "Veröffentlicht am"; the
place as "PLZ Ort" or "PLZ, Ort" with its Bundesland ("Berlin" alone is town and Land); the legal basis from
a label or from the bracket after the procedure ("Offenes Verfahren (VgV)", "(VOB-EU)", "(LHO)"); the notice
kind from the item's wording, else the feed's title ("Vorinformationen", "Vergebene Aufträge").

Honesty: a field the item states but that cannot be read (a date that is no date, a procedure or legal
basis not in the vocabulary, a dated line under a label no vocabulary knows) is a field problem, never a
silent empty; the field stays empty.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from email.utils import parsedate_tz
from typing import Any

from bs4 import BeautifulSoup

from kernel.addresses import bundesland_for_place, town_in_text
from kernel.normalise import clean_text
from kernel.records import Deadline, NoticeKind, NoticeRecord
from kernel.urls import UrlRefused, parse_url
from kernel.vocabulary.contract_nature import contract_nature_code, states_a_nature
from kernel.vocabulary.deadlines import DeadlineKind, deadline_label
from kernel.vocabulary.legal_basis import above_eu_threshold, legal_basis_code, legal_basis_in_text
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.mail.fields import (
    bundesland_named,
    html_to_text,
    kind_from_text,
    labelled_fields,
    parse_field_date,
    split_place,
    unknown_labelled_values,
)
from sources.adapters.rss.identity import notice_id, without_tracking
from sources.parsers.eforms import portal_references_from_urls

__all__ = ["ItemReading", "item_record"]

# The labelled field of each kind of deadline (sources.adapters.mail.fields.FIELD_LABELS).
_DEADLINE_FIELDS = (
    (DeadlineKind.TENDER, "deadline"),
    (DeadlineKind.PARTICIPATION, "participation_deadline"),
    (DeadlineKind.QUESTIONS, "questions_deadline"),
    (DeadlineKind.OPENING, "opening"),
)
_GERMAN_DATE = re.compile(r"\b\d{1,2}\.\d{1,2}\.\d{4}\b")
# RFC 822 date-time whose zone is missing ("Sun, 13 Sep 2026 10:33:29"): the portal's local time.
_RFC822_WITHOUT_ZONE = re.compile(r"^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?$")
_BRACKETED = re.compile(r"\(([^()]{2,40})\)")
# The legal basis DTVP's "Typ" column starts with ("VOB/A Ausschreibung", "VgV TNW", "SektVO Vergebener Auftrag").
_LEGAL_BASIS_PREFIX = re.compile(
    r"^\s*(?:VOB/A(?:[\s-]EU)?|VOB|VgV|UVgO|VOL/A|VOL|SektVO|VSVgV|KonzVgV)\b", re.IGNORECASE
)
# Stages of a cosinex project that say nothing about the procedure: the call for tenders ("Ausschreibung")
# and the participation competition ("TNW"), which several procedures have.
_STAGE_ONLY = frozenset({"ausschreibung", "tnw", "teilnahmewettbewerb", "bekanntmachung"})
# A bracket after the procedure that abbreviates a rule ("(LHO)", "(VOB / A)"): two capitals, no remark
# ("(mit Teilnahmewettbewerb)"). One the vocabulary cannot read is a stated legal basis left unread.
_RULE_ABBREVIATION = re.compile(r"^(?=(?:[^A-ZÄÖÜ]*[A-ZÄÖÜ]){2})[A-Za-zÄÖÜäöü/.\- ]{2,15}$")
# Berlin and Hamburg are one municipality each: the Land's name alone is the town as well (Bremen has two).
_ONE_TOWN_LANDS = frozenset({"Berlin", "Hamburg"})
_SCRIPT_URL = re.compile(r"https?://[^\s'\"<>()]+")
_DURATION = re.compile(r"^(\d{1,3})\s*(monat|jahr|woche)", re.IGNORECASE)


@dataclass(frozen=True)
class ItemReading:
    record: NoticeRecord | None
    problems: tuple[str, ...] = ()  # about the item as a whole (it was skipped)
    field_problems: tuple[tuple[str, str], ...] = ()  # (field, what was stated and why it stays empty)


def item_record(
    entry: Mapping[str, Any],
    *,
    source: str,
    base_url: str = "",
    feed_title: str = "",
    labels: Mapping[str, tuple[str, ...]] | None = None,
    family: str = "",
) -> ItemReading:
    title = clean_text(entry.get("title"), limit=1000)
    link = without_tracking(_absolute(base_url, _script_target(entry.get("link"))))
    guid = without_tracking(_script_target(clean_text(entry.get("id"))))
    html = _description_html(entry)
    text = html_to_text(html)
    fields = labelled_fields(text, extra_labels=labels)
    notice = notice_id(link=link, guid=guid, title=title or fields.get("title", ""))
    if not notice:
        return ItemReading(None, problems=("no link and no guid: the item cannot be tracked, skipped",))
    gaps: list[tuple[str, str]] = []
    deadlines = _deadlines(fields, gaps)
    postal_code, town = split_place(fields.get("place"))
    if not (postal_code or town):
        postal_code, town = _place_in_subject(fields.get("subject", ""))
    named_land = bundesland_named(town)  # "Erfüllungsort: Bayern" names a Land, not a town
    procedure_text = fields.get("procedure", "")
    procedure = _procedure(procedure_text, gaps)
    legal_basis = _legal_basis(fields, text, gaps)
    nature = contract_nature_code(fields.get("nature"))
    # Berlin's intended limited tenders name the trade under "Art der Leistung" ("Malerarbeiten"): that
    # is what the work is, not a nature left unread; only a value worded as a nature and not read is.
    if fields.get("nature") and not nature and states_a_nature(fields["nature"]):
        gaps.append(("nature", f"Art der Leistung {fields['nature']!r} is not in the vocabulary; left empty"))
    kind = _kind(fields, feed_title)
    start, end, duration = _period(fields.get("period", ""), gaps)
    _unassigned_dates(text, labels, gaps)
    description_links = [a.get("href") for a in BeautifulSoup(html, "html.parser").find_all("a", href=True)]
    supplier = clean_text(fields.get("supplier"), limit=500)
    record = NoticeRecord(
        source=source,
        origin=Origin.FEED,
        source_notice_id=notice,
        kind=kind,
        title=title or clean_text(fields.get("title"), limit=1000),
        description=clean_text(text, limit=5000),
        buyer_name=clean_text(fields.get("buyer"), limit=500),
        procedure_type="" if procedure == "other" else procedure,
        postal_code=postal_code,
        # "Bayern" alone names the Land, no town; "Berlin" (also ", Berlin" with its postcode left empty) the city.
        town="" if named_land and not postal_code and named_land not in _ONE_TOWN_LANDS else town[:200],
        bundesland=named_land or bundesland_for_place(nuts_codes=(), postal_code=postal_code, country=""),
        published_at=_published(entry, fields, gaps),
        submission_deadline=_first(deadlines, DeadlineKind.TENDER) or _first(deadlines, DeadlineKind.PARTICIPATION),
        questions_deadline=_first(deadlines, DeadlineKind.QUESTIONS),
        deadlines=tuple(deadlines),
        legal_basis=legal_basis,
        above_eu_threshold=above_eu_threshold([legal_basis] if legal_basis else [], procedure_type=procedure),
        contract_nature=nature,
        contract_start=start,
        contract_end=end,
        contract_duration=duration,
        suppliers=(supplier,) if supplier and kind == NoticeKind.AWARD else (),
        url=link,  # checked at the ingest boundary (kernel.links), which records a dropped link
        portal_references=portal_references_from_urls([link, guid, *description_links]),
        payload={"rss": {"guid": guid, "fields": fields, **({"family": family} if family else {})}},
    )
    return ItemReading(record, field_problems=tuple(gaps))


def _procedure(text: str, gaps: list[tuple[str, str]]) -> str:
    """ "Offenes Verfahren (VgV)" and DTVP's "Typ: VOB/A Öffentliche Ausschreibung" -> the procedure's code.

    A value that names only the legal basis and the project's stage ("VOB/A Ausschreibung", "VgV TNW",
    "Vorinformation") states no procedure: empty, and nothing left unread. Anything else the vocabulary
    does not know is a field problem.
    """
    rest = _LEGAL_BASIS_PREFIX.sub("", _BRACKETED.sub("", text)).strip(" ,:-")
    code = procedure_type_code(rest)
    if code != "other":
        return code
    if rest.casefold() in _STAGE_ONLY or kind_from_text(text) != NoticeKind.CONTRACT_NOTICE:
        return ""
    gaps.append(("procedure", f"Verfahrensart {text!r} is not in the vocabulary; left empty"))
    return ""


def _deadlines(fields: Mapping[str, str], gaps: list[tuple[str, str]]) -> list[Deadline]:
    found: list[Deadline] = []
    for kind, name in _DEADLINE_FIELDS:
        raw = fields.get(name)
        if not raw:
            continue
        # A deadline given as a day counts to its end; an opening at a day alone is not "the whole day".
        read = parse_field_date(raw, end_of_day=kind != DeadlineKind.OPENING)
        if read.problem:
            gaps.append(("deadline", f"{deadline_label(kind)} {read.problem}; left empty"))
        elif read.value is not None:
            found.append(Deadline(kind=kind, at=read.value))
    return found


def _first(deadlines: list[Deadline], kind: DeadlineKind) -> datetime | None:
    return next((d.at for d in deadlines if d.kind == kind), None)


def _published(entry: Mapping[str, Any], fields: Mapping[str, str], gaps: list[tuple[str, str]]) -> datetime | None:
    # dict.get: FeedParserDict maps a missing "updated_parsed" to "published_parsed" with a warning.
    raw = clean_text(dict.get(entry, "published") or dict.get(entry, "updated"))
    value = _feed_date(entry, raw)
    if value is not None:
        return value
    fallback = parse_field_date(fields.get("published"))
    if fallback.value is not None:
        return fallback.value
    if raw:
        gaps.append(("published", f"publication date {raw!r} is no date; left empty"))
    elif fallback.problem:
        gaps.append(("published", f"Veröffentlichungsdatum {fallback.problem}; left empty"))
    return None


def _feed_date(entry: Mapping[str, Any], raw: str) -> datetime | None:
    if raw and _RFC822_WITHOUT_ZONE.match(raw):
        # feedparser refuses these (or would read UTC); the portal prints its own clock.
        parts = parsedate_tz(raw)
        try:
            return datetime(*parts[:6], tzinfo=BERLIN) if parts else None
        except (TypeError, ValueError):
            return None
    parsed = dict.get(entry, "published_parsed") or dict.get(entry, "updated_parsed")
    if not parsed:
        return None
    try:
        return datetime(*parsed[:6], tzinfo=UTC)
    except (TypeError, ValueError):
        return None


def _legal_basis(fields: Mapping[str, str], text: str, gaps: list[tuple[str, str]]) -> str:
    stated = fields.get("legal_basis", "")
    if stated:
        code = legal_basis_code(stated)
        code = legal_basis_in_text(stated) if code == "other" else code
        if code:
            return code
        gaps.append(("legal_basis", f"Rechtsgrundlage {stated!r} is not in the vocabulary; left empty"))
        return ""
    # "Offenes Verfahren (VgV)", "Öffentliche Ausschreibung (UVgO)": the bracket after the procedure.
    procedure = fields.get("procedure", "")
    for candidate in (procedure, *_BRACKETED.findall(text)):
        code = legal_basis_in_text(candidate)
        if code:
            return code
    for bracket in _BRACKETED.findall(procedure):
        inner = bracket.strip()
        if _RULE_ABBREVIATION.match(inner) and not _names_the_procedure(inner, procedure):
            detail = f"Rechtsgrundlage {inner!r} ({procedure!r}) is not in the vocabulary; left empty"
            gaps.append(("legal_basis", detail))
    return ""


def _names_the_procedure(abbreviation: str, procedure: str) -> bool:
    """ "Öffentliche Ausschreibung (ÖA)", "Beschränkte Ausschreibung (TNW)": the bracket shortens the procedure or
    its stage, it names no rule."""
    if abbreviation.casefold() in _STAGE_ONLY:
        return True
    initials = "".join(word[0] for word in _BRACKETED.sub("", procedure).split() if word[:1].isupper())
    return abbreviation.replace(" ", "").casefold() == initials.casefold()


def _kind(fields: Mapping[str, str], feed_title: str) -> NoticeKind:
    """The item's own wording first ("Art der Bekanntmachung", "Typ", "Kategorie"), else the feed's title."""
    own = " ".join(fields.get(name, "") for name in ("notice_type", "category", "stage", "procedure"))
    kind = kind_from_text(own)
    return kind if kind != NoticeKind.CONTRACT_NOTICE else kind_from_text(feed_title)


def _period(raw: str, gaps: list[tuple[str, str]]) -> tuple[date | None, date | None, str]:
    """ "01.01.2027 - 31.12.2027" -> start and end; "24 Monate" -> a duration; else a field problem."""
    if not raw:
        return None, None, ""
    days = [parse_field_date(found).value for found in _GERMAN_DATE.findall(raw)]
    days = [day.date() for day in days if day is not None]
    if days:
        return days[0], days[1] if len(days) > 1 else None, ""
    match = _DURATION.match(raw)
    if match:
        return None, None, f"P{match.group(1)}{ {'monat': 'M', 'jahr': 'Y', 'woche': 'W'}[match.group(2).lower()] }"
    gaps.append(("period", f"Ausführungsfrist {raw!r} names no dates; left empty"))
    return None, None, ""


def _unassigned_dates(text: str, labels: Mapping[str, tuple[str, ...]] | None, gaps: list[tuple[str, str]]) -> None:
    """A dated line under a label no vocabulary knows: a date the item states and nothing reads."""
    for label, value in unknown_labelled_values(text, extra_labels=labels):
        if _GERMAN_DATE.search(value):
            gaps.append(("date", f"{label}: {value!r} is under a label the vocabulary does not know; not read"))


def _description_html(entry: Mapping[str, Any]) -> str:
    for content in entry.get("content") or ():
        if content.get("value"):
            return str(content["value"])
    return str(entry.get("summary") or entry.get("description") or "")


def _script_target(value: Any) -> Any:
    """The page a ``javascript:openProjectPopup('https://…', '…')`` link opens, else the value as given.

    A DTVP list scraped into a feed links each project by the portal's own popup script; the URL in it is
    the project page, the script is no link anyone can follow (the ingest would drop it).
    """
    if not isinstance(value, str) or not value.strip().lower().startswith("javascript:"):
        return value
    found = _SCRIPT_URL.search(value)
    return found.group(0) if found else value


def _absolute(base_url: str, link: Any) -> str:
    link = clean_text(link if isinstance(link, str) else "")
    if not link:
        return ""
    try:
        # Resolved as a feed reader's browser resolves it (WHATWG): the serialisation names the host
        # every later reader sees. What cannot be read stays as given, for the ingest's link check to name.
        return parse_url(link, base=base_url or None).href
    except UrlRefused:
        return link


def _place_in_subject(subject: str) -> tuple[str, str]:
    """(PLZ, town) where the item has no place field but its subject ends in one ("Goethe-Gymnasium, 12205 Berlin").

    Only a German "PLZ Ort" counts; the town ends at a " - " that starts the next part of the subject or at
    the end of its sentence ("in 10825 Berlin Schöneberg. Die Gerüste …"; "St. Ingbert" keeps its dot).
    """
    town, postal_code = town_in_text(subject)
    if not postal_code:
        return "", ""
    town = re.split(r"\s+[-–]\s+|(?<=[a-zäöüß]{4})\.(?:\s|$)", town, maxsplit=1)[0]
    return postal_code, town.rstrip(" -–")
