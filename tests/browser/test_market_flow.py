"""A bid manager follows an award: tender page with Zuschlag -> buyer page -> supplier page -> a similar awarded contract.

The data is the real TED award notice 291981-2026 (Stadt Worms, three lots, two winners) and the real
contract notice 479730-2026, imported through the TED adapter's file import (the polling path), plus one
constructed award in the same CPV class and Land (``tests/data/ted/market/README.md``) so that
"Ähnliche vergebene Aufträge" has something to show. Walked at desktop width and at 390 px (phone).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from sources.services import source_ingest_files
from tenders.models import TenderSource
from tests.browser.conftest import chromium_page
from tests.factories.records import DATA
from tests.fixtures.tenants import TENANT_PASSWORD

pytestmark = pytest.mark.browser

TED_REAL = DATA / "ted" / "ted_v3_search_notices_DE_cn-standard_479730-2026_can-standard_291981-2026.json"
TED_CONSTRUCTED = DATA / "ted" / "market" / "ted_v3_can-standard_188420-2025_CONSTRUCTED.json"

WORMS_TITLE = (
    "UNESCO Welterbstätten Worms - Alter jüdischer Friedhof, Synagoge und Synagogenbezirk - "
    "Stellung Sicherheitspersonal und Reinigung"
)
WORMS_BUYER = "Stadtverwaltung Worms, Abt. 6.4 Zentrale Ausschreibungsstelle und Dienste"
STRUBE = "Wach- und Werkschutz Kurt Strube GmbH"
MAINZ_TITLE = "Bewachung Rathaus und Ratssaal Mainz"
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.fixture
def awarded_ids(committed) -> dict[str, int]:
    run = source_ingest_files(source_key="ted", paths=[TED_REAL, TED_CONSTRUCTED]).run
    assert run.status == "succeeded", run.error
    ids = dict(TenderSource.objects.filter(source="ted").values_list("source_notice_id", "tender_id"))
    return {"worms": ids["291981-2026"], "mainz": ids["188420-2025"]}


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_market_walk(live_server, alpha_site, awarded_ids, chromium_available, width):
    base = f"http://{alpha_site.host}:{urlsplit(live_server.url).port}"
    with chromium_page() as page:
        page.set_viewport_size(dict(zip(("width", "height"), WIDTHS[width], strict=True)))
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        page.on("console", lambda message: _console_error(message) and errors.append(f"console: {message.text}"))
        _sign_in(page, base=base, email=alpha_site.member_email)
        _walk(page, base=base, ids=awarded_ids)
    assert errors == []


def _console_error(message) -> bool:
    """Every console error counts, except the browser's own favicon probe: the portal ships no favicon
    (base.html, outside the market view), and that 404 says nothing about these pages."""
    return message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico")


def _sign_in(page, *, base: str, email: str) -> None:
    page.goto(f"{base}/")
    page.fill("#id_username", email)
    page.fill("#id_password", TENANT_PASSWORD)
    page.click("button[type=submit].primary")
    page.wait_for_url(f"{base}/")


def _rows(page, selector: str) -> list[str]:
    return [" ".join(text.split()) for text in page.locator(f"{selector} tbody tr").all_inner_texts()]


def _fits_the_screen(page) -> None:
    """No sideways scrolling and no text cut off: long German names and titles wrap on a phone."""
    cut_off = page.evaluate(
        """() => [...document.querySelectorAll("main h1, main h2, main p, main td, main dd, main li")]
            .filter(e => e.scrollWidth > e.clientWidth + 1)
            .map(e => e.tagName + ": " + e.textContent.trim().slice(0, 40))"""
    )
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert (cut_off, overflow <= 1) == ([], True), page.url


def _walk(page, *, base: str, ids: dict[str, int]) -> None:
    # The award notice: who won each lot, for how much, against how many bids.
    page.goto(f"{base}/ausschreibung/{ids['worms']}/")
    assert page.locator("[data-testid=tender-title]").inner_text() == WORMS_TITLE
    awards = page.locator("[data-testid=awards]")
    assert awards.get_by_role("heading", name="Zuschlag").is_visible()
    assert _rows(page, "[data-testid=awards]") == [
        f"LOT-0001 {STRUBE} (Lingen) 320.649,86 € 9 Angebote –",
        f"LOT-0002 {STRUBE} (Lingen) 210.787,86 € 9 Angebote –",
        "LOT-0003 AWD-Gebäudedienste (Ludwigshafen am Rhein) 5.850 € 7 Angebote –",
    ]
    _fits_the_screen(page)

    # Its buyer: what it awarded, to whom, typical value.
    page.click("[data-testid=buyer-link]")
    page.wait_for_url(re.compile(r".*/markt/vergabestelle/\?name=.*"))
    assert page.locator("[data-testid=market-name]").inner_text() == WORMS_BUYER
    facts = " ".join(page.locator("[data-testid=market-facts]").inner_text().split())
    assert "Typischer Auftragswert 537.287,72 €" in facts  # the three lots together
    assert "Pro Jahr 2026: 1" in facts and "CPV-Bereiche 79: 1" in facts
    assert page.locator(".meta").inner_text().endswith("1 Ausschreibung")
    partners = page.locator("[data-testid=market-partners] li").all_inner_texts()
    assert partners == [f"{STRUBE} (1)", "AWD-Gebäudedienste (1)"]  # tenders won, not lots
    [row] = _rows(page, "[data-testid=market-tenders]")
    assert row.startswith(f"29.04.2026 {WORMS_TITLE[:40]}")
    assert row.endswith(f"Worms {STRUBE}, AWD-Gebäudedienste 537.287,72 € Zuschlagswert")  # value and its origin
    _fits_the_screen(page)

    # The winner: contracts won, where, for whom, for how much.
    page.click(f"[data-testid=market-partners] a:text-is('{STRUBE}')")
    page.wait_for_url(re.compile(r".*/markt/bieter/\?name=.*"))
    assert page.locator("[data-testid=market-name]").inner_text() == STRUBE
    facts = " ".join(page.locator("[data-testid=market-facts]").inner_text().split())
    assert "Typischer Zuschlagswert 531.437,72 €" in facts  # its two lots, not the third winner's
    assert "Bundesländer Rheinland-Pfalz: 1" in facts
    assert page.locator("[data-testid=market-partners] li").all_inner_texts() == [f"{WORMS_BUYER} (1)"]
    [row] = _rows(page, "[data-testid=market-tenders]")
    assert row.endswith(f"Worms {WORMS_BUYER} 531.437,72 € Zuschlagswert")
    _fits_the_screen(page)

    # Back to the tender, then to a similar awarded contract: same CPV class, same Land, winner and price.
    page.click("[data-testid=market-tenders] tbody a")
    page.wait_for_url(f"{base}/ausschreibung/{ids['worms']}/")
    similar = _rows(page, "[data-testid=similar]")
    assert similar == [
        f"{MAINZ_TITLE} 12.03.2025 Stadt Mainz, Zentrale Vergabestelle Rheinwacht Sicherheitsdienste GmbH 148.500 €"
    ]
    _fits_the_screen(page)
    page.click(f"[data-testid=similar] a:text-is('{MAINZ_TITLE}')")
    page.wait_for_url(f"{base}/ausschreibung/{ids['mainz']}/")
    assert _rows(page, "[data-testid=awards]") == [
        "Rheinwacht Sicherheitsdienste GmbH (Mainz) 148.500 € 5 Angebote –"  # one lot: no lot id shown
    ]
    # The constructed award is in the same class and Land: the Worms award is similar to it in turn.
    assert _rows(page, "[data-testid=similar]")[0].startswith(WORMS_TITLE[:40])
