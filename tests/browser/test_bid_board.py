"""Two people of one tenant work one card on the team board: at 1280 px the admin assigns and @mentions, at 390 px
the member finds it under "meine", decides "kein Angebot" with a reason; both boards show the same card."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.bids.services import bid_card_ensure
from notifications.models import BidCard, CardComment, Delivery, DeliveryKind
from tests.browser.conftest import chromium_page
from tests.fixtures.tenants import TENANT_PASSWORD
from tests.notifications.alerts.helpers import ingest, notice

pytestmark = pytest.mark.browser


def _sign_in(page, base: str, email: str) -> None:
    page.context.clear_cookies()
    page.goto(f"{base}/angebote/")
    page.fill("#id_username", email)
    page.fill("#id_password", TENANT_PASSWORD)
    page.click("button[type=submit].primary")
    page.wait_for_url(f"{base}/angebote/")


def _no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_two_people_work_one_card(live_server, alpha_site, chromium_available):
    delta = ingest(
        notice(
            title="Sanierung Turnhalle Nord",
            buyer_name="Stadt Musterhausen",
            submission_deadline=timezone.now() + timezone.timedelta(days=12),
        )
    )
    with schema_context(alpha_site.schema_name):
        card = bid_card_ensure(tender_id=delta.created[0])
    base = f"http://{alpha_site.host}:{urlsplit(live_server.url).port}"
    errors: list[str] = []
    with chromium_page() as page:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)

        # The admin, on a laptop: the card sits in "neu"; assign the member and ask them by @mention.
        page.set_viewport_size({"width": 1280, "height": 900})
        _sign_in(page, base, alpha_site.admin_email)
        column = page.locator("[data-testid=board-column]").first
        assert column.locator("h2").inner_text().startswith("neu")
        assert "Sanierung Turnhalle Nord" in column.locator("[data-testid=bid-card]").inner_text()
        assert "in 12 Tagen" in column.locator("[data-testid=bid-card]").inner_text()
        # Moving by the keyboard: the select is the control, htmx posts on change and the board reloads.
        page.locator("[data-testid=bid-card-move]").select_option(label="prüfen")
        page.locator("[data-testid=board-column]").nth(1).locator("[data-testid=bid-card]").wait_for()
        page.click("[data-testid=bid-card-link]")
        page.wait_for_url(f"{base}/angebote/karte/{card.pk}/")
        page.select_option("[data-testid=card-owner]", label=alpha_site.member_email)
        page.click("[data-testid=card-owner-save]")
        page.wait_for_url(f"{base}/angebote/karte/{card.pk}/#karte")
        page.fill("[data-testid=card-comment-text]", "@member bitte bis Freitag prüfen <script>alert(1)</script>")
        page.click("[data-testid=card-comment-save]")
        page.wait_for_selector("[data-testid=card-comment]")
        assert "<script>alert(1)</script>" in page.locator("[data-testid=card-comment]").inner_text()

        # The member, on a phone: the card is theirs ("meine"), decided "kein Angebot" with a reason.
        page.set_viewport_size({"width": 390, "height": 844})
        _sign_in(page, base, alpha_site.member_email)
        page.click("[data-testid=board-mine]")
        page.wait_for_selector("[data-testid=bid-card]")
        assert _no_sideways_scroll(page)
        page.click("[data-testid=bid-card-link]")
        assert "bitte bis Freitag" in page.locator("[data-testid=card-comments]").inner_text()
        page.select_option("[data-testid=card-decision-select]", "no_bid")
        page.select_option("[data-testid=card-reason]", label="keine Kapazität")
        page.click("[data-testid=card-decide]")
        page.wait_for_selector("[data-testid=card-decision]:has-text('keine Kapazität')")
        assert page.locator("[data-testid=card-stage]").inner_text() == "nicht angeboten"
        assert _no_sideways_scroll(page)
        page.goto(f"{base}/angebote/")
        assert page.locator("[data-testid=bid-card]").count() == 0  # decided: hidden by default
        page.click("[data-testid=board-show-closed]")
        member_board = page.locator("[data-testid=board]").inner_text()

        # The admin sees the same board.
        page.set_viewport_size({"width": 1280, "height": 900})
        _sign_in(page, base, alpha_site.admin_email)
        page.click("[data-testid=board-show-closed]")
        assert page.locator("[data-testid=board]").inner_text() == member_board
        history = page.goto(f"{base}/angebote/karte/{card.pk}/") and page.locator("[data-testid=card-history]")
        assert "entschieden" in history.inner_text() and "zugewiesen" in history.inner_text()
    assert errors == []
    with schema_context(alpha_site.schema_name):
        card = BidCard.objects.select_related("owner", "decision_reason", "stage").get(pk=card.pk)
        assert (card.owner.email, card.decision, card.decision_reason.label) == (
            alpha_site.member_email,
            "no_bid",
            "keine Kapazität",
        )
        comment = CardComment.objects.get()
        assert [u.email for u in comment.mentions.all()] == [alpha_site.member_email]
        assert Delivery.objects.filter(kind=DeliveryKind.MENTION).count() == 1
