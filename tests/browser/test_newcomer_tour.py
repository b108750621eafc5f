"""The newcomer's tour of the demo, on a desktop and a 390 px phone screen, with screenshots.

Demo sign-in → search → a tender with two sources and its history → a new profile and its
preview → the alert in the local outbox → pipeline → settings. The data is what ``manage.py
demo`` makes: the shipped real sample, the three demo searches matched once, their mails sent
through a real local SMTP catcher. Screenshots go to ``artifacts/screenshots/`` (or
``$TOUR_SCREENSHOTS``), which CI keeps; no page may answer with an error or raise a script error.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.demo import services as demo_services
from notifications.demo.mailcatcher import mail_catcher_start
from notifications.models import SavedSearch
from sources.demo import demo_sample_load, demo_state_save
from tenders.models import TenderSource
from tests.browser.conftest import chromium_page
from tests.fixtures.network import free_loopback_port
from tests.fixtures.tenants import TENANT_PASSWORD

pytestmark = pytest.mark.browser

SHOTS = Path(os.environ.get("TOUR_SCREENSHOTS", Path(django_settings.BASE_DIR) / "artifacts" / "screenshots"))
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.fixture
def demo_site(alpha_site, settings, monkeypatch, tmp_path):
    """alpha dressed as the demo tenant: sample loaded, searches matched once, mails in a real catcher."""
    settings.DEMO_ENABLED = True
    settings.LOCAL_DATA_DIR = tmp_path
    settings.LOCAL_OUTBOX_DIR = tmp_path / "outbox"
    monkeypatch.setattr(demo_services, "DEMO_SCHEMA", alpha_site.schema_name)
    port = free_loopback_port()
    catcher = mail_catcher_start(maildir=settings.LOCAL_OUTBOX_DIR, port=port)
    started = timezone.now()
    load = demo_sample_load()
    demo_state_save(load)
    with schema_context(alpha_site.schema_name):
        demo_services.demo_mail_route_save(port=port, from_email="radar@alpha.localhost")
        demo_services.demo_searches_ensure(owner_email=alpha_site.member_email, active_since=started)
        alerts = demo_services.demo_initial_alerts_deliver(
            owner_email=alpha_site.member_email, tender_ids=load.tender_ids
        )
        demo_services.demo_pipeline_seed(owner_email=alpha_site.member_email, tender_ids=load.tender_ids)
    assert alerts.sent == 3
    merged = (
        # The German procedure DÖE and TED both published: one tender, two sources.
        TenderSource.objects.filter(
            tender_id__in=load.tender_ids,
            source="ted",
            merge_rule="procedure_id",
            tender__procedure_id="1af86e3c-411f-4c2e-aacc-ecac61717472",
        )
        .values_list("tender_id", flat=True)
        .get()
    )
    try:
        yield alpha_site, merged
    finally:
        catcher.stop()
        _purge_task_queues()


def _purge_task_queues() -> None:
    """The setup above commits, so its hand-offs and sender kicks wait in the in-memory broker; no worker
    runs here, and a later test's worker must not receive them (their tender ids are reused after truncation)."""
    from config.celery import app

    with app.connection_for_write() as conn:
        for queue in ("ingest", "match", "notify"):
            with contextlib.suppress(Exception):  # a queue nothing was ever sent to does not exist yet
                conn.default_channel.queue_purge(queue)


@pytest.mark.parametrize("screen", list(WIDTHS))
def test_newcomer_tour(live_server, demo_site, chromium_available, screen, settings):
    alpha, merged_id = demo_site
    base = f"http://{alpha.host}:{urlsplit(live_server.url).port}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    width, height = WIDTHS[screen]
    with chromium_page() as page:
        page.set_viewport_size({"width": width, "height": height})
        problems = _tour(page, base=base, alpha=alpha, merged_id=merged_id, screen=screen)
    assert problems == []
    with schema_context(alpha.schema_name):
        assert SavedSearch.objects.filter(name=f"Feuerwehr-Tour {screen}").exists()


