"""Fault replays against the outbox's own promise, through a real SMTP server that misbehaves.

A fault run (≈ 50,000 matches, none lost) found two breaches; each test replays one:
(a) a server that took the whole message and cut the connection without answering its end of
data got it again: the mail arrived twice. The rule: no answer after the end of data means the
server may have it (RFC 5321 §4.5.3.2.6, §6.1) — "unklar", never resent by itself. Failures
before the end of data (connection, RCPT, a reply to the DATA) stay safe to retry.
(b) after a 550, the matches the mail had claimed count as told although nobody got them; the
tenant admin must see which tenders that refused mail carried.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from notifications.alerts.deliveries import deliveries_mark_uncertain, deliveries_send_due
from notifications.alerts.services import delta_process
from notifications.models import Delivery, DeliveryStatus, SmtpSettings, TenderMatch
from tests.fixtures.smtp import ACCEPT, DROP
from tests.notifications.alerts.helpers import ingest, notice, saved_search, smtp_to, user

pytestmark = pytest.mark.django_db


def _instant_mail(tenant, server, *titles: str, q: str = "Dach", owner_email: str = "") -> Delivery:
    """Tenders through the real ingest and matching: one instant mail queued for the tenant's SMTP server."""
    delta = ingest(*(notice(title=title) for title in titles))
    connection.set_tenant(tenant.tenant)
    if not SmtpSettings.objects.exists():
        smtp_to(server)
    saved_search(user(owner_email or tenant.member_email), name=q, q=q, instant_alert=True)
    outcome = delta_process(created=delta.created, changed={})
    [delivery_id] = outcome.delivery_ids
    return Delivery.objects.get(pk=delivery_id)


def _everything_due() -> None:
    """Far later: every backoff has passed and every claim is older than the stale limit."""
    later = timezone.now() - timedelta(days=1)
    Delivery.objects.update(next_attempt_at=later)
    Delivery.objects.filter(claimed_at__isnull=False).update(claimed_at=later)


# --- (a) no answer after the end of data: uncertain, never resent ----------------------------------


def test_a_cut_after_the_end_of_data_is_uncertain_and_no_later_sweep_resends_it(alpha, smtp_server):
    delivery = _instant_mail(alpha, smtp_server, "Dach Turnhalle")
    smtp_server.drop_after_data()

    summary = deliveries_send_due()

    delivery.refresh_from_db()
    assert (summary.uncertain, summary.retrying, summary.sent) == (1, 0, 0)
    assert delivery.status == DeliveryStatus.UNCERTAIN and delivery.attempts == 1
    assert "unklar" in delivery.last_error
    for _ in range(3):  # the per-minute sweeps, long after any backoff or stale limit
        _everything_due()
        deliveries_mark_uncertain()
        assert deliveries_send_due().sent == 0
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.UNCERTAIN and delivery.attempts == 1
    assert len(smtp_server.messages) == 1


def test_a_timeout_waiting_for_the_answer_to_the_end_of_data_is_uncertain(alpha, smtp_server, settings):
    settings.ALERTS_SMTP_TIMEOUT = 1
    delivery = _instant_mail(alpha, smtp_server, "Dach Turnhalle")
    release = smtp_server.hold_data()  # the server has the message and thinks for longer than we wait
    try:
        assert deliveries_send_due().uncertain == 1
    finally:
        release.set()
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.UNCERTAIN
    _everything_due()
    assert deliveries_send_due().sent == 0
    assert len(smtp_server.messages) == 1


