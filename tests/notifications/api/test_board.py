"""The team board through the partner API: real keys, cursor pages, the board's rules, tenant isolation."""

from __future__ import annotations

from datetime import timedelta

import pytest
import yaml
from django.core.management import call_command
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.bids import services
from notifications.models import BidCard, BidStage, CardEvent, DecisionReason
from tests.notifications.alerts.helpers import ingest, notice, user

pytestmark = pytest.mark.django_db


def _cards(alpha, count: int, **overrides) -> list[int]:
    deadline = timezone.now() + timedelta(days=9)
    records = [notice(title=f"Dachsanierung {i}", submission_deadline=deadline, **overrides) for i in range(count)]
    tender_ids = ingest(*records).created
    with schema_context(alpha.schema_name):
        return [services.bid_card_ensure(tender_id=tender_id).pk for tender_id in tender_ids]


def _stage(alpha, name: str) -> BidStage:
    with schema_context(alpha.schema_name):
        return BidStage.objects.get(name=name)


def test_board_stages_and_reasons_are_listed(alpha, alpha_api):
    _cards(alpha, 2)
    board = alpha_api.get("/api/v1/board/")
    assert board.status_code == 200
    stages = {stage["name"]: stage for stage in board.json()["stages"]}
    assert stages["neu"]["cards"] == 2 and stages["neu"]["open_cards"] == 2 and stages["neu"]["kind"] == "open"
    assert stages["gewonnen"]["cards"] == 0 and stages["gewonnen"]["kind"] == "won"
    listed = alpha_api.get("/api/v1/stages/").json()
    assert [s["name"] for s in listed] == [s["name"] for s in board.json()["stages"]]
    reasons = alpha_api.get("/api/v1/decision-reasons/").json()
    assert "außerhalb Region" in {r["label"] for r in reasons} and all(r["is_active"] for r in reasons)
    assert alpha_api.get("/api/v1/decision-reasons/", {"include_retired": "vielleicht"}).status_code == 400


def test_cards_page_by_cursor_each_card_once(alpha, alpha_api):
    card_ids = _cards(alpha, 5)
    seen, url = [], "/api/v1/cards/?page_size=2"
    while url:
        answer = alpha_api.get(url)
        assert answer.status_code == 200
        body = answer.json()
        assert len(body["results"]) <= 2 and "count" not in body
        seen += [card["id"] for card in body["results"]]
        url = body["next"]
    assert sorted(seen) == sorted(card_ids) and len(seen) == 5
    first = alpha_api.get("/api/v1/cards/?page_size=1").json()["results"][0]
    assert first["stage"]["name"] == "neu" and first["tender"]["title"].startswith("Dachsanierung")
    assert first["decision"] == {"value": "", "label": "offen", "reason": None}
    assert first["portal_url"].endswith(f"/angebote/karte/{first['id']}/")
    assert alpha_api.get("/api/v1/cards/", {"cursor": "!!!"}).status_code == 400


def test_cards_filters(alpha, alpha_api):
    first, second, third = _cards(alpha, 3)
    checking = _stage(alpha, "prüfen")
    with schema_context(alpha.schema_name):
        member, admin = user(alpha.member_email), user(alpha.admin_email)
        services.bid_card_move(card_id=second, actor=member, stage_id=checking.pk)
        services.bid_card_assign(card_id=first, actor=member, owner_id=member.pk)
        services.bid_card_assign(card_id=third, actor=member, owner_id=admin.pk)
        reason = DecisionReason.objects.get(label="außerhalb Region")
        services.bid_card_decide(card_id=third, actor=member, decision="no_bid", reason_id=reason.pk)
        BidCard.objects.filter(pk=first).update(updated_at=timezone.now() - timedelta(days=3))

    def ids(**params):
        answer = alpha_api.get("/api/v1/cards/", params)
        assert answer.status_code == 200, answer.content
        return {card["id"] for card in answer.json()["results"]}

    assert ids() == {first, second}  # the declined card is closed
    assert ids(include_closed="true") == {first, second, third}
    assert ids(stage=checking.pk) == {second}
    assert ids(owner="me") == {first}
    assert ids(owner=str(admin.pk), include_closed="1") == {third}
    since = (timezone.now() - timedelta(days=1)).isoformat()
    assert ids(updated_since=since) == {second}
    for params, field in (
        ({"stage": "999999"}, "stage"),
        ({"owner": "du"}, "owner"),
        ({"updated_since": "gestern"}, "updated_since"),
        ({"include_closed": "x"}, "include_closed"),
    ):
        answer = alpha_api.get("/api/v1/cards/", params)
        assert answer.status_code == 400 and field in answer.json()["error"]["fields"]


