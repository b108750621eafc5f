"""Digests: when they are due, what they contain, and that nothing is told twice."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.utils import timezone

from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.digest import digest_due, digest_key, digest_slot, digests_create_due
from notifications.alerts.services import delta_process
from notifications.models import Delivery, DeliveryKind, MatchChange, TenderMatch, UserPreference
from sources.models import FetchRun, FetchRunStatus, Source
from tests.notifications.alerts.helpers import ingest, notice, preference, saved_search, user

WEDNESDAY_9 = datetime(2026, 11, 4, 9, 30, tzinfo=BERLIN)


def test_daily_slot_is_today_at_the_hour_or_yesterday_before_it():
    assert digest_slot(interval="daily", hour=7, now=WEDNESDAY_9) == datetime(2026, 11, 4, 7, tzinfo=BERLIN)
    assert digest_slot(interval="daily", hour=10, now=WEDNESDAY_9) == datetime(2026, 11, 3, 10, tzinfo=BERLIN)
    assert digest_slot(interval="off", hour=7, now=WEDNESDAY_9) is None


def test_weekly_slot_is_monday_at_the_hour():
    assert digest_slot(interval="weekly", hour=7, now=WEDNESDAY_9) == datetime(2026, 11, 2, 7, tzinfo=BERLIN)
    monday_early = datetime(2026, 11, 2, 6, 0, tzinfo=BERLIN)
    assert digest_slot(interval="weekly", hour=7, now=monday_early) == datetime(2026, 10, 26, 7, tzinfo=BERLIN)


def test_slots_follow_berlin_wall_clock_across_daylight_saving_time():
    after_switch = datetime(2026, 10, 25, 8, 0, tzinfo=BERLIN)  # clocks went back that night
    assert digest_slot(interval="daily", hour=7, now=after_switch).utcoffset() == timedelta(hours=1)
    assert digest_slot(interval="daily", hour=7, now=after_switch).hour == 7


def test_due_once_per_slot_and_keys_name_the_day_or_iso_week():
    slot = datetime(2026, 11, 4, 7, tzinfo=BERLIN)
    assert digest_due(interval="daily", hour=7, last_digest_at=None, now=WEDNESDAY_9) == slot
    assert digest_due(interval="daily", hour=7, last_digest_at=slot - timedelta(hours=1), now=WEDNESDAY_9) == slot
    assert digest_due(interval="daily", hour=7, last_digest_at=slot + timedelta(minutes=5), now=WEDNESDAY_9) is None
    assert digest_key(user_id=3, interval="daily", slot=slot) == "digest:3:2026-11-04"
    assert digest_key(user_id=3, interval="weekly", slot=datetime(2026, 11, 2, 7, tzinfo=BERLIN)) == "digest:3:2026-W45"


@pytest.mark.django_db
def test_a_digest_has_one_section_per_own_search_and_tells_each_match_once(alpha):
    delta = ingest(
        notice(title="Sanierung Dach der Schule"),
        notice(
            title="Reinigung Rathaus", description="Reinigung der Büros.", cpv_codes=("90911200",)
        ),  # nothing with "Dach"
    )
    connection.set_tenant(alpha.tenant)
    member, admin = user(alpha.member_email), user(alpha.admin_email)
    saved_search(member, name="Dach", q="Dach")
    saved_search(member, name="Reinigung", q="Reinigung")
    shared = saved_search(admin, name="Geteilt Dach", q="Dach")
    shared.is_shared = True
    shared.save()
    preference(member, digest_interval="daily", digest_hour=0)
    preference(admin, digest_interval="off")
    delta_process(created=delta.created, changed={})

    run = digests_create_due()
    assert (run.sent, run.errors) == (1, 0)
    digest = Delivery.objects.get()
    assert digest.kind == DeliveryKind.DIGEST and digest.recipient == alpha.member_email
    assert digest.text_body.index("== Dach ==") < digest.text_body.index("== Reinigung ==")
    assert "Geteilt" not in digest.text_body  # shared searches mail their owner only
    assert len(digest.match_ids) == 2
    assert digest.dedupe_key == f"digest:{member.pk}:{timezone.now().astimezone(BERLIN).date().isoformat()}"
    assert set(TenderMatch.objects.filter(pk__in=digest.match_ids).values_list("notified_via", flat=True)) == {"digest"}
    assert "List-Unsubscribe" in digest.headers

    # Due again later (as if a day passed): nothing new → no second mail.
    UserPreference.objects.filter(user=member).update(last_digest_at=timezone.now() - timedelta(days=2))
    assert digests_create_due().sent == 0
    assert Delivery.objects.count() == 1


@pytest.mark.django_db
def test_pending_changes_of_told_tenders_are_in_the_digest_and_source_health_is_not(alpha):
    record = notice(title="Dach", submission_deadline=datetime(2026, 12, 1, 12, tzinfo=BERLIN))
    first = ingest(record)
    Source.objects.filter(key="ted").update(is_active=True)
    FetchRun.objects.create(
        source=Source.objects.get(key="doe"), started_at=timezone.now(), status=FetchRunStatus.SUCCEEDED, new=42
    )
    FetchRun.objects.create(
        source=Source.objects.get(key="ted"), started_at=timezone.now(), status=FetchRunStatus.FAILED, error="503"
    )
    connection.set_tenant(alpha.tenant)
    member = user(alpha.member_email)
    search = saved_search(member, name="Dach", q="Dach")
    TenderMatch.objects.create(
        saved_search=search, tender_id=first.created[0], matched_at=timezone.now(), notified_at=timezone.now()
    )
    MatchChange.objects.create(
        match=TenderMatch.objects.get(),
        kind="cancelled",
        change_key="status:cancelled",
        old_value="active",
        new_value="cancelled",
        detected_at=timezone.now(),
    )
    preference(member, digest_interval="daily", digest_hour=0, language="en")

    assert digests_create_due().sent == 1
    digest = Delivery.objects.get()
    assert "Cancelled: Dach" in digest.text_body
    # Source health is the operators' (sources.operator_digest): no source, count or failure reaches a customer.
    for body in (digest.text_body, digest.html_body):
        assert "42" not in body and "TED" not in body and "fetch" not in body and "Sources" not in body
    assert "mailbox" not in digest.text_body  # no mailbox set up, no mailbox line
    assert MatchChange.objects.get().notified_at is not None


@pytest.mark.django_db
def test_without_news_no_digest_even_when_a_source_is_failing(alpha):
    connection.set_tenant(alpha.tenant)
    member = user(alpha.member_email)
    saved_search(member, q="Hubschrauber")
    preference(member, digest_interval="daily", digest_hour=0)
    connection.set_schema_to_public()
    FetchRun.objects.create(
        source=Source.objects.get(key="doe"), started_at=timezone.now(), status=FetchRunStatus.BLOCKED, error="WAF"
    )
    connection.set_tenant(alpha.tenant)
    assert digests_create_due().sent == 0
    assert Delivery.objects.count() == 0


MARK = '<mark style="background:#fff1a8;color:inherit;">'


def _daily_digest(alpha, record, *, q: str) -> Delivery:
    """The member's daily digest after ``record`` was ingested and matched by one saved search for ``q``."""
    delta = ingest(record)
    connection.set_tenant(alpha.tenant)
    member = user(alpha.member_email)
    saved_search(member, name=q, q=q)
    preference(member, digest_interval="daily", digest_hour=0)
    delta_process(created=delta.created, changed={})
    digests_create_due()
    return Delivery.objects.get()


