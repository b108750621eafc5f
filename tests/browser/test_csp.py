"""The Content-Security-Policy holds in a real Chromium: portal, htmx fragments, API docs and the operator admin.

Chromium reports every blocked script, style, image or connection on the console
("Refused to … because it violates the following Content Security Policy
directive"); each page below must load and work without one.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import chromium_page
from tests.fixtures.tenants import PUBLIC_HOST, TENANT_PASSWORD

pytestmark = pytest.mark.browser


def _watch(page) -> list[str]:
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"error: {exc}"))
    page.on(
        "console",
        lambda msg: problems.append(f"{page.url}: {msg.text}") if "Content Security Policy" in msg.text else None,
    )
    return problems


def _policy_of(response) -> str:
    return response.headers.get("content-security-policy", "")


def test_portal_pages_and_api_docs_work_under_the_policy(live_server, alpha_site, corpus_ids, chromium_available):
    base = f"http://{alpha_site.host}:{urlsplit(live_server.url).port}"
    with chromium_page() as page:
        problems = _watch(page)
        login = page.goto(f"{base}/konto/anmelden/")
        assert "script-src 'self'" in _policy_of(login)
        page.fill("#id_username", alpha_site.admin_email)
        page.fill("#id_password", TENANT_PASSWORD)
        page.click("button[type=submit].primary")
        page.wait_for_url(f"{base}/")

        # htmx: search results are swapped in, without eval or injected styles.
        page.goto(f"{base}/suche/")
        page.fill("#id_q", "Straßenbau")
        page.press("#id_q", "Enter")
        page.wait_for_selector("[data-testid=result-count]:has-text('3 Ausschreibungen gefunden')")

        # The CPV picker: an htmx fragment found by word, then browsed one level down, no inline code.
        page.click("summary")
        page.fill("#id_cpv", "Bewachung")
        page.wait_for_selector("[data-testid=cpv-hits] button:has-text('79713000 Bewachungsdienste')")
        page.goto(f"{base}/suche/?cpv=45")  # a CPV filter opens "Weitere Filter" by itself
        page.click("[data-testid=cpv-picker] button:has-text('Alle Abteilungen')")
        page.click("#cpv-results li:has-text('45000000') button.link")
        page.wait_for_selector("[data-testid=cpv-parent]:has-text('45000000 Bauarbeiten')")
        page.click("#cpv-pick-45200000")
        page.wait_for_selector("[data-testid=result-count]")

        # htmx fragment: the profile preview.
        page.click("[data-testid=save-profile]")
        page.wait_for_selector("[data-testid=preview-count]")

        page.goto(f"{base}/pipeline/")
        page.click("[data-testid=calendar-create]")
        page.wait_for_selector("[data-testid=calendar-url]")

        for path in ("/einstellungen/", "/einstellungen/zustellungen/", "/konto/team/", "/api-schluessel/"):
            response = page.goto(base + path)
            assert response.status == 200, path
            assert "default-src 'self'" in _policy_of(response), path

        # Swagger UI from the sidecar: the split view's script and the schema load under the same policy.
        docs = page.goto(f"{base}/api/v1/docs/")
        assert "frame-ancestors 'none'" in _policy_of(docs)
        page.wait_for_selector(".swagger-ui .info .title:has-text('Tender Radar API')")
        page.wait_for_selector(".opblock-summary-path:has-text('/api/v1/tenders/')")
    assert problems == [], "\n".join(problems)


def test_operator_admin_works_under_the_policy(live_server, committed, chromium_available):
    base = f"http://{PUBLIC_HOST}:{urlsplit(live_server.url).port}"
    with chromium_page() as page:
        problems = _watch(page)
        login = page.goto(f"{base}/admin/login/")
        assert "form-action 'self'" in _policy_of(login)
        page.fill("#id_username", "operator@example.org")
        page.fill("#id_password", TENANT_PASSWORD)
        page.click("input[type=submit]")
        page.wait_for_url(f"{base}/admin/")
        for path in (
            "/admin/accounts/tenant/",
            "/admin/accounts/tenant/add/",
            "/admin/sources/source/",
            "/admin/zustellungen/",
        ):
            response = page.goto(base + path)
            assert response.status == 200, path
        page.goto(f"{base}/admin/sources/source/")
        # The sources are seeded by migration, so there is always a first one to open.
        page.locator("#result_list tbody tr th a").first.click()
        page.wait_for_selector("text=Jetzt abrufen")
        # The admin's own JavaScript runs (filter sidebar toggle, action checkbox counter).
        page.goto(f"{base}/admin/accounts/tenant/")
        page.wait_for_selector("#changelist")
    assert problems == [], "\n".join(problems)