def _tour(page, *, base: str, alpha, merged_id: int, screen: str) -> list[str]:
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    page.on(
        "response",
        lambda response: (
            problems.append(f"{response.status} {response.url}")
            if response.status >= 400 and response.request.resource_type in ("document", "xhr", "fetch")
            else None
        ),
    )
    phone = screen == "phone"

    def shot(name: str, *, full_page: bool = True) -> None:
        if phone:  # nothing may stick out sideways on a phone
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if overflow > 1:
                problems.append(f"{name}: page is {overflow}px wider than the {screen} screen")
        page.screenshot(path=str(SHOTS / f"{screen}-{name}.png"), full_page=full_page)

    def navigate(label: str) -> None:
        if phone:
            assert not page.locator("#main-nav").is_visible()  # folded behind "Menü"
            page.click("[data-testid=nav-toggle]")
        page.click(f"#main-nav >> text={label}")

    # Demo sign-in; the dashboard says plainly what data this is and shows the demo's first matches.
    page.goto(f"{base}/")
    page.fill("#id_username", alpha.member_email)
    page.fill("#id_password", TENANT_PASSWORD)
    page.click("button[type=submit].primary")
    page.wait_for_url(f"{base}/")
    assert "Offline-Beispieldaten vom 14.09.2026" in page.locator("[data-testid=demo-data]").inner_text()
    assert page.locator("[data-testid=new-matches] li").count() >= 3
    shot("1-dashboard")

    # Search for the tender that two notices describe.
    navigate("Suche")
    page.wait_for_url(f"{base}/suche/")
    # A 2019 EU tender, cancelled since: "laufend" is ticked by default, so the newcomer ticks the rest
    # (on a phone behind "Filter", folded so that the results start in the first screen).
    if phone:
        page.click("[data-testid=filter-toggle]")
    for status in ("expired", "awarded", "cancelled"):
        page.check(f"input[name=status][value={status}]")
    page.fill("#id_q", "Hellinganlage Würzburg")
    page.press("#id_q", "Enter")
    page.wait_for_selector("[data-testid=tender-row]")
    shot("2-search")
    # Result links carry the query (?q=…) so the tender page marks the hits.
    page.click(f"[data-testid=tender-row] a[href^='/ausschreibung/{merged_id}/']")
    page.wait_for_url(re.compile(rf"{re.escape(base)}/ausschreibung/{merged_id}/(\?.*)?$"))
    assert page.locator("[data-testid=sources] tbody tr").count() == 2
    assert page.locator("[data-testid=history] > li").count() == 2
    assert "gleiche Verfahrens-ID" in page.locator("[data-testid=sources]").inner_text()
    assert "TED – Tenders Electronic Daily" in page.locator("[data-testid=sources]").inner_text()
    assert "DÖE – Bekanntmachungsservice" in page.locator("[data-testid=sources]").inner_text()
    shot("3-tender-sources-history")

    # A new profile from a search, with its preview before saving.
    page.goto(f"{base}/suche/?q=Feuerwehr&status=active&status=expired&status=awarded&status=cancelled")
    page.wait_for_selector("[data-testid=tender-row]")
    page.click("[data-testid=save-profile]")
    page.wait_for_selector("[data-testid=preview-count]")
    page.fill("#id_name", f"Feuerwehr-Tour {screen}")
    shot("4-profile-preview")
    page.click("[data-testid=profile-save]")
    page.wait_for_url(re.compile(r".*/suchprofile/\d+/$"))

    # The alert as its recipient reads it, in the local outbox.
    navigate("Postausgang (lokal)")
    page.wait_for_url(f"{base}/postausgang/")
    assert page.locator("[data-testid=outbox-list] li").count() == 3
    page.click("[data-testid=outbox-list] a:has-text('IT-Dienstleistungen und Software')")
    mail_body = page.frame_locator("[data-testid=outbox-html]").locator("body")
    assert "Provision of IT Services" in mail_body.inner_text()
    # Chromium paints a frame's document only inside the viewport: show the mail itself, not the whole page.
    page.locator("[data-testid=outbox-subject]").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('[data-testid=outbox-mail]').scrollIntoView()")
    shot("5-outbox-alert", full_page=False)

    navigate("Pipeline")
    page.wait_for_url(f"{base}/pipeline/")
    assert page.locator("[data-testid=pipeline-card]").count() == 3
    shot("6-pipeline")

    navigate("Einstellungen")
    page.wait_for_url(f"{base}/einstellungen/")
    shot("7-settings")
    return problems