@pytest.mark.django_db
def test_a_digest_marks_why_each_tender_matched(alpha):
    record = notice(
        title="Gebäudereinigung <b>Rathaus</b>", description="Unterhaltsreinigung der Büros.", cpv_codes=("90911200",)
    )
    digest = _daily_digest(alpha, record, q="Reinigung")
    assert f"{MARK}Gebäudereinigung</mark> &lt;b&gt;Rathaus&lt;/b&gt;" in digest.html_body
    assert f"{MARK}Unterhaltsreinigung</mark> der Büros." in digest.html_body
    assert "Unterhaltsreinigung der Büros." in digest.text_body


@pytest.mark.django_db
def test_a_mail_names_each_cpv_code_by_its_exact_label(alpha):
    digest = _daily_digest(alpha, notice(title="Objektschutz Rathaus", cpv_codes=("79713000", "79714000")), q="Rathaus")
    assert "CPV 79713000 Bewachungsdienste" in digest.text_body
    assert "CPV 79714000 Überwachungsdienste" in digest.html_body


@pytest.mark.django_db
def test_a_mail_shows_the_parent_label_that_explains_a_match(alpha):
    """The profile's word is only in the group above the tender's code: the mail names that label."""
    record = notice(title="Objektschutz Rathaus", description="", cpv_codes=("79713000",))
    digest = _daily_digest(alpha, record, q="Detekteien")
    parent = "Dienstleistungen von {}Detekteien{} und Sicherheitsdiensten (übergeordnet zu 79713000)"
    assert f"CPV 79700000 {parent.format('', '')}" in digest.text_body
    assert parent.format(MARK, "</mark>") in digest.html_body


