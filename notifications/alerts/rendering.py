"""Alert mails: subject, plain text and HTML in the recipient's language (German or English).

Scraped tender titles are hostile: anything that ends up in a header goes through
``header_safe`` (no CR/LF or other control characters, bounded length); the HTML part
is rendered with autoescaping on; the text part is plain text, so nothing in it is
interpreted. Bodies come from ``templates/mail/<language>/``; short strings (subjects,
change labels) live here beside the rules that pick them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone, translation

from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.change_labels import change_label

LANGUAGES = ("de", "en")
MAX_TENDERS_PER_SECTION = 50
ONE_CLICK = "List-Unsubscribe=One-Click"

TEXTS = {
    "de": {
        "instant_one": "Neue Ausschreibung: {title}",
        "instant_many": "{count} neue Ausschreibungen",
        "change_one": "{label}: {title}",
        "change_many": "{count} Änderungen an gemeldeten Ausschreibungen",
        "digest": "Ihre Ausschreibungen: {new} neu, {changed} geändert",
        "digest_quiet": "Keine neuen Treffer – bitte Ihr Postfach für Portal-E-Mails prüfen",
        "test": "Testmail von Tender Radar",
        "deadline_extended": "Frist verlängert",
        "deadline_shortened": "Frist verkürzt",
        "deadline_set": "Frist festgelegt",
        "cancelled": "Aufgehoben",
        "awarded": "Vergeben",
        "no_deadline": "keine Frist angegeben",
        "no_value": "",
        "status": {"active": "laufend", "awarded": "vergeben", "cancelled": "aufgehoben", "expired": "abgelaufen"},
        "mailbox_new": "Aus Ihrem Postfach für Portal-E-Mails: {count} neue Bekanntmachungen",
        "mailbox_failed": (
            "Ihr Postfach für Portal-E-Mails konnte zuletzt nicht gelesen werden ({when}). "
            "Bitte prüfen Sie die Zugangsdaten unter Einstellungen → Postfach."
        ),
        "why": "Warum gefunden",
        "why_fields": {
            "title": "Titel",
            "buyer": "Auftraggeber",
            "description": "Beschreibung",
            "lots": "Lose",
            "cpv_labels": "CPV-Bezeichnung",
        },
        "why_only_cpv_label": "nur über eine CPV-Bezeichnung",
        "days_left": {0: "heute", 1: "morgen", "many": "noch {days} Tage", "past": "abgelaufen"},
    },
    "en": {
        "instant_one": "New tender: {title}",
        "instant_many": "{count} new tenders",
        "change_one": "{label}: {title}",
        "change_many": "{count} changes to tenders you were told about",
        "digest": "Your tenders: {new} new, {changed} changed",
        "digest_quiet": "No new matches – please check your mailbox for portal e-mails",
        "test": "Test mail from Tender Radar",
        "deadline_extended": "Deadline extended",
        "deadline_shortened": "Deadline shortened",
        "deadline_set": "Deadline set",
        "cancelled": "Cancelled",
        "awarded": "Awarded",
        "no_deadline": "no deadline given",
        "no_value": "",
        "status": {"active": "open", "awarded": "awarded", "cancelled": "cancelled", "expired": "expired"},
        "mailbox_new": "From your mailbox for portal e-mails: {count} new notices",
        "mailbox_failed": (
            "Your mailbox for portal e-mails could not be read last time ({when}). "
            "Please check its sign-in details under Settings → Mailbox."
        ),
        "why": "Why it matched",
        "why_fields": {
            "title": "title",
            "buyer": "buyer",
            "description": "description",
            "lots": "lots",
            "cpv_labels": "CPV label",
        },
        "why_only_cpv_label": "only through a CPV label",
        "days_left": {0: "today", 1: "tomorrow", "many": "{days} days left", "past": "expired"},
    },
}

_SPACES = re.compile(r"\s+")


def language_of(code: str | None) -> str:
    return code if code in LANGUAGES else settings.LANGUAGE_CODE if settings.LANGUAGE_CODE in LANGUAGES else "de"


def single_line(value: object, *, max_length: int) -> str:
    """One printable line: control, format and line/paragraph separator characters become spaces."""
    text = "".join(
        " " if unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp") else ch
        for ch in str(value or "")
    )
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= max_length else text[: max_length - 1].rstrip() + "…"


def header_safe(value: object, *, max_length: int = 200) -> str:
    """A value fit for a mail header: never a CR or LF (header injection), never unbounded."""
    return single_line(value, max_length=max_length)


def format_moment(value: datetime | None, language: str) -> str:
    if value is None:
        return ""
    local = value.astimezone(BERLIN)
    return local.strftime("%d.%m.%Y, %H:%M Uhr") if language == "de" else local.strftime("%Y-%m-%d %H:%M (Berlin)")


def _parse_moment(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def days_left_text(deadline: datetime | None, *, now: datetime, language: str) -> str:
    """How far the deadline is, in Berlin calendar days ("noch 5 Tage", "morgen", "abgelaufen"); "" without one."""
    if deadline is None:
        return ""
    words = TEXTS[language]["days_left"]
    if deadline <= now:
        return words["past"]
    days = (deadline.astimezone(BERLIN).date() - now.astimezone(BERLIN).date()).days
    return words[days] if days in (0, 1) else words["many"].format(days=days)


def format_value(value: Decimal | None, currency: str, language: str) -> str:
    if value is None:
        return ""
    amount = f"{value:,.0f}"
    if language == "de":
        amount = amount.replace(",", ".")
    return f"{amount} {currency or 'EUR'}"


@dataclass(frozen=True)
class TenderLine:
    tender_id: int
    title: str
    buyer: str
    place: str
    deadline: str
    value: str
    status: str
    url: str
    active: bool = True
    # Why it matched (tenders.highlighting): the title and a description snippet as (text, hit) segments,
    # and every CPV code with its exact label (hits marked).
    title_segments: tuple = ()
    snippet: tuple = ()
    cpv: tuple = ()
    reasons: str = ""  # "Warum gefunden: Titel: Reinigung · CPV 9091 → 90911200" (reasons_text)
    days_left: str = ""  # "noch 5 Tage" when the mail was made (days_left_text)
    # One-click triage for the person the mail goes to (``notifications.bid_links``): confirmation pages.
    review_url: str = ""
    dismiss_url: str = ""


@dataclass(frozen=True)
class ChangeLine:
    tender: TenderLine
    label: str
    old: str
    new: str


@dataclass(frozen=True)
class Section:
    name: str
    unsubscribe_url: str
    tenders: tuple[TenderLine, ...] = ()
    more: int = 0  # new matches beyond the section's limit: counted, not claimed (still "neu" in the portal)
    more_url: str = ""  # where they are listed (the profile's new matches)
    changes: tuple[ChangeLine, ...] = ()


@dataclass(frozen=True)
class MailboxLine:
    """The tenant's own mailbox (its IMAP settings) in the reader's words; ``problem``: they should look at it."""

    text: str
    problem: bool = False


@dataclass(frozen=True)
class RenderedMail:
    subject: str
    text_body: str
    html_body: str
    headers: dict[str, str] = field(default_factory=dict)


def tender_url(base_url: str, tender_id: int) -> str:
    # The portal's detail page; the path is part of the product's public URLs.
    return f"{base_url}/ausschreibung/{int(tender_id)}/"


def reasons_text(reasons: dict | None, language: str) -> str:
    """A match's reasons (``tenders.match_reasons.MatchReasons.as_json``) as one plain line, or ""."""
    if not reasons:
        return ""
    texts = TEXTS[language]
    parts = [
        f"{texts['why_fields'].get(hit['field'], hit['field'])}: {', '.join(hit['words'])}"
        for hit in reasons.get("words", ())
    ]
    parts += [
        f"CPV {c['code']}" if c["code"] == c["filter"] else f"CPV {c['filter']} → {c['code']}"
        for c in reasons.get("cpv", ())
    ]
    if not parts:
        return ""
    weak = f" ({texts['why_only_cpv_label']})" if reasons.get("only_cpv_label") else ""
    return single_line(f"{texts['why']}: {' · '.join(parts)}{weak}", max_length=400)


