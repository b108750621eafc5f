"""Phone first, measured in Chromium at 390 × 844: the tender page, the dashboard and the search.

On a phone nothing sticks out sideways, the tender's key facts (deadline with days left, buyer, place,
value, status, documents) and the first search result lie in the first screen, and no word is broken
inside: a word whose letters land on two lines is reported, except ids, e-mail addresses and URLs
(class ``breakable``), which may break anywhere.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import chromium_page
from tests.fixtures.tenants import TENANT_PASSWORD

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 390, 844

# Words are what lies between spaces, hyphens and slashes ("IT-Dienstleistungen" may wrap after its hyphen).
# A word is broken when its letters, one text node's, stand on more than one line.
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest(".breakable") || parent.getClientRects().length === 0) continue;
      for (const match of node.data.matchAll(/[^\\s\\-\\u2010-\\u2014\\/]+/gu)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
  }
  return broken;
}"""

BOTTOM = (
    "(selector) => { const e = document.querySelector(selector); return e.getBoundingClientRect().bottom + scrollY; }"
)
TOP = "(selector) => { const e = document.querySelector(selector); return e.getBoundingClientRect().top + scrollY; }"


def test_phone_layout(live_server, alpha_site, corpus_ids, chromium_available):
    base = f"http://{alpha_site.host}:{urlsplit(live_server.url).port}"
    with chromium_page() as page:
        page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/konto/anmelden/")
        page.fill("#id_username", alpha_site.member_email)
        page.fill("#id_password", TENANT_PASSWORD)
        page.click("button[type=submit].primary")
        page.wait_for_url(f"{base}/")
        problems = _dashboard(page) + _search(page, base=base)
        for key, tender_id in sorted(corpus_ids.items()):
            problems += _tender(page, base=base, key=key, tender_id=tender_id)
    assert errors == []
    assert problems == []


def _sideways(page, name: str) -> list[str]:
    width = page.evaluate("document.scrollingElement.scrollWidth")
    return [f"{name}: {width}px wide on a {WIDTH}px screen"] if width > WIDTH else []


def _broken(page, name: str, selector: str) -> list[str]:
    return [f"{name}: {word!r} broken inside" for word in page.evaluate(BROKEN_WORDS, selector)]


def _dashboard(page) -> list[str]:
    # The greeting's address wraps at its "@" (or anywhere inside, being an address), never its words.
    assert page.locator("h1.greeting").inner_text().startswith("Willkommen")
    assert page.locator("h1.greeting .breakable").get_attribute("title") == "member@alpha.example"
    return _sideways(page, "dashboard") + _broken(page, "dashboard", "main")


def _search(page, *, base: str) -> list[str]:
    problems: list[str] = []
    for query in ("", "?q=Stra%C3%9Fenbau"):
        page.goto(f"{base}/suche/{query}")
        page.wait_for_selector("[data-testid=tender-row]")
        name = f"search {query or '(all)'}"
        top = page.evaluate(TOP, "[data-testid=tender-row]")
        if top >= HEIGHT:
            problems.append(f"{name}: the first result starts at {top:.0f}px, below the first screen")
        problems += _sideways(page, name) + _broken(page, name, ".tender-list")
    # The folded filters open on a tap; the results stay where they are meant to be found.
    assert not page.locator("input[name=status][value=active]").is_visible()
    page.click("[data-testid=filter-toggle]")
    assert page.locator("input[name=status][value=active]").is_visible()
    problems += _sideways(page, "search with filters open")
    return problems


def _tender(page, *, base: str, key: str, tender_id: int) -> list[str]:
    name = f"tender {key}"
    page.goto(f"{base}/ausschreibung/{tender_id}/")
    facts = page.locator("[data-testid=key-facts]")
    assert facts.is_visible()
    text = facts.inner_text()
    for label in ("Frist", "Auftraggeber", "Ort", "Wert", "Status"):
        assert label in text, f"{name}: key facts without {label}"
    problems = _sideways(page, name)
    bottom = page.evaluate(BOTTOM, "[data-testid=key-facts]")
    if bottom >= HEIGHT:
        problems.append(f"{name}: the key facts end at {bottom:.0f}px, below the first screen")
    if page.locator("[data-testid=key-deadline-distance]").count():
        assert page.locator("[data-testid=key-deadline-distance]").inner_text().strip()
    return problems + _broken(page, name, "main h1, [data-testid=key-facts], .facts")
