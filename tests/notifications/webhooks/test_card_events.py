"""Board events: queued in the stage change's transaction, signed and delivered once, per subscribed event type."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.bids import services as board
from notifications.models import BidStage, DecisionReason, Webhook, WebhookEvent
from notifications.webhooks.delivery import webhook_events_send_due
from notifications.webhooks.services import webhook_create
from notifications.webhooks.signing import verify_signature
from tests.notifications.api.conftest import make_api_caller
from tests.notifications.webhooks.conftest import build_scene, ingest_tenders


@pytest.fixture
def board_scene(alpha, httpserver):
    """A profile's webhook (tender events) and two board webhooks in alpha, all to the local server."""
    scene = build_scene(alpha, httpserver.url_for("/hook"))  # alpha's schema stays set
    admin = get_user_model().objects.get(username=alpha.admin_email)
    both = webhook_create(
        saved_search=None,
        url=httpserver.url_for("/board"),
        created_by=admin,
        board_events=["card.stage_changed", "card.decided"],
    )
    decided_only = webhook_create(
        saved_search=None, url=httpserver.url_for("/decided"), created_by=admin, board_events=["card.decided"]
    )
    tender = ingest_tenders(1, title="Neubau Feuerwache", submission_deadline=timezone.now() + timedelta(days=20))[0]
    card = board.bid_card_ensure(tender_id=tender.pk)
    return scene, both, decided_only, card, tender


def _events(webhook: Webhook) -> list[WebhookEvent]:
    return list(WebhookEvent.objects.filter(webhook=webhook.webhook).order_by("id"))


def test_a_stage_change_through_the_api_is_delivered_once_and_signed(alpha, board_scene, httpserver):
    scene, both, decided_only, card, tender = board_scene
    httpserver.expect_request("/board", method="POST").respond_with_data("ok")
    checking = BidStage.objects.get(name="prüfen")
    api = make_api_caller(alpha, alpha.member_email)
    with schema_context("public"):
        assert api.patch(f"/api/v1/cards/{card.pk}/", {"stage": checking.pk}).status_code == 200
        assert api.patch(f"/api/v1/cards/{card.pk}/", {"stage": checking.pk}).status_code == 200  # no change
    [event] = _events(both)
    assert event.event == "card.stage_changed"
    assert _events(decided_only) == [] and _events(scene) == []

    assert webhook_events_send_due().sent == 1
    assert webhook_events_send_due().sent == 0
    [(request, _)] = httpserver.log
    body = request.get_data()
    assert verify_signature(
        secret=both.secret, body=body, header=request.headers["X-TenderRadar-Signature"], now=int(time.time())
    )
    assert request.headers["X-TenderRadar-Event"] == "card.stage_changed"
    payload = json.loads(body)
    member = get_user_model().objects.get(username=alpha.member_email)
    assert payload["card"] == {"id": card.pk}
    assert payload["tender"] == {"id": tender.pk, "title": "Neubau Feuerwache"}
    assert payload["stage_change"] == {"from": "neu", "to": "prüfen"}
    assert payload["stage"]["id"] == checking.pk and payload["actor"]["email"] == member.email
    assert payload["occurred_at"] and payload["version"] == 1 and payload["event"] == "card.stage_changed"


def test_each_stage_change_is_its_own_event(alpha, board_scene):
    _scene, both, _decided_only, card, _tender = board_scene
    admin = get_user_model().objects.get(username=alpha.admin_email)
    checking, new = BidStage.objects.get(name="prüfen"), BidStage.objects.get(name="neu")
    board.bid_card_move(card_id=card.pk, actor=admin, stage_id=checking.pk)
    board.bid_card_move(card_id=card.pk, actor=admin, stage_id=new.pk)
    changes = [e.payload["stage_change"] for e in _events(both)]
    assert changes == [{"from": "neu", "to": "prüfen"}, {"from": "prüfen", "to": "neu"}]


