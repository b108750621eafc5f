"""The operator console in a real Chromium: django-celery-beat's task form under the policy, and a phone's width."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import chromium_page
from tests.browser.test_csp import _watch
from tests.fixtures.tenants import PUBLIC_HOST, TENANT_PASSWORD

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def _sign_in(page, base: str) -> None:
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", "operator@example.org")
    page.fill("#id_password", TENANT_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")


def test_the_periodic_task_form_explains_the_crontab_under_the_policy(live_server, committed, chromium_available):
    from django_celery_beat.models import CrontabSchedule

    crontab = CrontabSchedule.objects.create(minute="30", hour="4")
    base = f"http://{PUBLIC_HOST}:{urlsplit(live_server.url).port}"
    try:
        with chromium_page() as page:
            problems = _watch(page)
            _sign_in(page, base)
            page.goto(f"{base}/admin/django_celery_beat/periodictask/add/")
            page.select_option("#id_crontab", str(crontab.pk))
            help_text = page.locator(".field-crontab .help")
            help_text.filter(has_text="Bedeutung:").wait_for()
            assert "4" in help_text.inner_text()  # django-celery-beat's words for "30 4 * * *"
            assert page.locator(".field-crontab_translation").is_hidden()
        assert problems == [], "\n".join(problems)
    finally:
        crontab.delete()


def test_the_console_fits_a_phone(live_server, committed, chromium_available):
    base = f"http://{PUBLIC_HOST}:{urlsplit(live_server.url).port}"
    with chromium_page() as page:
        page.set_viewport_size(PHONE)
        _sign_in(page, base)
        widths = {}
        for path in (
            "/admin/",
            "/admin/sources/source/",
            "/admin/sources/fetchrun/",
            "/admin/accounts/tenant/",
            "/admin/zustellungen/",
            "/admin/django_celery_beat/periodictask/",
        ):
            response = page.goto(base + path)
            assert response.status == 200, path
            widths[path] = page.evaluate("document.documentElement.scrollWidth")
        assert all(width <= PHONE["width"] for width in widths.values()), widths
        # The changelist table keeps its columns and scrolls inside its own box instead.
        page.goto(f"{base}/admin/sources/source/")
        results = page.locator("#changelist .results")
        assert results.evaluate("el => el.scrollWidth > el.clientWidth"), "the table should scroll in its box"


DESKTOP = {"width": 1280, "height": 800}


def test_wide_changelists_scroll_in_their_box_at_1280_px(live_server, committed, corpus_ids, chromium_available):
    """Quellen, Abrufe and Ausschreibungen have more columns than 1280 px hold: the table scrolls, the page does not,
    and the table's box is at most a window high, so its horizontal scrollbar can be reached without the last row."""
    from django.utils import timezone

    from sources.models import FetchRun, Source

    for source in Source.objects.all():
        FetchRun.objects.create(
            source=source, started_at=timezone.now(), status="blocked", trigger="manual", error_reason="changed_layout",
            layout="table-6", low_yield=True, yield_report=[{"page": "p", "layout": "table-6", "rows_seen": 16, "parsed": 0}],
        )  # fmt: skip
    base = f"http://{PUBLIC_HOST}:{urlsplit(live_server.url).port}"
    measure = """() => {
        const box = document.querySelector('#changelist .results').getBoundingClientRect();
        return {
            page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            right: box.right, height: box.height, window: window.innerHeight,
        };
    }"""
    with chromium_page() as page:
        page.set_viewport_size(DESKTOP)
        _sign_in(page, base)
        found = {}
        for path in ("/admin/sources/source/", "/admin/sources/fetchrun/", "/admin/tenders/tender/"):
            assert page.goto(base + path).status == 200, path
            found[path] = page.evaluate(measure)
        assert all(m["page"] <= 0 and m["right"] <= DESKTOP["width"] for m in found.values()), found
        assert all(m["height"] <= m["window"] for m in found.values()), found
        page.goto(base + "/admin/sources/source/")
        assert page.locator("#changelist .results").evaluate("el => el.scrollWidth > el.clientWidth")
        badge = page.locator(".field-health .run-badge").first
        assert "Layout geändert" in badge.inner_text()
        colour = badge.evaluate("el => getComputedStyle(el).color")
        assert colour == "rgb(163, 34, 26)", colour  # red: blocked, whatever else the run says
