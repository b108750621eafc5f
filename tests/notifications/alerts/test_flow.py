"""End to end: ingest → match task (real worker) → outbox → real SMTP server; digests on top.

Every test here uses committed data, a real Celery worker thread and an aiosmtpd server.
"""

from __future__ import annotations

import email.policy
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context

from config.celery import app
from notifications.models import Delivery, DeliveryKind, DeliveryStatus, TenderMatch
from sources.services import source_ingest_files
from tests.factories.records import MPI_EFORMS, eforms_record, open_deadline
from tests.notifications.alerts.helpers import (
    changed_notice,
    ingest,
    notice,
    preference,
    saved_search,
    settle,
    smtp_to,
    user,
    wait_for,
)

pytestmark = pytest.mark.usefixtures("celery_worker")


@pytest.fixture(autouse=True)
def _no_jitter(settings):
    settings.ALERTS_DIGEST_JITTER_SECONDS = 0


def _digest_tick(*schemas: str) -> None:
    """One beat tick of the digest fan-out, run by the worker like beat would."""
    with schema_context("public"):
        app.send_task("notifications.digest_fanout")
    wait_for(lambda: all(_digest_ran(s) for s in schemas), what="digest run in every tenant")
    settle(*schemas)


def _digest_ran(schema: str) -> bool:
    with schema_context(schema):
        from notifications.models import UserPreference

        return (
            not UserPreference.objects.filter(user__is_active=True, last_digest_at__isnull=True)
            .exclude(digest_interval="off")
            .exists()
        )


def test_instant_alert_is_the_only_mail_and_the_digest_does_not_repeat_it(committed_tenants, smtp_server):
    alpha, _beta = committed_tenants
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        member = user(alpha.member_email)
        preference(member, digest_interval="daily", digest_hour=0)
        preference(user(alpha.admin_email), digest_interval="off")
        saved_search(member, name="Dach Bayern", q="Dach", bundesland=("Bayern",), instant_alert=True)

    ingest(notice(title="Sanierung Dach Grundschule", bundesland="Bayern"), hand_off=True)
    wait_for(lambda: smtp_server.messages, what="instant mail")
    settle(alpha.schema_name)
    _digest_tick(alpha.schema_name)

    assert len(smtp_server.messages) == 1
    [message] = smtp_server.messages
    assert message["Subject"] == "[Dach Bayern] Neue Ausschreibung: Sanierung Dach Grundschule"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert str(message["List-Unsubscribe"]).strip().startswith("<https://alpha.localhost/abmelden-alert/")
    with schema_context(alpha.schema_name):
        match = TenderMatch.objects.get()
        assert match.notified_via == "instant"
        assert f"https://alpha.localhost/ausschreibung/{match.tender_id}/" in message.get_body(("plain",)).get_content()
        assert list(Delivery.objects.values_list("kind", "status")) == [(DeliveryKind.INSTANT, DeliveryStatus.SENT)]


def test_two_tenants_each_user_gets_one_digest_with_a_section_per_search(committed_tenants, smtp_server):
    alpha, beta = committed_tenants
    for tenant in (alpha, beta):
        with schema_context(tenant.schema_name):
            smtp_to(smtp_server)
            for email_address in (tenant.admin_email, tenant.member_email):
                owner = user(email_address)
                preference(owner, digest_interval="daily", digest_hour=0)
                saved_search(owner, name="Dach", q="Dach")
                saved_search(owner, name="Reinigung", q="Reinigung")

    ingest(notice(title="Dach der Turnhalle"), notice(title="Reinigung Rathaus"), hand_off=True)
    wait_for(lambda: _matches(alpha.schema_name) == 4 and _matches(beta.schema_name) == 4, what="matches")
    _digest_tick(alpha.schema_name, beta.schema_name)
    _digest_tick(alpha.schema_name, beta.schema_name)  # a second tick the same day sends nothing more

    recipients = sorted(m["To"] for m in smtp_server.messages)
    assert recipients == sorted([alpha.admin_email, alpha.member_email, beta.admin_email, beta.member_email])
    for message in smtp_server.messages:
        text = message.get_body(("plain",)).get_content()
        assert text.count("== Dach ==") == 1 and text.count("== Reinigung ==") == 1
        assert message["Subject"] == "Ihre Ausschreibungen: 2 neu, 0 geändert"


def _matches(schema: str) -> int:
    with schema_context(schema):
        return TenderMatch.objects.count()


def test_a_search_created_over_500_tenders_stays_silent_until_a_new_one_arrives(committed_tenants, smtp_server):
    alpha, _beta = committed_tenants
    ingest(*[notice(title=f"Dach Nummer {i}") for i in range(500)])
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        member = user(alpha.member_email)
        preference(member, digest_interval="daily", digest_hour=0)
        preference(user(alpha.admin_email), digest_interval="off")
        saved_search(member, q="Dach", instant_alert=True, active_since=timezone.now())

    _digest_tick(alpha.schema_name)
    assert smtp_server.messages == []

    new = ingest(notice(title="Dach des Bauhofs"), hand_off=True)
    wait_for(lambda: smtp_server.messages, what="instant mail")
    settle(alpha.schema_name)
    assert len(smtp_server.messages) == 1
    with schema_context(alpha.schema_name):
        assert list(TenderMatch.objects.values_list("tender_id", flat=True)) == list(new.created)


