"""Browser tests: a real Chromium against pytest-django's live server, on a tenant's host name.

pytest-django's ``live_server`` normally pulls in ``transactional_db``, whose
flush would also delete the session's tenants, users and domains. Here the
helper that does so is replaced: a test with ``live_server`` gets the
``committed`` fixture instead, which truncates only the product's data tables.
Browser tests therefore must not request ``db`` (or fixtures built on it).

Playwright's sync API keeps an event loop running in the test's thread, where
Django refuses ORM calls: prepare data before opening the browser and check
the database after closing it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.utils import timezone

from accounts.models import Tenant
from tests.fixtures.tenants import TestTenant
from tests.tenders.search_corpus import ingest_corpus

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


@pytest.fixture(autouse=True)
def _live_server_helper(request):
    if "live_server" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("committed")
    live_server = request.getfixturevalue("live_server")
    live_server._live_server_modified_settings.enable()
    yield
    live_server._live_server_modified_settings.disable()


@pytest.fixture
def chromium_available() -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)")


@pytest.fixture
def alpha_site(committed) -> TestTenant:
    return TestTenant(
        tenant=Tenant.objects.get(schema_name="alpha"),
        host="alpha.localhost",
        admin_email="admin@alpha.example",
        member_email="member@alpha.example",
    )


@pytest.fixture
def corpus_ids(committed) -> dict[str, int]:
    return ingest_corpus(timezone.now())


@contextmanager
def chromium_page(*, locale: str = "de-DE") -> Iterator:
    """A page in a headless Debian Chromium driven by Playwright (no downloaded browser builds)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(locale=locale)
            # Generous: a slow machine running the whole suite in four workers (embedded PostgreSQL on a first run)
            # once took more than 15 s for a page; no test asserts a time.
            page.set_default_timeout(30_000)
            yield page
        finally:
            browser.close()
