"""The operators' daily digest: source health in German words, through the platform's SMTP, once per day."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from kernel.vocabulary.time_zone import BERLIN
from sources.models import FetchRun, OperatorDigest, Source
from sources.operator_digest import operator_digest_send


@pytest.fixture
def platform_smtp(settings, smtp_server):
    """The platform's own mail path (EMAIL_BACKEND) pointed at the real local SMTP server."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = smtp_server.host, smtp_server.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    return smtp_server


def _today_at(hour: int) -> datetime:
    return datetime.combine(timezone.now().astimezone(BERLIN).date(), time(hour), tzinfo=BERLIN)


def _runs() -> None:
    now = timezone.now()
    doe, ted = Source.objects.get(key="doe"), Source.objects.get(key="ted")
    Source.objects.filter(pk=ted.pk).update(is_active=True)
    five_hours_ago = now - timedelta(hours=5)
    FetchRun.objects.create(
        source=doe, started_at=five_hours_ago, finished_at=five_hours_ago, status="succeeded", fetched=40
    )
    for hours in (3, 2):
        FetchRun.objects.create(
            source=doe, started_at=now - timedelta(hours=hours), status="failed", error_reason="dns", error="x"
        )
    FetchRun.objects.create(
        source=ted,
        started_at=now - timedelta(hours=1),
        status="blocked",
        error_reason="changed_layout",
        error="Layout geändert auf https://ted.example/: 1 Ergebniszeilen gesehen, keine lesbar",
    )
    four_hours_ago = now - timedelta(hours=4)
    FetchRun.objects.create(
        source=ted, started_at=four_hours_ago, finished_at=four_hours_ago, status="succeeded", low_yield=True
    )
    mail = Source.objects.get(key="mail")
    FetchRun.objects.create(source=mail, trigger="mailbox", scope="alpha", started_at=now, status="failed")


@pytest.mark.django_db
def test_the_operators_get_source_health_in_words_once_a_day(alpha, platform_smtp):
    get_user_model().objects.create(username="ops2@example.org", email="ops2@example.org", is_staff=True)
    get_user_model().objects.create(username="gone@example.org", email="gone@example.org", is_staff=False)
    _runs()

    assert operator_digest_send(now=_today_at(6)) is None  # before the hour: not yet
    digest = operator_digest_send(now=_today_at(9))
    assert digest is not None and OperatorDigest.objects.count() == 1

    (message,) = platform_smtp.messages
    _sender, recipients = platform_smtp.handler.envelopes[0]
    assert sorted(recipients) == ["operator@example.org", "ops2@example.org"]  # staff of the public schema only
    subject = str(message["Subject"]).strip()
    assert subject.startswith(f"Tender Radar Betrieb {_today_at(9):%d.%m.%Y}: Quellen: 2 mit Störung")
    assert "1 mit wenig Ausbeute" in subject and "1 Postfach fehlerhaft" in subject
    stale = Source.objects.filter(is_active=True).exclude(key__in=("doe", "ted", "mail")).count()
    assert f"{stale} veraltet" in subject  # active, never run: no success to speak of
    body = message.get_content()
    assert "2 von 3 Läufen fehlgeschlagen – Servername nicht auflösbar (DNS) (2×)" in body
    assert "1 blockiert – Layout geändert: Ergebniszeilen nicht mehr lesbar (1×)" in body
    assert "1 mit deutlich weniger Treffern als üblich" in body
    assert "Postfächer der Mandanten, deren letzte Prüfung fehlschlug: alpha" in body
    host = settings.PORTAL_URL_FORMAT.format(domain=settings.TENDER_RADAR_PUBLIC_HOST)
    assert f"{host}/admin/sources/source/" in body  # the console's source list, on the operators' host
    for code in ("changed_layout", " dns", "failed", "blocked:", "low_yield"):
        assert code not in body, code

    # Every later tick of the day is harmless.
    assert operator_digest_send(now=_today_at(10)) is None
    assert operator_digest_send(now=_today_at(23)) is None
    assert len(platform_smtp.messages) == 1


@pytest.mark.django_db
def test_a_refused_send_leaves_the_day_open_for_the_next_tick(platform_smtp):
    platform_smtp.reply_next_with("451 4.3.0 try again later")
    with pytest.raises(Exception):  # noqa: B017  (smtplib's error, whichever the server's reply maps to)
        operator_digest_send(now=_today_at(8))
    assert not OperatorDigest.objects.exists()

    assert operator_digest_send(now=_today_at(9)) is not None
    assert len(platform_smtp.messages) == 1
    assert "Quellen" in platform_smtp.messages[0]["Subject"]


@pytest.mark.django_db
def test_without_an_operator_address_nothing_is_sent_or_claimed(platform_smtp):
    get_user_model().objects.filter(is_staff=True).update(email="")
    assert operator_digest_send(now=_today_at(9)) is None
    assert platform_smtp.messages == [] and not OperatorDigest.objects.exists()


@pytest.mark.django_db
def test_the_schedules_command_writes_the_hourly_operator_digest():
    from config.celery import app

    app.loader.import_default_modules()  # what a worker does at start
    call_command("setup_schedules")
    task = PeriodicTask.objects.get(name="sources: operator digest")
    assert (task.task, task.interval.every, task.enabled) == ("sources.send_operator_digest", 60, True)
    assert task.task in app.tasks
