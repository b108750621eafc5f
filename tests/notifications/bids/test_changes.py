"""One service for a card's changes (the partner API's PATCH and its decision POST): all of them or none."""

from __future__ import annotations

import pytest
from django.db import connection

from kernel.errors import ApplicationError
from notifications.bids.changes import bid_card_change
from notifications.bids.services import bid_card_ensure
from notifications.models import BidCard, BidStage, CardEvent, DecisionReason
from tests.notifications.alerts.helpers import ingest, notice, user

pytestmark = pytest.mark.django_db


def _card(alpha) -> BidCard:
    delta = ingest(notice(title="Schulhof Pflasterarbeiten"))
    connection.set_tenant(alpha.tenant)
    return bid_card_ensure(tender_id=delta.created[0])


def test_a_decision_is_one_more_change_and_comes_after_the_stage(alpha):
    card = _card(alpha)
    member = user(alpha.member_email)
    reason = DecisionReason.objects.get(label="zu klein")
    checking = BidStage.objects.get(name="prüfen")
    changed = bid_card_change(
        card_id=card.pk, actor=member, stage_id=checking.pk, decision="no_bid", reason_id=reason.pk
    )
    assert (changed.stage.name, changed.decision, changed.decision_reason_id) == (
        "nicht angeboten",
        "no_bid",
        reason.pk,
    )
    kinds = list(CardEvent.objects.filter(card=card).order_by("id").values_list("kind", flat=True))
    assert kinds == ["created", "stage", "decision"]


def test_a_refused_decision_takes_back_the_stage_and_a_reason_needs_a_decision(alpha):
    card = _card(alpha)
    member = user(alpha.member_email)
    checking = BidStage.objects.get(name="prüfen")
    with pytest.raises(ApplicationError) as refused:
        bid_card_change(card_id=card.pk, actor=member, stage_id=checking.pk, decision="no_bid")
    assert "reason" in refused.value.fields
    with pytest.raises(ApplicationError) as lonely:
        bid_card_change(card_id=card.pk, actor=member, reason_id=DecisionReason.objects.first().pk)
    assert "reason" in lonely.value.fields
    assert BidCard.objects.get(pk=card.pk).stage.name == "neu"
    assert list(CardEvent.objects.filter(card=card).values_list("kind", flat=True)) == ["created"]
