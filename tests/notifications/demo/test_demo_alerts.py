"""The demo's alerts: three searches match the sample once, mails reach a real local catcher, the outbox shows them."""

from __future__ import annotations

import mailbox
import os
import re
import subprocess
import sys
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.demo import services as demo_services
from notifications.demo.mailcatcher import mail_catcher_start
from notifications.demo.outbox import outbox_mails
from notifications.models import Delivery, SavedSearch, TenderMatch, Triage
from notifications.portal.selectors import calendar_triage
from sources.demo import demo_sample_load
from tests.fixtures.network import free_loopback_port


@pytest.fixture
def demo_in_alpha(alpha, settings, monkeypatch, tmp_path):
    """The demo's services aimed at the test tenant alpha, with a real catcher filing into tmp_path."""
    settings.DEMO_ENABLED = True
    settings.LOCAL_OUTBOX_DIR = tmp_path / "outbox"
    settings.PORTAL_URL_FORMAT = "http://{domain}:8000"
    monkeypatch.setattr(demo_services, "DEMO_SCHEMA", alpha.schema_name)
    port = free_loopback_port()
    catcher = mail_catcher_start(maildir=settings.LOCAL_OUTBOX_DIR, port=port)
    try:
        yield alpha, port
    finally:
        catcher.stop()


def _run_demo(alpha, port):
    started = timezone.now()
    load = demo_sample_load()
    with schema_context(alpha.schema_name):
        demo_services.demo_mail_route_save(port=port, from_email="radar@demo.localhost")
        searches = demo_services.demo_searches_ensure(owner_email=alpha.member_email, active_since=started)
        alerts = demo_services.demo_initial_alerts_deliver(owner_email=alpha.member_email, tender_ids=load.tender_ids)
        seeded = demo_services.demo_pipeline_seed(owner_email=alpha.member_email, tender_ids=load.tender_ids)
    return load, searches, alerts, seeded


def test_each_demo_search_matches_the_sample_and_the_mails_reach_the_local_catcher(demo_in_alpha):
    alpha, port = demo_in_alpha
    _load, searches, alerts, seeded = _run_demo(alpha, port)
    with schema_context(alpha.schema_name):
        assert len(searches) == 3
        for search in searches:
            assert TenderMatch.objects.filter(saved_search=search).exists(), search.name
        kinds = sorted(Delivery.objects.values_list("kind", flat=True))
        assert kinds == ["digest", "instant", "instant"]
        assert set(Delivery.objects.values_list("status", flat=True)) == {"sent"}
        assert Triage.objects.count() == seeded == 3
    assert alerts.sent == 3 and alerts.failed == 0
    box = mailbox.Maildir(str(settings.LOCAL_OUTBOX_DIR), create=False)
    assert len(box) == 3
    mails = outbox_mails(recipients=[alpha.member_email])
    assert len(mails) == 3 and all(m.html and m.text for m in mails)
    assert any("http://alpha.localhost:8000/ausschreibung/" in m.text for m in mails)


def test_the_demo_pipeline_fills_the_calendar_feed(demo_in_alpha):
    # The offline sample's deadlines have passed; the tracked ones stay in the feed for
    # PORTAL_CALENDAR_PAST_DAYS after them, as a subscribed calendar keeps past events.
    alpha, port = demo_in_alpha
    _run_demo(alpha, port)
    with schema_context(alpha.schema_name):
        user = get_user_model().objects.get(email=alpha.member_email)
        deadlines = sorted(t.tender.submission_deadline for t in Triage.objects.select_related("tender"))
        assert len(deadlines) == 3 and all(deadlines)
        within = deadlines[0] + timedelta(days=settings.PORTAL_CALENDAR_PAST_DAYS - 1)
        assert calendar_triage(user=user, now=within).count() == 3
        after = deadlines[-1] + timedelta(days=settings.PORTAL_CALENDAR_PAST_DAYS + 1)
        assert calendar_triage(user=user, now=after).count() == 0


def test_running_the_demo_twice_adds_nothing(demo_in_alpha):
    alpha, port = demo_in_alpha
    _run_demo(alpha, port)
    _load, searches, alerts, _seeded = _run_demo(alpha, port)
    assert alerts.match_ids == () and alerts.sent == 0
    with schema_context(alpha.schema_name):
        assert SavedSearch.objects.count() == 3 and Delivery.objects.count() == 3


