"""The operators' daily digest: which sources failed, were blocked, read only part or little, or went stale.

Source health is the operators' business, never the customers' (their digests speak of matches and
deadlines, ``notifications.alerts.digest``). Once a day, from ``OPERATOR_DIGEST_HOUR`` Berlin time,
every active staff account of the public schema with an e-mail address gets one plain-text mail
about the runs since the previous digest (at most the last day), through the platform's own mail
path (``EMAIL_BACKEND``), never a tenant's SMTP route. The beat task runs hourly; the unique row per
Berlin day (``OperatorDigest``) makes every later tick of that day harmless.

A source is "stale" when its last success is older than both a day and three of its intervals (or it
never succeeded): it may fail nothing and still bring nothing, e.g. when its schedule was disabled.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django_tenants.utils import get_public_schema_name, schema_context

from kernel.vocabulary.time_zone import BERLIN
from sources.mail_runs import MAIL_SOURCE_KEY
from sources.models import OperatorDigest
from sources.run_words import reason_label
from sources.selectors import run_counts_since, source_health_list

logger = logging.getLogger(__name__)

OPERATOR_DIGEST_HOUR = 7  # Berlin time: after the night's DÖE export and before the working day
STALE_AFTER = timedelta(days=1)
STALE_INTERVALS = 3


@dataclass(frozen=True)
class SourceFinding:
    name: str
    text: str


@dataclass(frozen=True)
class OperatorReport:
    failing: tuple[SourceFinding, ...]  # failed or blocked runs
    weak: tuple[SourceFinding, ...]  # partial runs, low yields
    stale: tuple[SourceFinding, ...]
    mailboxes: tuple[str, ...]  # tenant schemas whose latest mailbox check failed
    healthy: int
    active: int

    @property
    def subject(self) -> str:
        problems = [
            f"{len(self.failing)} mit Störung" if self.failing else "",
            f"{len(self.weak)} mit wenig Ausbeute" if self.weak else "",
            f"{len(self.stale)} veraltet" if self.stale else "",
            f"{len(self.mailboxes)} {'Postfach' if len(self.mailboxes) == 1 else 'Postfächer'} fehlerhaft"
            if self.mailboxes
            else "",
        ]
        problems = [p for p in problems if p]
        if not problems:
            return f"alle {self.active} Quellen in Ordnung"
        return "Quellen: " + ", ".join(problems)


def _moment(value: datetime | None) -> str:
    return value.astimezone(BERLIN).strftime("%d.%m.%Y, %H:%M Uhr") if value else "noch nie"


def _reasons(reasons: dict[str, int]) -> str:
    return ", ".join(f"{reason_label(code) or 'ohne Angabe'} ({count}×)" for code, count in reasons.items())


def operator_report(*, sources, counts: dict[int, dict], now: datetime) -> OperatorReport:
    """The findings per source (pure): ``sources`` from ``source_health_list``, ``counts`` from ``run_counts_since``."""
    failing, weak, stale, mailboxes, healthy, active = [], [], [], [], 0, 0
    for source in sources:
        mailboxes += list(source.failing_mailboxes or ())
        if not source.is_active or source.key == MAIL_SOURCE_KEY:
            continue
        active += 1
        found = False
        runs = counts.get(source.pk) or {"runs": 0, "failed": 0, "blocked": 0, "partial": 0, "low_yield": 0}
        if runs["failed"] or runs["blocked"]:
            parts = [f"{runs['failed']} von {runs['runs']} Läufen fehlgeschlagen" if runs["failed"] else ""]
            parts.append(f"{runs['blocked']} blockiert" if runs["blocked"] else "")
            why = _reasons(runs.get("reasons") or {})
            text = ", ".join(p for p in parts if p) + (f" – {why}" if why else "")
            failing.append(SourceFinding(source.name, f"{text}; letzter Erfolg: {_moment(source.last_success_at)}"))
            found = True
        if runs["partial"] or runs["low_yield"]:
            parts = [
                f"{runs['partial']} von {runs['runs']} Läufen nur teilweise" if runs["partial"] else "",
                f"{runs['low_yield']} mit deutlich weniger Treffern als üblich" if runs["low_yield"] else "",
            ]
            weak.append(SourceFinding(source.name, ", ".join(p for p in parts if p)))
            found = True
        limit = max(STALE_AFTER, timedelta(minutes=STALE_INTERVALS * source.schedule_minutes))
        if source.last_success_at is None or now - source.last_success_at > limit:
            text = f"kein erfolgreicher Abruf seit {_moment(source.last_success_at)}"
            if source.last_success_at is None:
                text = "noch nie erfolgreich abgerufen"
            stale.append(SourceFinding(source.name, text))
            found = True
        healthy += not found
    return OperatorReport(tuple(failing), tuple(weak), tuple(stale), tuple(sorted(mailboxes)), healthy, active)


def operator_recipients() -> list[str]:
    """Active staff accounts of the public schema (the operators) that have an e-mail address."""
    with schema_context(get_public_schema_name()):
        users = get_user_model().objects.filter(is_active=True, is_staff=True).exclude(email="")
        return sorted(set(users.values_list("email", flat=True)))


def operator_digest_send(*, now: datetime | None = None) -> OperatorDigest | None:
    """Send today's operator digest if it is due and not sent yet; None otherwise. Idempotent per Berlin day."""
    now = now or timezone.now()
    local = now.astimezone(BERLIN)
    if local.hour < OPERATOR_DIGEST_HOUR:
        return None
    recipients = operator_recipients()
    if not recipients:
        logger.warning("operator digest: no active staff account with an e-mail address; nothing sent")
        return None
    with schema_context(get_public_schema_name()), transaction.atomic():
        previous = OperatorDigest.objects.filter(day__lt=local.date()).order_by("-day").first()
        digest, created = OperatorDigest.objects.get_or_create(
            day=local.date(), defaults={"sent_at": now, "subject": "", "recipients": recipients}
        )
        if not created:
            return None  # sent today already (or another worker sends it right now and holds the row)
        since = max(previous.sent_at, now - timedelta(days=1)) if previous else now - timedelta(days=1)
        report = operator_report(sources=source_health_list(), counts=run_counts_since(since=since), now=now)
        subject = f"Tender Radar Betrieb {local:%d.%m.%Y}: {report.subject}"
        changelist = reverse("admin:sources_source_changelist", urlconf=settings.PUBLIC_SCHEMA_URLCONF)
        console = settings.PORTAL_URL_FORMAT.format(domain=settings.TENDER_RADAR_PUBLIC_HOST) + changelist
        body = render_to_string(
            "mail/operator_digest.txt", {"report": report, "since": _moment(since), "console_url": console}
        )
        # Sent inside the transaction that holds the day's row: a failed send rolls the row back and the
        # next hourly tick tries again. Only a commit failing after the server took the mail repeats it.
        send_mail(subject=subject, message=body, from_email=None, recipient_list=recipients)
        digest.subject = subject[:250]
        digest.save(update_fields=["subject"])
    return digest
