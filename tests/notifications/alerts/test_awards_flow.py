"""A real award notice through the real ingest and hand-off: the tenant's matching task moves its card and
tells the team, and a watched competitor's win is exactly one mail at the tenant's SMTP server (real worker,
aiosmtpd)."""

from __future__ import annotations

import pytest
from django.db import transaction
from django_tenants.utils import schema_context

from notifications.alerts.deliveries import deliveries_send_due
from notifications.bids import services as board
from notifications.bids.outcomes import company_identity_add, watched_competitor_add
from notifications.models import BidCard, Delivery, DeliveryKind, DeliveryStatus
from tenders.handoff import delta_hand_off
from tests.notifications.alerts.helpers import ingest, settle, smtp_to, user, wait_for
from tests.notifications.alerts.test_awards import award_notice

pytestmark = pytest.mark.usefixtures("celery_worker")


def test_a_watched_competitors_win_is_one_mail_and_the_teams_win_one_more(committed_tenants, smtp_server):
    alpha, _beta = committed_tenants
    call = award_notice()
    with schema_context(alpha.schema_name):
        smtp_to(smtp_server)
        member = user(alpha.member_email)
        watched_competitor_add(actor=member, name="Belgo Facility Services")
        company_identity_add(actor=user(alpha.admin_email), kind="vat_id", value="BE0879.639.451")

    # The tender is on the board before its award notice arrives: a card needs its tender id.
    delta = ingest(call, hand_off=False)
    with schema_context(alpha.schema_name):
        card = board.bid_card_ensure(tender_id=delta.created[0])
        board.bid_card_assign(card_id=card.pk, actor=member, owner_id=member.pk)
    with schema_context("public"), transaction.atomic():
        delta_hand_off(delta)  # exactly what a source run does after its batch

    wait_for(lambda: len(smtp_server.messages) == 2, what="the competitor mail and the win mail", timeout=30)
    settle(alpha.schema_name)
    with schema_context(alpha.schema_name):
        assert BidCard.objects.select_related("stage").get(pk=card.pk).stage.name == "gewonnen"
        assert deliveries_send_due().sent == 0
        assert set(Delivery.objects.values_list("kind", "status")) == {
            (DeliveryKind.COMPETITOR, DeliveryStatus.SENT),
            (DeliveryKind.AWARD, DeliveryStatus.SENT),
        }
    settle(alpha.schema_name)
    assert len(smtp_server.messages) == 2
    by_subject = {str(m["Subject"]).strip(): m for m in smtp_server.messages}
    assert len(by_subject) == 2
    competitor = next(m for s, m in by_subject.items() if s.startswith("Wettbewerber"))
    assert competitor["To"] == alpha.member_email
    body = competitor.get_body(("plain",)).get_content()
    assert "Belgo Facility Services" in body and "Los 4, 11.807,88 €" in body
    won = next(m for s, m in by_subject.items() if s.startswith("Gewonnen"))
    assert won["To"] == alpha.member_email
    assert "M&G CLEANING (Los 2, 13.768,11 €)" in won.get_body(("plain",)).get_content()