def test_a_refused_change_queues_nothing(alpha, board_scene):
    _scene, both, _decided_only, card, _tender = board_scene
    checking = BidStage.objects.get(name="prüfen")
    api = make_api_caller(alpha, alpha.member_email)
    with schema_context("public"):
        answer = api.patch(f"/api/v1/cards/{card.pk}/", {"stage": checking.pk, "owner": 987654})
    assert answer.status_code == 400
    assert _events(both) == []


def test_a_no_bid_decision_sends_decided_and_the_stage_change(alpha, board_scene, httpserver):
    _scene, both, decided_only, card, _tender = board_scene
    for path in ("/board", "/decided"):
        httpserver.expect_request(path, method="POST").respond_with_data("ok")
    admin = get_user_model().objects.get(username=alpha.admin_email)
    reason = DecisionReason.objects.get(label="außerhalb Region")
    board.bid_card_decide(card_id=card.pk, actor=admin, decision="no_bid", reason_id=reason.pk)
    assert sorted(e.event for e in _events(both)) == ["card.decided", "card.stage_changed"]
    [decided] = _events(decided_only)
    assert decided.payload["decision"] == {"value": "no_bid", "reason": "außerhalb Region"}
    assert decided.payload["stage_change"]["to"] == "nicht angeboten"
    assert webhook_events_send_due().sent == 3
    assert sorted(r.headers["X-TenderRadar-Event"] for r, _ in httpserver.log) == [
        "card.decided",
        "card.decided",
        "card.stage_changed",
    ]


def test_board_webhooks_need_board_events_and_no_profile(alpha, board_scene):
    from kernel.errors import ApplicationError

    scene, *_ = board_scene
    admin = get_user_model().objects.get(username=alpha.admin_email)
    for saved_search, events in ((None, []), (None, ["tender.matched"]), (scene.search, ["card.decided"])):
        with pytest.raises(ApplicationError) as refused:
            webhook_create(saved_search=saved_search, url="http://127.0.0.1:9/x", created_by=admin, board_events=events)
        assert "board_events" in refused.value.fields


def test_an_admin_connects_a_board_webhook_in_the_settings(alpha, alpha_admin_client, httpserver):
    url = httpserver.url_for("/board")
    answer = alpha_admin_client.post(
        "/einstellungen/webhooks/", {"saved_search": "", "board_events": ["card.stage_changed"], "url": url}
    )
    assert answer.status_code == 200
    with schema_context(alpha.schema_name):
        webhook = Webhook.objects.get()
        assert (webhook.saved_search_id, webhook.board_events) == (None, ["card.stage_changed"])
    listing = alpha_admin_client.get("/einstellungen/webhooks/").content.decode()
    assert "Team-Board" in listing and "card.stage_changed" in listing
    assert "Team-Board" in alpha_admin_client.get(f"/einstellungen/webhooks/{webhook.pk}/").content.decode()
    refused = alpha_admin_client.post("/einstellungen/webhooks/", {"saved_search": "", "url": url})
    assert refused.status_code == 400


def test_a_card_moved_by_an_award_notice_is_told_once(alpha, board_scene):
    from notifications.alerts.services import delta_process
    from notifications.bids.outcomes import company_identity_add
    from tests.notifications.alerts.helpers import ingest
    from tests.notifications.alerts.test_awards import _card_in, award_notice

    _scene, both, _decided_only, _card, _tender = board_scene
    delta = ingest(award_notice())
    from django.db import connection

    connection.set_tenant(alpha.tenant)
    company_identity_add(
        actor=get_user_model().objects.get(username=alpha.admin_email), kind="name", value="M & G Cleaning"
    )
    card = _card_in(delta.created[0], "Angebot in Arbeit")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    delta_process(created=delta.created, changed={}, now=timezone.now())  # a retry tells nobody twice
    [event] = [e for e in _events(both) if e.payload["card"]["id"] == card.pk]
    assert event.event == "card.stage_changed" and event.payload["actor"] is None
    assert event.payload["stage_change"] == {"from": "Angebot in Arbeit", "to": "gewonnen", "via": "award"}
