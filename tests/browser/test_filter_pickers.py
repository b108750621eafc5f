"""Filters that fit a hand, in a real Chromium at desktop and phone width: Bundesländer ticked by click,
a CPV code and a Kreis picked by typing a word, the search URL carrying each, no sideways scrolling."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.conftest import chromium_page
from tests.fixtures.tenants import TENANT_PASSWORD

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_filters_are_picked_by_click_and_by_typing(
    live_server, alpha_site, corpus_ids, chromium_available, width, height
):
    base = f"http://{alpha_site.host}:{urlsplit(live_server.url).port}"
    with chromium_page() as page:
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{base}/konto/anmelden/")
        page.fill("#id_username", alpha_site.member_email)
        page.fill("#id_password", TENANT_PASSWORD)
        page.click("button[type=submit].primary")
        page.wait_for_url(f"{base}/")
        page.goto(f"{base}/suche/")
        if width < 760:  # on a phone the filters fold behind "Filter", so the results start in the first screen
            page.click("[data-testid=filter-toggle]")
        page.click("form.filters summary")

        page.click("[data-field=bundesland] label:has-text('Bayern')")
        page.click("[data-field=bundesland] label:has-text('Berlin')")

        page.locator("#id_cpv").press_sequentially("Reinigung")
        first_hit = page.locator("#cpv-results [data-pick-value]").first
        first_hit.wait_for()
        code = first_hit.get_attribute("data-pick-value")
        assert code.startswith("909")  # the cleaning services, not "Möbel … Reinigungsmittel"
        first_hit.click()
        page.wait_for_selector(f"[data-testid=cpv-picker] .chip input[value='{code}']:checked")
        assert page.locator("#id_cpv").input_value() == ""

        page.locator("#id_kreis").press_sequentially("München")
        page.click("#kreis-pick-09162")
        page.wait_for_selector("[data-testid=kreis-picker] .chip:has-text('München, Kreisfreie Stadt')")

        page.click("[data-testid=search-submit]")
        page.wait_for_url(re.compile(r".*kreis=09162.*"))
        params = parse_qs(urlsplit(page.url).query)
        # Beside the form's own defaults (status "laufend", the order), each chosen value is a parameter.
        assert {name: params[name] for name in ("cpv", "bundesland", "kreis")} == {
            "cpv": [code],
            "bundesland": ["Bayern", "Berlin"],
            "kreis": ["09162"],
        }
        page.wait_for_selector("[data-testid=result-count]")

        # A chip goes by keyboard: focus it, Space unticks it, the search runs without it.
        page.focus("[data-testid=kreis-picker] .chip input")
        page.keyboard.press("Space")
        page.wait_for_url(lambda url: "kreis=" not in url)
        assert page.locator("[data-testid=kreis-picker] .chip").count() == 0

        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{overflow}px sideways at {width}px"
    assert errors == []
