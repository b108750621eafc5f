"""A mailbox check is a run of the mail source: counts on its FetchRun, failures in source health (real Dovecot)."""

from __future__ import annotations

from django_tenants.utils import schema_context

from notifications.models import MailboxSettings
from sources.models import FetchRun, FetchRunStatus
from sources.selectors import source_health_list
from tests.notifications.inbox.test_mailbox_check import FIXTURES, _check, _mailbox, _received


def test_a_check_is_a_fetch_run_of_the_mail_source_with_its_counts(alpha, imap_server):
    user, _ = imap_server.add_user()
    raws = [_received(name) for name in FIXTURES]
    for raw in raws:
        imap_server.append(user, raw)
    _mailbox(imap_server, user, tenant=alpha.tenant)

    outcome = _check(alpha.tenant, imap_server)

    run = FetchRun.objects.select_related("source").get(pk=outcome.run_id)
    assert (run.source.key, run.trigger, run.scope) == ("mail", "mailbox", "alpha")
    # One mail could not be read: the check took the rest, and says so.
    assert run.status == FetchRunStatus.PARTIAL and run.finished_at is not None
    assert run.requests == 5 and run.bytes >= sum(map(len, raws))
    # fetched: the notices the mails named; new: none - a mail ingests nothing (it points at portal pages)
    assert (run.fetched, run.new, run.changed) == (8, 0, 0) and len(outcome.page_requests) == 5
    assert run.failed == 1 and len(run.problems) == 1
    assert ": unparsed: broken MIME structure" in run.problems[0]

    again = _check(alpha.tenant, imap_server)
    second = FetchRun.objects.get(pk=again.run_id)
    assert (second.status, second.requests, second.fetched, second.problems) == ("succeeded", 0, 0, [])


def test_a_failing_mailbox_shows_in_source_health_while_other_tenants_succeed(alpha, beta, imap_server):
    alpha_user, alpha_password = imap_server.add_user("alpha")
    beta_user, _ = imap_server.add_user("beta")
    imap_server.append(beta_user, _received(FIXTURES[1]))
    _mailbox(imap_server, alpha_user, tenant=alpha.tenant, password="falsch")
    _mailbox(imap_server, beta_user, tenant=beta.tenant)

    failed = _check(alpha.tenant, imap_server)
    _check(beta.tenant, imap_server)  # the newest run of the mail source succeeds

    run = FetchRun.objects.get(pk=failed.run_id)
    assert (run.status, run.error_reason, run.scope) == ("failed", "mailbox", "alpha")
    assert run.error == failed.error and run.error.startswith(f"Anmeldung als {alpha_user!r} abgelehnt")
    health = source_health_list().get(key="mail")
    assert health.last_run_status == "succeeded"
    assert health.failing_mailboxes == ["alpha"]
    alpha.tenant.is_active = False  # a deactivated (or deleted) tenant's mailbox is no longer checked
    alpha.tenant.save(update_fields=["is_active"])
    assert source_health_list().get(key="mail").failing_mailboxes == []
    alpha.tenant.is_active = True
    alpha.tenant.save(update_fields=["is_active"])
    assert source_health_list().get(key="mail").failing_mailboxes == ["alpha"]

    with schema_context(alpha.schema_name):
        mailbox = MailboxSettings.objects.get()
        mailbox.password = alpha_password
        mailbox.save()
    assert _check(alpha.tenant, imap_server).error == ""
    assert source_health_list().get(key="mail").failing_mailboxes == []
