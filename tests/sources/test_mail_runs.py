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
from sources.models import FetchRun, FetchRunStatus, InboundMail, InboundMailStatus, Source
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
def test_verified_mails_are_ingested_and_quarantined_ones_are_problems_of_the_run():
    result = _run("alpha", [_dtvp(), _dtvp("<forged@example>", dkim=""), _newsletter()])
    run = result.run
    assert result.mails == {"parsed": 1, "quarantined": 1, "ignored": 1, "unparsed": 0}
    assert (run.status, run.requests, run.fetched, run.new, run.failed) == ("partial", 3, 3, 3, 1)
    assert run.problems == [run.problems[0]] and run.problems[0].startswith("<forged@example>: quarantined: ")
    rows = dict(InboundMail.objects.filter(tenant_schema="alpha").values_list("message_id", "status"))
    assert rows == {"<dtvp@example>": "parsed", "<forged@example>": "quarantined", "<news@example>": "ignored"}


@pytest.mark.django_db
def test_a_message_handed_over_twice_in_one_check_is_judged_counted_and_ingested_once():
    result = _run("alpha", [_dtvp(), _newsletter()], [_dtvp(), _dtvp()])
    run = result.run
    assert result.mails == {"parsed": 1, "quarantined": 0, "ignored": 1, "unparsed": 0}
    assert result.notices == 3
    assert (run.requests, run.fetched, run.new) == (4, 3, 3)  # read four times, taken once
    assert InboundMail.objects.filter(tenant_schema="alpha").count() == 2


@pytest.mark.django_db
def test_a_check_tells_the_tenders_it_created_from_those_it_linked():
    first = _run("alpha", [_dtvp()])
    assert len(first.created) == 3 and first.linked == ()
    again = _run("alpha", [_dtvp("<again@example>")])  # the same notices in a later alert
    assert again.created == () and sorted(again.linked) == sorted(first.created)


@pytest.mark.django_db
def test_checks_of_different_mailboxes_run_side_by_side_and_of_one_mailbox_never():
    source = Source.objects.get(key="mail")
    running = FetchRun.objects.create(source=source, started_at=timezone.now(), trigger="mailbox", scope="alpha")
    beta = _run("beta", [_dtvp()])
    assert beta.run.status == FetchRunStatus.SUCCEEDED and beta.notices == 3
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