def test_card_detail_carries_people_decision_comments_and_history(alpha, alpha_api):
    (card_id,) = _cards(alpha, 1)
    with schema_context(alpha.schema_name):
        member, admin = user(alpha.member_email), user(alpha.admin_email)
        services.bid_card_watchers_set(card_id=card_id, actor=member, watcher_ids=[admin.pk])
        services.card_comment_add(card_id=card_id, author=member, text="Region prüfen")
    body = alpha_api.get(f"/api/v1/cards/{card_id}/").json()
    assert [w["email"] for w in body["watchers"]] == [admin.email]
    assert [c["text"] for c in body["comments"]] == ["Region prüfen"]
    assert body["comments"][0]["author"]["email"] == member.email
    assert [e["kind"] for e in body["events"]][:2] == ["comment", "watchers"]
    assert body["tender"]["url"].endswith(f"/api/v1/tenders/{body['tender']['id']}/")


def test_a_member_moves_assigns_and_decides_through_the_board_services(alpha, alpha_api):
    (card_id,) = _cards(alpha, 1)
    checking = _stage(alpha, "prüfen")
    with schema_context(alpha.schema_name):
        admin = user(alpha.admin_email)
        reason = DecisionReason.objects.get(label="außerhalb Region")
    url = f"/api/v1/cards/{card_id}/"
    answer = alpha_api.patch(url, {"stage": checking.pk, "owner": admin.pk, "due_date": "2026-12-24"})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["stage"]["name"] == "prüfen" and body["owner"]["email"] == admin.email
    assert body["due_date"] == "2026-12-24"
    assert {e["kind"] for e in body["events"]} >= {"stage", "owner", "due"}

    refused = alpha_api.post(url + "decision/", {"decision": "no_bid"})
    assert refused.status_code == 400 and "reason" in refused.json()["error"]["fields"]
    decided = alpha_api.post(url + "decision/", {"decision": "no_bid", "reason": reason.pk})
    assert decided.status_code == 200
    assert decided.json()["decision"]["reason"]["label"] == "außerhalb Region"
    assert decided.json()["stage"]["kind"] == "declined"


def test_a_refused_change_leaves_the_card_as_it_was(alpha, alpha_api):
    (card_id,) = _cards(alpha, 1)
    checking = _stage(alpha, "prüfen")
    answer = alpha_api.patch(f"/api/v1/cards/{card_id}/", {"stage": checking.pk, "owner": 987654})
    assert answer.status_code == 400 and "owner" in answer.json()["error"]["fields"]
    with schema_context(alpha.schema_name):
        assert BidCard.objects.get(pk=card_id).stage.name == "neu"
        assert not CardEvent.objects.filter(card_id=card_id, kind="stage").exists()
    for payload, field in (({}, ""), ({"stage": "neu"}, "stage"), ({"due_date": "morgen"}, "due_date")):
        answer = alpha_api.patch(f"/api/v1/cards/{card_id}/", payload)
        assert answer.status_code == 400
        assert field == "" or field in answer.json()["error"]["fields"]
    assert alpha_api.post(f"/api/v1/cards/{card_id}/decision/", {"decision": "vielleicht"}).status_code == 400


def test_cards_of_another_tenant_are_404_and_not_listed(alpha, beta, alpha_api, beta_api):
    (card_id,) = _cards(alpha, 1)
    checking = _stage(alpha, "prüfen")
    assert beta_api.get(f"/api/v1/cards/{card_id}/").status_code == 404
    assert beta_api.patch(f"/api/v1/cards/{card_id}/", {"stage": checking.pk}).status_code == 404
    assert beta_api.post(f"/api/v1/cards/{card_id}/decision/", {"decision": "bid"}).status_code == 404
    assert beta_api.get("/api/v1/cards/").json()["results"] == []
    with schema_context(alpha.schema_name):
        assert BidCard.objects.get(pk=card_id).stage.name == "neu"
        assert BidCard.objects.get(pk=card_id).decision == ""


def test_the_board_needs_a_key(alpha):
    from django.test import Client

    client = Client(HTTP_HOST=alpha.host)
    for path in ("/api/v1/board/", "/api/v1/cards/", "/api/v1/stages/", "/api/v1/decision-reasons/"):
        assert client.get(path).status_code == 401


def test_board_operations_are_documented(db, tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(target))
    paths = yaml.safe_load(target.read_text(encoding="utf-8"))["paths"]
    cards = paths["/api/v1/cards/"]["get"]
    names = {p["name"] for p in cards["parameters"]}
    assert {"cursor", "page_size", "stage", "owner", "include_closed", "updated_since"} <= names
    assert "page" not in names
    assert set(paths["/api/v1/cards/{id}/"]) >= {"get", "patch"}
    assert "post" in paths["/api/v1/cards/{id}/decision/"]
    for path in ("/api/v1/board/", "/api/v1/stages/", "/api/v1/decision-reasons/"):
        assert paths[path]["get"]["tags"] == ["Angebote"]