def test_the_outbox_page_shows_the_mails_as_the_recipient_sees_them(
    demo_in_alpha, alpha_client, alpha_admin_client, beta_client
):
    alpha, port = demo_in_alpha
    _run_demo(alpha, port)
    page = alpha_client.get("/postausgang/").content.decode()
    assert "Postausgang (lokal)" in page and "erste Treffer der Demo" in page
    assert page.count('data-testid="outbox-html"') == 1 and 'sandbox="allow-popups' in page
    with schema_context(alpha.schema_name):
        subject = Delivery.objects.filter(kind="instant").order_by("pk").first().subject
    assert subject in page
    # The mail's own HTML comes from its own URL, framed by this site only, with nothing allowed to run.
    content_url = re.search(r'src="(/postausgang/[^"]+/inhalt/)"', page).group(1)
    content = alpha_client.get(content_url)
    assert content.status_code == 200 and "Tender Radar" in content.content.decode()
    policy = content["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "style-src 'unsafe-inline'" in policy and "script-src" not in policy
    assert content["X-Frame-Options"] == "SAMEORIGIN"
    # A colleague, even the admin, sees none of them: an alert's subject names the recipient's profile.
    assert "Noch keine Mails" in alpha_admin_client.get("/postausgang/").content.decode()
    assert alpha_admin_client.get(content_url).status_code == 404
    # Another company sees none of alpha's mails.
    assert "Noch keine Mails" in beta_client.get("/postausgang/").content.decode()
    assert beta_client.get(content_url).status_code == 404


def test_without_a_local_outbox_the_page_does_not_exist(alpha_client, settings):
    settings.LOCAL_OUTBOX_DIR = None
    assert alpha_client.get("/postausgang/").status_code == 404
    assert "Postausgang" not in alpha_client.get("/").content.decode()


def test_demo_services_refuse_any_tenant_but_the_demo(alpha, settings):
    settings.DEMO_ENABLED = True
    with schema_context(alpha.schema_name), pytest.raises(ImproperlyConfigured, match="only in the demo tenant"):
        demo_services.demo_initial_alerts_deliver(owner_email=alpha.member_email, tender_ids=[1])
    connection.set_schema_to_public()


def test_demo_services_refuse_when_the_settings_do_not_enable_the_demo(alpha, settings, monkeypatch):
    settings.DEMO_ENABLED = False
    monkeypatch.setattr(demo_services, "DEMO_SCHEMA", alpha.schema_name)
    with schema_context(alpha.schema_name), pytest.raises(ImproperlyConfigured, match="DEMO_ENABLED"):
        demo_services.demo_searches_ensure(owner_email=alpha.member_email, active_since=timezone.now())


def test_production_never_has_the_demo_nor_the_local_outbox():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "x" * 60,
        "DJANGO_ALLOWED_HOSTS": "radar.example",
        "DATABASE_URL": "postgres://radar:secret@db.internal:5432/tender_radar",
        "REDIS_URL": "redis://cache.internal:6379/0",
        "SECRETS_ENCRYPTION_KEYS": "MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA=",
    }
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DEMO_ENABLED, s.LOCAL_OUTBOX_DIR, s.MAIL_ALLOW_LOOPBACK, "
        "getattr(s, 'LOCAL_WEBHOOK_DIR', None), getattr(s, 'WEBHOOKS_ALLOW_LOOPBACK', False))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "None", "False", "None", "False"]
    refused = subprocess.run(
        [sys.executable, "manage.py", "demo", "--setup-only"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0 and "local settings only" in refused.stderr


def test_the_outbox_shows_a_mails_utc_date_in_local_time(alpha, alpha_client, settings, tmp_path):
    """Django dates its mails "-0000" (UTC, no local offset); the page shows them in Berlin time like every other."""
    settings.LOCAL_OUTBOX_DIR = tmp_path / "outbox"
    box = mailbox.Maildir(str(settings.LOCAL_OUTBOX_DIR), create=True)
    for date, subject in (("Tue, 01 Dec 2026 16:05:37 -0000", "Winter"), ("Tue, 15 Sep 2026 09:30:00 +0200", "Sommer")):
        box.add(
            f"From: radar@alpha.example\nTo: {alpha.member_email}\nDate: {date}\nSubject: {subject}\n\nText\n".encode()
        )
    assert [mail.subject for mail in outbox_mails(recipients=[alpha.member_email])] == ["Winter", "Sommer"]
    page = alpha_client.get("/postausgang/").content.decode()
    assert "01.12.2026 17:05" in page and "16:05" not in page
    assert "15.09.2026 09:30" in page


def test_the_demo_sends_the_platforms_own_mails_to_its_catcher(demo_in_alpha, monkeypatch):
    """Invitations and password links (the platform's mail, not the tenant's route) show in the local outbox too."""
    from django.core.mail import send_mail

    from notifications.management.commands.demo import Command

    alpha, port = demo_in_alpha
    names = ("EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD", "EMAIL_USE_TLS")
    names += ("EMAIL_USE_SSL", "EMAIL_TIMEOUT")
    before = {name: getattr(settings, name) for name in names}
    try:
        monkeypatch.setenv("EMAIL_URL", "smtp://mail.example:587")
        Command()._platform_mail_to_catcher(port)
        assert os.environ["EMAIL_URL"] == "smtp://mail.example:587"
        now_set = {name: getattr(settings, name) for name in names}
        assert now_set == before  # a user's own EMAIL_URL is left alone
        monkeypatch.delenv("EMAIL_URL")
        Command()._platform_mail_to_catcher(port)
        assert os.environ["EMAIL_URL"] == f"smtp://127.0.0.1:{port}?starttls=off"
        send_mail("Einladung zu Tender Radar", "Bitte Passwort wählen.", None, [alpha.member_email])
    finally:
        for name, value in before.items():
            setattr(settings, name, value)
    [mail] = outbox_mails(recipients=[alpha.member_email])
    assert mail.subject == "Einladung zu Tender Radar"
