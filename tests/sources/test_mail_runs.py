"""Runs of the mail source fed with mails as a tenant's mailbox reader hands them over (no IMAP here:
the reading is the tenant side's, tested against Dovecot in tests/notifications/inbox)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from sources.adapters.mail import verdict
from sources.adapters.mail.provenance import MailTrust
from sources.mail_runs import mail_source_run
from sources.models import FetchRun, FetchRunStatus, InboundMail, InboundMailStatus, PortalPageRequest, Source
from tenders.models import Tender, TenderDelta, TenderSource, TenderVersion
from tests.fixtures.mail import RECEIVING_SERVER, as_received

MAIL = Path(__file__).resolve().parents[1] / "data" / "portals" / "mail"
TRUST = MailTrust(authserv_id=RECEIVING_SERVER)


@dataclass(frozen=True)
class Message:
    key: str
    raw: bytes
    size: int
    received_at: datetime | None = None
    truncated: bool = False


def _dtvp(key: str = "<dtvp@example>", *, dkim: str = "dtvp.de") -> Message:
    raw = as_received((MAIL / "dtvp_alert_html_only.eml").read_bytes(), dkim=dkim)
    return Message(key=key, raw=raw, size=len(raw))


def _newsletter() -> Message:
    raw = (MAIL / "newsletter_not_an_alert.eml").read_bytes()
    return Message(key="<news@example>", raw=raw, size=len(raw))


def _run(schema: str, *chunks: list[Message]):
    return mail_source_run(tenant_schema=schema, trust=TRUST, read=lambda: iter(chunks), now=timezone.now())


def test_the_statuses_a_check_gives_are_the_inbound_mail_statuses():
    given = {verdict.PARSED, verdict.UNPARSED, verdict.IGNORED, verdict.QUARANTINED}
    assert set(InboundMailStatus.values) == given | {"released"}  # released: only by the tenant admin


@pytest.mark.django_db
def test_no_mail_writes_shared_tenders_and_every_parsed_mail_keeps_its_leads_for_its_tenant():
    result = _run("alpha", [_dtvp(), _dtvp("<forged@example>", dkim=""), _newsletter()])
    run = result.run
    assert result.mails == {"parsed": 1, "quarantined": 1, "ignored": 1, "unparsed": 0}
    # fetched: the notices the mails named (what the low-yield alarm judges); new: nothing was ingested
    assert (run.status, run.requests, run.fetched, run.new, run.changed, run.failed) == ("partial", 3, 6, 0, 0, 1)
    assert run.problems == [run.problems[0]] and run.problems[0].startswith("<forged@example>: quarantined: ")
    rows = {mail.message_id: mail for mail in InboundMail.objects.filter(tenant_schema="alpha")}
    assert {key: row.status for key, row in rows.items()} == {
        "<dtvp@example>": "parsed",
        "<forged@example>": "quarantined",
        "<news@example>": "ignored",
    }
    assert [len(rows[key].held_notices) for key in ("<dtvp@example>", "<forged@example>", "<news@example>")] == [
        3,
        3,
        0,
    ]
    assert (Tender.objects.count(), TenderSource.objects.count(), TenderVersion.objects.count()) == (0, 0, 0)
    assert not TenderDelta.objects.exists()


@pytest.mark.django_db
def test_a_verified_mail_requests_the_pages_of_configured_portal_sources_only_the_quarantined_one_nothing():
    result = _run("alpha", [_dtvp(), _dtvp("<forged@example>", dkim="")])
    requests = PortalPageRequest.objects.order_by("portal_reference")
    # The seeded DTVP Source reads www.dtvp.de (the page URL is built on its base_url, not taken from the
    # mail's tracking link); evergabe-online.de is polled by no Source: no request for it.
    assert [(r.source.key, r.portal_reference, r.url, r.status) for r in requests] == [
        ("dtvp", f"cosinex:{cx}", f"https://www.dtvp.de/Center/notice/{cx}", "pending")
        for cx in ("CXP4Y9PRGS5", "CXS7YY6YTM1SY43C")
    ]
    assert sorted(result.page_requests) == sorted(r.pk for r in requests)
    # A second mail (another tenant's) naming the same page makes no second request while it is pending.
    again = _run("beta", [_dtvp("<beta@example>")])
    assert sorted(again.page_requests) == sorted(result.page_requests) and PortalPageRequest.objects.count() == 2


@pytest.mark.django_db
def test_a_message_handed_over_twice_in_one_check_is_judged_and_counted_once():
    result = _run("alpha", [_dtvp(), _newsletter()], [_dtvp(), _dtvp()])
    run = result.run
    assert result.mails == {"parsed": 1, "quarantined": 0, "ignored": 1, "unparsed": 0}
    assert result.leads == 3 and result.reused_message_ids == 0
    assert (run.requests, run.fetched, run.new) == (4, 3, 0)  # read four times, taken once
    assert InboundMail.objects.filter(tenant_schema="alpha").count() == 2


@pytest.mark.django_db
def test_a_mail_read_again_in_a_later_check_is_not_recorded_again():
    _run("alpha", [_dtvp()])
    again = _run("alpha", [_dtvp()])  # the overlap of two checks reads it again
    assert again.mails == {"parsed": 0, "quarantined": 0, "ignored": 0, "unparsed": 0}
    assert InboundMail.objects.filter(tenant_schema="alpha").count() == 1


@pytest.mark.django_db
def test_a_spoof_reusing_a_message_id_suppresses_neither_mail():
    # F8: the spoof arrives first with the Message-ID the genuine alert will carry.
    spoof = _run("alpha", [_dtvp("<genuine@dtvp.de>", dkim="")])
    genuine = _run("alpha", [_dtvp("<genuine@dtvp.de>")])
    assert spoof.mails["quarantined"] == 1 and genuine.mails["parsed"] == 1
    assert genuine.reused_message_ids == 1
    rows = InboundMail.objects.filter(tenant_schema="alpha", message_id="<genuine@dtvp.de>").order_by("pk")
    assert [(row.status, row.message_id_reused) for row in rows] == [("quarantined", True), ("parsed", True)]
    assert len({row.content_sha256 for row in rows}) == 2
    # And the other way round, within one check: both are recorded.
    both = _run("beta", [_dtvp("<other@dtvp.de>"), _dtvp("<other@dtvp.de>", dkim="")])
    assert (both.mails["parsed"], both.mails["quarantined"], both.reused_message_ids) == (1, 1, 2)


@pytest.mark.django_db
def test_checks_of_different_mailboxes_run_side_by_side_and_of_one_mailbox_never():
    source = Source.objects.get(key="mail")
    running = FetchRun.objects.create(source=source, started_at=timezone.now(), trigger="mailbox", scope="alpha")
    beta = _run("beta", [_dtvp()])
    assert beta.run.status == FetchRunStatus.SUCCEEDED and beta.leads == 3
    alpha = _run("alpha", [_dtvp()])
    assert alpha.run.status == FetchRunStatus.SKIPPED and str(running.pk) in alpha.run.error
    assert not InboundMail.objects.filter(tenant_schema="alpha").exists()


@pytest.mark.django_db
def test_a_mailbox_that_cannot_be_read_fails_its_run():
    def unreadable():
        raise verdict.MailboxUnavailable("Anmeldung abgelehnt")
        yield  # a generator, like the tenant's reader

    run = mail_source_run(tenant_schema="alpha", trust=TRUST, read=unreadable, now=timezone.now()).run
    assert (run.status, run.error_reason, run.error) == ("failed", "mailbox", "Anmeldung abgelehnt")


def _history(scope: str, *fetched: int) -> None:
    source = Source.objects.get(key="mail")
    start = timezone.now() - timedelta(days=len(fetched) + 1)
    FetchRun.objects.bulk_create(
        FetchRun(
            source=source,
            started_at=start + timedelta(days=i),
            finished_at=start + timedelta(days=i, minutes=1),
            status=FetchRunStatus.SUCCEEDED,
            trigger="mailbox",
            scope=scope,
            requests=1,
            fetched=count,
        )
        for i, count in enumerate(fetched)
    )


@pytest.mark.django_db
def test_the_low_yield_alarm_judges_each_mailbox_against_its_own_checks_with_new_mail():
    _history("alpha", 12, 9, 10)
    _history("beta", 0, 0, 0)
    # alpha's new mail brings no notice (its portal changed the format, say): the alarm.
    assert _run("alpha", [_newsletter()]).run.low_yield is True
    # A check without new mail says nothing about the portal; beta's normal is its own.
    assert _run("alpha").run.low_yield is False
    assert _run("beta", [_newsletter()]).run.low_yield is False


@pytest.mark.django_db
def test_a_dead_mailbox_check_is_failed_after_the_notify_queue_limit_not_the_ingest_one(settings):
    from sources.services import fetch_runs_fail_stuck

    settings.SOURCES_RUN_STUCK_SECONDS, settings.SOURCES_MAILBOX_RUN_STUCK_SECONDS = 7200, 600
    now = timezone.now()
    mail = Source.objects.get(key="mail")
    check = FetchRun.objects.create(source=mail, started_at=now - timedelta(seconds=601), trigger="mailbox", scope="a")
    poll = FetchRun.objects.create(source=Source.objects.get(key="doe"), started_at=now - timedelta(seconds=601))
    assert fetch_runs_fail_stuck(now=now) == 1
    check.refresh_from_db()
    poll.refresh_from_db()
    assert (check.status, check.error_reason, poll.status) == ("failed", "stuck", "running")
    assert _run("a", [_newsletter()]).run.status == FetchRunStatus.SUCCEEDED  # the mailbox is checked again