def tender_line(
    tender,
    *,
    base_url: str,
    language: str,
    highlight=None,
    reasons: dict | None = None,
    triage: tuple[str, str] = ("", ""),
    now: datetime | None = None,
) -> TenderLine:
    """One tender of a mail; ``triage``: the recipient's "prüfen" and "nicht relevant" links, when it has them."""
    texts = TEXTS[language]
    place = ", ".join(p for p in (tender.postal_code, tender.town) if p)
    if tender.bundesland:
        place = f"{place} ({tender.bundesland})" if place else tender.bundesland
    return TenderLine(
        tender_id=tender.pk,
        title=single_line(tender.title, max_length=300),
        buyer=single_line(tender.buyer_name, max_length=200),
        place=single_line(place, max_length=200),
        deadline=format_moment(tender.submission_deadline, language) or texts["no_deadline"],
        value=format_value(tender.estimated_value, tender.currency, language),
        status=texts["status"].get(tender.status, tender.status),
        url=tender_url(base_url, tender.pk),
        active=tender.status == "active",
        title_segments=highlight.title if highlight else (),
        snippet=highlight.snippet if highlight else (),
        cpv=highlight.cpv if highlight else (),
        reasons=reasons_text(reasons, language),
        days_left=days_left_text(tender.submission_deadline, now=now or timezone.now(), language=language),
        review_url=triage[0],
        dismiss_url=triage[1],
    )


