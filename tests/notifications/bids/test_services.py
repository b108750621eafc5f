"""Working a card on the team board: services own their transaction, record history, and check roles."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from kernel.errors import ApplicationError, NotFound, PermissionRefused
from notifications.bid_cards import bid_cards_land
from notifications.bids import services
from notifications.bids.selectors import bid_board, bid_card_detail
from notifications.models import (
    BidCard,
    BidDecision,
    BidStage,
    BidStageKind,
    CardEvent,
    CardEventKind,
    DecisionReason,
    Delivery,
    DeliveryKind,
)
from tests.notifications.alerts.helpers import ingest, notice, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def card(alpha):
    delta = ingest(
        notice(title="Dachsanierung Grundschule", submission_deadline=timezone.now() + timezone.timedelta(days=9))
    )
    connection.set_tenant(alpha.tenant)
    return services.bid_card_ensure(tender_id=delta.created[0])


def _stage(name: str) -> BidStage:
    return BidStage.objects.get(name=name)


def test_a_tender_lands_once_in_the_first_open_stage_with_its_history(card):
    assert card.stage.name == "neu"
    assert bid_cards_land(tender_ids=[card.tender_id], now=timezone.now()) == 0
    assert BidCard.objects.filter(tender_id=card.tender_id).count() == 1
    assert list(CardEvent.objects.filter(card=card).values_list("kind", flat=True)) == [CardEventKind.CREATED]


def test_an_unknown_tender_has_no_card(alpha):
    connection.set_tenant(alpha.tenant)
    with pytest.raises(NotFound):
        services.bid_card_ensure(tender_id=987654321)


def test_moving_assigning_and_deciding_are_recorded_on_the_card(alpha, card):
    member, admin = user(alpha.member_email), user(alpha.admin_email)
    services.bid_card_move(card_id=card.pk, actor=member, stage_id=_stage("prüfen").pk)
    services.bid_card_assign(card_id=card.pk, actor=member, owner_id=admin.pk)
    services.bid_card_watchers_set(card_id=card.pk, actor=admin, watcher_ids=[member.pk])
    reason = DecisionReason.objects.get(label="zu klein")
    services.bid_card_decide(card_id=card.pk, actor=admin, decision=BidDecision.NO_BID, reason_id=reason.pk)

    card.refresh_from_db()
    assert (card.stage.kind, card.owner_id, card.decision_reason_id) == (BidStageKind.DECLINED, admin.pk, reason.pk)
    kinds = list(CardEvent.objects.filter(card=card).order_by("id").values_list("kind", flat=True))
    assert kinds == ["created", "stage", "owner", "watchers", "decision"]
    decision = CardEvent.objects.get(card=card, kind="decision")
    assert (
        decision.actor == admin and decision.data["reason"] == "zu klein" and decision.data["to"] == "nicht angeboten"
    )


def test_no_bid_needs_a_reason_and_nothing_changes_without_one(alpha, card):
    with pytest.raises(ApplicationError) as refused:
        services.bid_card_decide(
            card_id=card.pk, actor=user(alpha.member_email), decision=BidDecision.NO_BID, reason_id=None
        )
    assert "reason" in refused.value.fields
    card.refresh_from_db()
    assert card.decision == "" and card.stage.name == "neu"


def test_the_owner_must_be_an_active_person_of_the_team(alpha, card):
    member = user(alpha.member_email)
    member.is_active = False
    member.save(update_fields=["is_active"])
    with pytest.raises(ApplicationError):
        services.bid_card_assign(card_id=card.pk, actor=user(alpha.admin_email), owner_id=member.pk)


def test_a_card_id_the_tenant_does_not_have_is_not_found(alpha, beta, card):
    """Schemas keep cards apart: the other tenant's board knows no card of alpha's."""
    connection.set_tenant(beta.tenant)
    assert not BidCard.objects.filter(pk=card.pk).exists()
    with pytest.raises(NotFound):
        services.bid_card_move(card_id=card.pk, actor=user(beta.member_email), stage_id=1)
    assert bid_card_detail(card_id=card.pk) is None


def test_members_cannot_change_stages_or_reasons_admins_can(alpha, card):
    member, admin = user(alpha.member_email), user(alpha.admin_email)
    with pytest.raises(PermissionRefused):
        services.bid_stage_create(actor=member, name="Rückfragen", kind=BidStageKind.OPEN)
    with pytest.raises(PermissionRefused):
        services.decision_reason_create(actor=member, label="zu teuer")
    stage = services.bid_stage_create(actor=admin, name="Rückfragen", kind=BidStageKind.OPEN)
    reason = services.decision_reason_create(actor=admin, label="zu teuer")
    assert stage.position > _stage("nicht angeboten").position and reason.is_active
    with pytest.raises(ApplicationError):
        services.bid_stage_create(actor=admin, name="rückfragen", kind=BidStageKind.OPEN)  # names are unique
    services.decision_reason_update(actor=admin, reason_id=reason.pk, is_active=False)
    with pytest.raises(ApplicationError):
        services.bid_card_decide(card_id=card.pk, actor=member, decision=BidDecision.NO_BID, reason_id=reason.pk)


def test_a_stage_with_cards_or_the_last_open_stage_cannot_be_deleted(alpha, card):
    admin = user(alpha.admin_email)
    with pytest.raises(ApplicationError):
        services.bid_stage_delete(actor=admin, stage_id=card.stage_id)
    services.bid_stage_delete(actor=admin, stage_id=_stage("abgegeben").pk)
    assert not BidStage.objects.filter(name="abgegeben").exists()


def test_one_click_review_and_dismiss_move_the_card(alpha, card):
    member = user(alpha.member_email)
    assert services.bid_card_quick(tender_id=card.tender_id, actor=member, action="pruefen").stage.name == "prüfen"
    dismissed = services.bid_card_quick(tender_id=card.tender_id, actor=member, action="nicht_relevant")
    assert dismissed.stage.kind == BidStageKind.DECLINED and dismissed.decision_reason.label == "nicht relevant"


def test_the_board_hides_closed_cards_and_mine_is_a_filter_of_the_same_cards(alpha, card):
    member, admin = user(alpha.member_email), user(alpha.admin_email)
    other = ingest(notice(title="Reinigung Rathaus", submission_deadline=timezone.now() + timezone.timedelta(days=3)))
    connection.set_tenant(alpha.tenant)
    second = services.bid_card_ensure(tender_id=other.created[0])
    services.bid_card_assign(card_id=card.pk, actor=admin, owner_id=member.pk)
    services.bid_card_watchers_set(card_id=second.pk, actor=admin, watcher_ids=[admin.pk])
    now = timezone.now()

    def shown(**kwargs):
        return {c.pk for column in bid_board(now=now, **kwargs) for c in column.cards}

    assert shown(user=member, mine=False, show_closed=False) == {card.pk, second.pk}
    assert shown(user=member, mine=True, show_closed=False) == {card.pk}
    assert shown(user=admin, mine=True, show_closed=False) == {second.pk}
    services.bid_card_quick(tender_id=second.tender_id, actor=admin, action="nicht_relevant")
    assert shown(user=admin, mine=False, show_closed=False) == {card.pk}
    assert shown(user=admin, mine=False, show_closed=True) == {card.pk, second.pk}


def test_a_comment_mentioning_a_colleague_queues_one_mail_and_not_for_the_author(alpha, card):
    member, admin = user(alpha.member_email), user(alpha.admin_email)
    comment = services.card_comment_add(card_id=card.pk, author=member, text="@admin bitte Referenzen prüfen. @member")
    assert list(comment.mentions.all()) == [admin]
    mails = list(Delivery.objects.filter(kind=DeliveryKind.MENTION))
    assert [(m.recipient, m.dedupe_key) for m in mails] == [(admin.email, f"mention:{comment.pk}:{admin.pk}")]
    assert "Referenzen prüfen" in mails[0].text_body and f"/angebote/karte/{card.pk}/" in mails[0].text_body


def test_mentioning_several_colleagues_reads_the_tender_once(alpha, card):
    admin, member = user(alpha.admin_email), user(alpha.member_email)
    third = get_user_model().objects.create_user(username="c.dritte@alpha.example", email="c.dritte@alpha.example")
    with CaptureQueriesContext(connection) as queries:
        services.card_comment_add(card_id=card.pk, author=admin, text="@member und @c.dritte: Termin?")
    mails = Delivery.objects.filter(kind=DeliveryKind.MENTION)
    assert sorted(mails.values_list("recipient", flat=True)) == sorted([member.email, third.email])
    assert all("Dachsanierung Grundschule" in mail.subject for mail in mails)
    tender_reads = [q for q in queries.captured_queries if 'FROM "tenders_tender"' in q["sql"]]
    assert len(tender_reads) == 1


def test_comments_are_bounded_and_need_text(alpha, card):
    member = user(alpha.member_email)
    for text in ("  ", "x" * (services.COMMENT_MAX_LENGTH + 1), "null\x00byte"):
        with pytest.raises(ApplicationError):
            services.card_comment_add(card_id=card.pk, author=member, text=text)