def test_a_deadline_change_of_a_told_tender_is_one_update_mail_and_a_repoll_is_none(committed_tenants, smtp_server):
    alpha, _beta = committed_tenants
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        member = user(alpha.member_email)
        preference(member, digest_interval="off")
        saved_search(member, name="Dach", q="Dach", instant_alert=True)
    record = notice(title="Dach Kita", submission_deadline=open_deadline(10))
    ingest(record, hand_off=True)
    wait_for(lambda: len(smtp_server.messages) == 1, what="instant mail")

    moved = changed_notice(record, submission_deadline=open_deadline(24))
    ingest(moved, hand_off=True)
    wait_for(lambda: len(smtp_server.messages) == 2, what="update mail")
    ingest(moved, hand_off=True)  # unchanged re-poll
    ingest(moved, now=timezone.now() + timedelta(hours=1), hand_off=True)
    settle(alpha.schema_name, quiet_seconds=2)

    assert len(smtp_server.messages) == 2
    update = smtp_server.messages[1]
    assert update["Subject"] == "[Dach] Frist verlängert: Dach Kita"
    text = update.get_body(("plain",)).get_content()
    before, after = (f"{moment:%d.%m.%Y}, 12:00 Uhr" for moment in (open_deadline(10), open_deadline(24)))
    assert f"bisher: {before} · jetzt: {after}" in text
    with schema_context(alpha.schema_name):
        assert Delivery.objects.filter(kind=DeliveryKind.CHANGE).count() == 1


def test_a_hostile_title_arrives_harmless_in_headers_and_html(committed_tenants, smtp_server):
    alpha, _beta = committed_tenants
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        saved_search(user(alpha.member_email), name="Dach", q="Dach", instant_alert=True)
    title = "Dach\r\nBcc: opfer@example.org\r\n\r\n<script>alert('x')</script><img src=x onerror=alert(1)>"
    ingest(notice(title=title), hand_off=True)
    wait_for(lambda: smtp_server.messages, what="instant mail")
    settle(alpha.schema_name)

    [message] = smtp_server.messages
    assert smtp_server.handler.envelopes[0][1] == [alpha.member_email]  # no injected recipient
    assert message["Bcc"] is None
    assert "\n" not in message["Subject"] and "Bcc: opfer@example.org" in message["Subject"]
    html = message.get_body(("html",)).get_content()
    assert "<script>" not in html and "<img src=x" not in html
    assert "&lt;script&gt;" in html
    raw = message.as_bytes(policy=email.policy.SMTP)
    assert b"\r\nBcc:" not in raw.split(b"\r\n\r\n", 1)[0]


def test_the_real_source_hand_off_reaches_matching(committed_tenants, smtp_server):
    """A file import through the sources service sends the delta by task name; no test shortcut."""
    alpha, _beta = committed_tenants
    record = eforms_record()
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        # The recorded notice's deadline has passed: a profile names the statuses it wants to hear about.
        saved_search(
            user(alpha.member_email),
            name="Alles in Bayern",
            bundesland=("Bayern",),
            status=("active", "expired"),
            instant_alert=True,
        )
    run = source_ingest_files(source_key="doe", paths=[MPI_EFORMS]).run
    assert run.new == 1
    wait_for(lambda: smtp_server.messages, what="instant mail")
    assert record.title[:40].split()[0] in smtp_server.messages[0]["Subject"]


def test_smtp_421_is_retried_by_the_next_beat_tick_and_a_tenant_without_smtp_harms_nobody(
    committed_tenants, smtp_server
):
    alpha, beta = committed_tenants
    with schema_context(alpha.schema_name):  # alpha has no SMTP settings at all
        saved_search(user(alpha.member_email), name="Dach", q="Dach", instant_alert=True)
    with schema_context(beta.schema_name):
        smtp_to(smtp_server)
        saved_search(user(beta.member_email), name="Dach", q="Dach", instant_alert=True)
    smtp_server.reply_next_with("421 4.7.0 Too many connections, try again later")

    ingest(notice(title="Dach Feuerwache"), hand_off=True)
    wait_for(lambda: _delivery(beta.schema_name, last_error__contains="421"), what="421 recorded")
    wait_for(lambda: _delivery(alpha.schema_name, last_error="keine SMTP-Einstellungen"), what="alpha recorded")
    assert smtp_server.messages == []

    with schema_context(beta.schema_name):  # time passes: the backoff is over
        Delivery.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    with schema_context("public"):
        app.send_task("notifications.send_due_fanout")  # one beat tick
    wait_for(lambda: smtp_server.messages, what="retried mail")
    settle(beta.schema_name)

    assert [m["To"] for m in smtp_server.messages] == [beta.member_email]
    with schema_context(beta.schema_name):
        assert list(Delivery.objects.values_list("status", "attempts")) == [(DeliveryStatus.SENT, 2)]
    with schema_context(alpha.schema_name):
        assert list(Delivery.objects.values_list("status", flat=True)) == [DeliveryStatus.PENDING]


def _delivery(schema: str, **lookup) -> bool:
    with schema_context(schema):
        return Delivery.objects.filter(**lookup).exists()