def change_line(*, line: TenderLine, kind: str, old_value: str, new_value: str, language: str) -> ChangeLine:
    label = change_label(kind=kind, old_value=old_value, new_value=new_value)
    texts = TEXTS[language]
    old_moment, new_moment = _parse_moment(old_value), _parse_moment(new_value)
    if label.startswith("deadline"):
        old, new = format_moment(old_moment, language), format_moment(new_moment, language)
    else:
        old, new = texts["status"].get(old_value, old_value), texts["status"].get(new_value, new_value)
    return ChangeLine(tender=line, label=texts.get(label, label), old=old, new=new)


def unsubscribe_headers(url: str) -> dict[str, str]:
    """RFC 2369 + RFC 8058: mail clients offer a one-click unsubscribe that POSTs to ``url``."""
    return {"List-Unsubscribe": f"<{url}>", "List-Unsubscribe-Post": ONE_CLICK, "Auto-Submitted": "auto-generated"}


def instant_subject(*, language: str, search_name: str, tenders: Sequence[TenderLine]) -> str:
    texts = TEXTS[language]
    if len(tenders) == 1:
        body = texts["instant_one"].format(title=tenders[0].title)
    else:
        body = texts["instant_many"].format(count=len(tenders))
    return header_safe(f"[{search_name}] {body}")


def change_subject(*, language: str, search_name: str, changes: Sequence[ChangeLine]) -> str:
    texts = TEXTS[language]
    if len(changes) == 1:
        body = texts["change_one"].format(label=changes[0].label, title=changes[0].tender.title)
    else:
        body = texts["change_many"].format(count=len(changes))
    return header_safe(f"[{search_name}] {body}")


def digest_subject(*, language: str, new: int, changed: int) -> str:
    texts = TEXTS[language]
    if not new and not changed:
        return header_safe(texts["digest_quiet"])
    return header_safe(texts["digest"].format(new=new, changed=changed))


def render_mail(
    *,
    kind: str,
    language: str,
    subject: str,
    sections: Sequence[Section],
    unsubscribe_url: str,
    portal_url: str,
    mailbox: Sequence[MailboxLine] = (),
    period_start: datetime | None = None,
) -> RenderedMail:
    language = language_of(language)
    context = {
        "kind": kind,
        "subject": subject,
        "sections": sections,
        "mailbox": mailbox,
        "since": format_moment(period_start, language),
        "unsubscribe_url": unsubscribe_url,
        "portal_url": portal_url,
    }
    with translation.override(language):
        text = render_to_string(f"mail/{language}/alert.txt", context)
        html = render_to_string(f"mail/{language}/alert.html", context)
    return RenderedMail(
        subject=header_safe(subject, max_length=250),
        text_body=text,
        html_body=html,
        headers=unsubscribe_headers(unsubscribe_url),
    )


def render_test_mail(*, language: str, sender: str) -> RenderedMail:
    language = language_of(language)
    with translation.override(language):
        text = render_to_string(f"mail/{language}/test.txt", {"sender": sender})
    return RenderedMail(subject=TEXTS[language]["test"], text_body=text, html_body="")


def mailbox_lines(rows, *, language: str) -> list[MailboxLine]:
    """What the tenant's own mailbox brought, or that it could not be read: the tenant's settings, its business.

    Platform sources are never named here: their health is the operators' (sources.operator_digest);
    a customer cannot act on "DÖE: letzter Abruf fehlgeschlagen" and reads it as "the product is broken".
    A mailbox never checked yet or without new mail says nothing.
    """
    texts = TEXTS[language]
    lines = []
    for row in rows:
        if row.failing:
            when = format_moment(row.last_run_at, language)
            lines.append(MailboxLine(texts["mailbox_failed"].format(when=when), problem=True))
        elif row.new_since:
            count = f"{row.new_since:,}".replace(",", "." if language == "de" else ",")
            lines.append(MailboxLine(texts["mailbox_new"].format(count=count)))
    return lines