@pytest.mark.django_db
def test_a_digest_claims_only_the_matches_it_lists_and_counts_the_rest_with_a_link(alpha, alpha_client):
    from notifications.alerts.rendering import MAX_TENDERS_PER_SECTION

    extra = 3
    delta = ingest(*[notice(title=f"Dach Nummer {i}") for i in range(MAX_TENDERS_PER_SECTION + extra)])
    connection.set_tenant(alpha.tenant)
    member = user(alpha.member_email)
    search = saved_search(member, name="Dach", q="Dach")
    preference(member, digest_interval="daily", digest_hour=0)
    delta_process(created=delta.created, changed={})

    assert digests_create_due().sent == 1
    digest = Delivery.objects.get()
    listed = digest.text_body.count("* Dach Nummer")
    assert listed == len(digest.match_ids) == MAX_TENDERS_PER_SECTION
    link = f"https://alpha.localhost/suchprofile/{search.pk}/?neu=1"
    assert f"… und {extra} weitere neue Treffer im Portal: {link}" in digest.text_body
    assert f'href="{link}"' in digest.html_body
    told = TenderMatch.objects.filter(notified_at__isnull=False)
    assert set(told.values_list("pk", flat=True)) == set(digest.match_ids)
    assert TenderMatch.objects.filter(notified_at__isnull=True).count() == extra

    # The portal shows the rest as new, where the link points.
    connection.set_schema_to_public()
    page = alpha_client.get(f"/suchprofile/{search.pk}/", {"neu": "1"}).content.decode()
    assert page.count('data-testid="match-row"') == extra
    connection.set_tenant(alpha.tenant)

    # The next day's digest tells them: nothing is lost, nothing told twice.
    assert digests_create_due(now=timezone.now() + timedelta(days=1)).sent == 1
    second = Delivery.objects.order_by("-id").first()
    assert len(second.match_ids) == extra and not set(second.match_ids) & set(digest.match_ids)
    assert "weitere neue Treffer" not in second.text_body
    assert not TenderMatch.objects.filter(notified_at__isnull=True).exists()


@pytest.mark.django_db
def test_a_tenant_reading_alert_mails_hears_of_its_own_mailbox_and_of_no_one_elses(alpha, beta):
    from notifications.models import MailboxSettings

    mail = Source.objects.get(key="mail")
    now = timezone.now()
    last_digest = digest_slot(interval="daily", hour=0, now=now) - timedelta(hours=1)
    FetchRun.objects.create(  # before the last digest: told then
        source=mail,
        trigger="mailbox",
        scope="alpha",
        started_at=last_digest - timedelta(hours=1),
        status="succeeded",
        new=5,
    )
    FetchRun.objects.create(source=mail, trigger="mailbox", scope="alpha", started_at=now, status="succeeded", new=2)
    FetchRun.objects.create(  # another tenant's mailbox: never in alpha's digest
        source=mail, trigger="mailbox", scope="beta", started_at=now, status="failed", error="Anmeldung abgelehnt"
    )
    FetchRun.objects.create(source=Source.objects.get(key="doe"), started_at=now, status="blocked", error="WAF")
    for tenant in (alpha, beta):
        connection.set_tenant(tenant.tenant)
        MailboxSettings.objects.create(host="imap.example.org", port=993, username="alerts", password="x")
        member = user(tenant.member_email)
        saved_search(member, name="Hubschrauber", q="Hubschrauber")
        preference(member, digest_interval="daily", digest_hour=0, language="en")
        UserPreference.objects.update(last_digest_at=last_digest)
    connection.set_schema_to_public()
    delta = ingest(notice(title="Wartung Hubschrauber"))

    connection.set_tenant(alpha.tenant)
    delta_process(created=delta.created, changed={})
    assert digests_create_due().sent == 1
    text = Delivery.objects.get().text_body
    assert "From your mailbox for portal e-mails: 2 new notices" in text  # since the last digest only
    assert "Anmeldung abgelehnt" not in text and "could not be read" not in text
    assert "WAF" not in text and "DÖE" not in text  # the blocked platform source is not the customer's business

    connection.set_tenant(beta.tenant)  # no match, but its own mailbox failed: a short mail asks to check it
    assert digests_create_due().sent == 1
    quiet = Delivery.objects.get()
    assert quiet.subject == "No new matches – please check your mailbox for portal e-mails"
    assert "Your mailbox for portal e-mails could not be read last time" in quiet.text_body
    assert "Settings → Mailbox" in quiet.text_body and "Anmeldung abgelehnt" not in quiet.text_body
