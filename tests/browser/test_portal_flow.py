"""A member signs in on the tenant host, searches, saves a profile, opens and rates a tender, switches to English."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django_tenants.utils import schema_context

from notifications.models import SavedSearch, Triage, UserPreference
from tests.browser.conftest import chromium_page
from tests.fixtures.tenants import TENANT_PASSWORD

pytestmark = pytest.mark.browser


def test_portal_flow(live_server, alpha_site, corpus_ids, chromium_available):
    with chromium_page() as page:
        errors = _walk_through(
            page, base=f"http://{alpha_site.host}:{urlsplit(live_server.url).port}", alpha=alpha_site, ids=corpus_ids
        )
    assert errors == []
    with schema_context(alpha_site.schema_name):
        profile = SavedSearch.objects.get()
        # The ticked default "laufend" is stored as the user saw it.
        assert (profile.name, profile.filters) == ("Straßenbau überall", {"q": "Straßenbau", "status": ["active"]})
        triage = Triage.objects.get(tender_id=corpus_ids["ortsdurchfahrt"])
        assert (triage.status, triage.note) == ("interessant", "Angebot vorbereiten")
        assert UserPreference.objects.get(user__username=alpha_site.member_email).language == "en"


def _walk_through(page, *, base: str, alpha, ids: dict[str, int]) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # Every page and htmx swap of the walk runs under the Content-Security-Policy: no violation may occur.
    page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)

    # Sign in.
    page.goto(f"{base}/")
    assert "/konto/anmelden/" in page.url
    page.fill("#id_username", alpha.member_email)
    page.fill("#id_password", TENANT_PASSWORD)
    page.click("button[type=submit].primary")
    page.wait_for_url(f"{base}/")
    assert page.locator("h1").inner_text().startswith("Willkommen")

    # Search: htmx swaps the result list and pushes the bookmarkable URL.
    page.click("nav >> text=Suche")
    page.wait_for_url(f"{base}/suche/")
    assert page.evaluate("typeof htmx") == "object"
    page.fill("#id_q", "Straßenbau")
    page.press("#id_q", "Enter")
    page.wait_for_url(re.compile(r".*/suche/\?q=Stra%C3%9Fenbau.*"))
    # "Bauarbeit an der Straße" is found through the parts of "Straßenbau", ranked after the two titles.
    page.wait_for_selector("[data-testid=result-count]:has-text('3 Ausschreibungen gefunden')")
    titles = page.locator("[data-testid=tender-row] .tender-title").all_inner_texts()
    assert set(titles[:2]) == {"Straßenbau Ortsdurchfahrt B 12", "Planung Straßenbau Ortsumgehung"}
    assert titles[2] == "Bauarbeit an der Straße Am Anger"
    assert page.locator("[data-testid=tender-row] .tender-title mark").first.inner_text() == "Straßenbau"

    # Save the search as a profile, with the preview shown before saving.
    page.click("[data-testid=save-profile]")
    # The preview is the search's own list: the same three hits.
    page.wait_for_selector("[data-testid=preview-count]:has-text('3 Treffer')")
    page.fill("#id_name", "Straßenbau überall")
    page.click("[data-testid=profile-save]")
    page.wait_for_url(re.compile(r".*/suchprofile/\d+/$"))
    assert page.locator("[data-testid=profile-name]").inner_text() == "Straßenbau überall"

    # Open a tender and rate it (htmx, no reload).
    page.goto(f"{base}/suche/?q=Ortsdurchfahrt")
    page.click("[data-testid=tender-row] .tender-title a")
    page.wait_for_url(f"{base}/ausschreibung/{ids['ortsdurchfahrt']}/?q=Ortsdurchfahrt")  # the hit stays marked
    assert page.locator("[data-testid=tender-title]").inner_text() == "Straßenbau Ortsdurchfahrt B 12"
    assert "in 3 Tagen" in page.locator("[data-testid=deadline-distance]").inner_text()
    page.select_option("#triage select[name=status]", "interessant")
    page.fill("#triage textarea[name=note]", "Angebot vorbereiten")
    page.click("[data-testid=triage-save]")
    page.wait_for_selector("[data-testid=triage-saved]")
    assert page.url == f"{base}/ausschreibung/{ids['ortsdurchfahrt']}/?q=Ortsdurchfahrt"

    # Switch to English and stay on the page.
    page.click("[data-testid=lang-en]")
    page.wait_for_selector("html[lang=en]")
    assert page.url == f"{base}/ausschreibung/{ids['ortsdurchfahrt']}/?q=Ortsdurchfahrt"
    assert "Submission deadline" in page.content()
    assert "in 3 days" in page.locator("[data-testid=deadline-distance]").inner_text()
    assert page.locator("nav").inner_text().count("Saved searches") == 1
    page.goto(f"{base}/suchprofile/")
    assert "My saved searches" in page.content()
    return errors