def test_a_mail_refused_before_its_data_after_one_accepted_on_the_same_connection_is_retried(alpha, smtp_server):
    """Whether the end of data went out is known per message: one connection carries a run's mails."""
    first = _instant_mail(alpha, smtp_server, "Dach Turnhalle", q="Turnhalle")
    second = _instant_mail(alpha, smtp_server, "Dach Rathaus", q="Rathaus", owner_email=alpha.admin_email)
    smtp_server.reply_to_rcpt_with(ACCEPT, DROP)  # the first is accepted, the second cut at RCPT

    summary = deliveries_send_due()

    first.refresh_from_db(), second.refresh_from_db()
    assert (summary.sent, summary.retrying, summary.uncertain) == (1, 1, 0)
    assert (first.status, second.status) == (DeliveryStatus.SENT, DeliveryStatus.PENDING)


# --- failures before the end of data: still retried with the backoff -------------------------------


@pytest.mark.parametrize(
    "misbehave",
    [
        pytest.param(lambda server: server.reply_to_rcpt_with(DROP), id="connection-cut-at-rcpt"),
        pytest.param(lambda server: server.reply_to_rcpt_with("421 4.3.2 Service not available"), id="421-at-rcpt"),
        pytest.param(lambda server: server.reply_next_with("451 4.3.0 Try again later"), id="451-after-data"),
    ],
)
def test_a_failure_before_the_server_could_have_the_mail_is_retried_and_it_arrives_once(alpha, smtp_server, misbehave):
    delivery = _instant_mail(alpha, smtp_server, "Dach Turnhalle")
    misbehave(smtp_server)

    assert deliveries_send_due().retrying == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and delivery.next_attempt_at > timezone.now()
    assert smtp_server.messages == []

    _everything_due()
    assert deliveries_send_due().sent == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SENT and delivery.attempts == 2
    assert len(smtp_server.messages) == 1


# --- (b) a refused mail says which matches it carried ---------------------------------------------


@pytest.mark.parametrize(
    "refuse",
    [
        pytest.param(lambda server: server.reply_to_rcpt_with("550 5.1.1 Mailbox unknown"), id="550-at-rcpt"),
        pytest.param(lambda server: server.reply_next_with("550 5.7.1 Message rejected"), id="550-after-data"),
    ],
)
def test_after_a_550_every_claimed_match_is_on_a_failed_mail_the_admin_sees_with_its_tenders(
    alpha, alpha_admin_client, smtp_server, refuse
):
    titles = ("Dach Turnhalle Nord", "Dachsanierung Rathaus Süd")
    delivery = _instant_mail(alpha, smtp_server, *titles, owner_email=alpha.admin_email)  # the admin's own profile
    refuse(smtp_server)

    assert deliveries_send_due().failed == 1
    _everything_due()
    assert deliveries_send_due().sent == 0  # permanent: never retried
    assert smtp_server.messages == []

    claimed = set(TenderMatch.objects.filter(notified_at__isnull=False).values_list("pk", flat=True))
    assert claimed and len(claimed) == len(titles)
    carried = {
        match_id
        for row in Delivery.objects.filter(status=DeliveryStatus.FAILED, last_error__contains="550")
        for match_id in row.match_ids
    }
    assert claimed <= carried

    page = alpha_admin_client.get(reverse("settings:deliveries"))
    assert page.status_code == 200
    html = page.content.decode()
    row = html[html.index(f'data-delivery="{delivery.pk}"') :].split("</tr>", 1)[0]
    assert 'data-status="failed"' in html and "550" in row
    for title in titles:
        assert title in row


def test_the_admin_sees_only_a_count_for_the_tenders_of_a_colleagues_private_profile(
    alpha, alpha_admin_client, smtp_server
):
    delivery = _instant_mail(alpha, smtp_server, "Dach Turnhalle Geheim")  # the member's private profile
    smtp_server.reply_to_rcpt_with("550 5.1.1 Mailbox unknown")
    assert deliveries_send_due().failed == 1

    html = alpha_admin_client.get(reverse("settings:deliveries")).content.decode()
    row = html[html.index(f'data-delivery="{delivery.pk}"') :].split("</tr>", 1)[0]
    assert "Geheim" not in row
    assert "1 Treffer eines privaten Suchprofils" in row
