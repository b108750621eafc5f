"""A real award notice (TED 191534-2024, eForms CAN) through the real ingest and the tenant's delta processing:
the card of a tender the tenant won moves to "gewonnen", a submitted card of a tender someone else won to
"verloren" with winner and value, a watched competitor's win is recorded once; one tenant's records never
touch another tenant's board."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from kernel.records import NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from notifications.alerts.services import delta_process
from notifications.bids import services as board
from notifications.bids.outcome_selectors import win_rates
from notifications.bids.outcomes import company_identity_add, watched_competitor_add
from notifications.models import BidCard, BidStage, CardEvent, CompetitorWin, Delivery, DeliveryKind
from sources.parsers.eforms import parse_eforms
from tests.notifications.alerts.helpers import ingest, user

pytestmark = pytest.mark.django_db

AWARDS = Path(__file__).resolve().parents[2] / "data" / "ted" / "awards"
CLEANING = "ted_2024-OJS065-00191534_can-standard_5-lots_losers-listed.xml"  # Belgo lots 1, 3-5; M&G lot 2


def award_notice():
    return parse_eforms((AWARDS / CLEANING).read_bytes(), source="ted")


def _card_in(tender_id: int, stage_name: str) -> BidCard:
    card = board.bid_card_ensure(tender_id=tender_id)
    BidCard.objects.filter(pk=card.pk).update(stage=BidStage.objects.get(name=stage_name))
    return BidCard.objects.select_related("stage").get(pk=card.pk)


def _stage(card: BidCard) -> str:
    return BidCard.objects.select_related("stage").get(pk=card.pk).stage.name


def _award_event(card: BidCard) -> CardEvent:
    return CardEvent.objects.get(card=card, data__via="award")


@pytest.mark.parametrize(("kind", "value"), [("name", "M & G Cleaning"), ("vat_id", "BE 0879.639.451")])
def test_the_tenants_own_name_variant_or_vat_id_moves_its_card_to_gewonnen(alpha, kind, value):
    delta = ingest(award_notice())
    connection.set_tenant(alpha.tenant)
    company_identity_add(actor=user(alpha.admin_email), kind=kind, value=value)
    card = _card_in(delta.created[0], "Angebot in Arbeit")  # a win is a fact, wherever the card was

    outcome = delta_process(created=delta.created, changed={}, now=timezone.now())

    assert _stage(card) == "gewonnen"
    event = _award_event(card)
    assert event.data["from"] == "Angebot in Arbeit" and event.data["to"] == "gewonnen"
    assert event.data["note"] == "gewonnen: Zuschlag laut Bekanntmachung (Los 2, 13.768,11 €)"
    mails = Delivery.objects.filter(kind=DeliveryKind.AWARD)
    assert set(mails.values_list("pk", flat=True)) <= set(outcome.delivery_ids) and mails.count() == 2  # the team
    assert all("Gewonnen:" in subject for subject in mails.values_list("subject", flat=True))

    # The same delta again (a retry): the card is closed, nobody is told twice.
    delta_process(created=delta.created, changed={}, now=timezone.now())
    assert CardEvent.objects.filter(card=card, data__via="award").count() == 1
    assert Delivery.objects.filter(kind=DeliveryKind.AWARD).count() == 2


def test_someone_elses_win_moves_a_submitted_card_to_verloren_with_winner_and_value(alpha):
    delta = ingest(award_notice())
    connection.set_tenant(alpha.tenant)
    admin = user(alpha.admin_email)
    company_identity_add(actor=admin, kind="name", value="Putzteufel Gebäudereinigung GmbH")
    card = _card_in(delta.created[0], "abgegeben")
    board.bid_card_assign(card_id=card.pk, actor=admin, owner_id=admin.pk)

    delta_process(created=delta.created, changed={}, now=timezone.now())

    assert _stage(card) == "verloren"
    event = _award_event(card)
    assert event.data["note"].startswith("verloren: Zuschlag laut Bekanntmachung an Belgo Facility Services (Los 1, ")
    assert {"lot": "LOT-0002", "name": "M&G CLEANING", "value": "13768.11", "currency": "EUR"} in event.data["winners"]
    mail = Delivery.objects.get(kind=DeliveryKind.AWARD)  # the owner only: the card has one
    assert mail.recipient == alpha.admin_email
    assert "Belgo Facility Services (Los 1, 8.819,09 €)" in mail.text_body and "M&G CLEANING" in mail.text_body
    assert mail.text_body.endswith(f"/angebote/karte/{card.pk}/")


def test_an_open_card_not_yet_submitted_stays_when_someone_else_wins(alpha):
    delta = ingest(award_notice())
    connection.set_tenant(alpha.tenant)
    card = _card_in(delta.created[0], "prüfen")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    assert _stage(card) == "prüfen"
    assert not Delivery.objects.filter(kind=DeliveryKind.AWARD).exists()


def test_a_changed_tender_gaining_its_award_results_is_decided_in_the_same_transaction(alpha):
    record = award_notice()
    call = replace(record, kind=NoticeKind.CONTRACT_NOTICE, awards=(), suppliers=(), status=TenderStatus.ACTIVE)
    first = ingest(call)  # the same procedure's call for tenders, then its award notice
    connection.set_tenant(alpha.tenant)
    company_identity_add(actor=user(alpha.admin_email), kind="former_name", value="M&G Cleaning GmbH")
    card = _card_in(first.created[0], "abgegeben")
    delta_process(created=first.created, changed={}, now=timezone.now())
    assert _stage(card) == "abgegeben"  # nothing awarded yet

    connection.set_schema_to_public()
    second = ingest(record)
    assert list(second.changed) == [card.tender_id]
    connection.set_tenant(alpha.tenant)
    delta_process(created=second.created, changed=second.changed, now=timezone.now())
    assert _stage(card) == "gewonnen"


def test_one_tenants_identities_never_move_another_tenants_cards(alpha, beta):
    delta = ingest(award_notice())
    connection.set_tenant(alpha.tenant)
    company_identity_add(actor=user(alpha.admin_email), kind="name", value="M&G Cleaning")
    alpha_card = _card_in(delta.created[0], "abgegeben")
    connection.set_tenant(beta.tenant)
    beta_card = _card_in(delta.created[0], "abgegeben")

    connection.set_tenant(alpha.tenant)
    delta_process(created=delta.created, changed={}, now=timezone.now())
    connection.set_tenant(beta.tenant)
    delta_process(created=delta.created, changed={}, now=timezone.now())

    assert _stage(beta_card) == "verloren"  # beta is not M&G: someone else won
    connection.set_tenant(alpha.tenant)
    assert _stage(alpha_card) == "gewonnen"


def test_a_watched_competitors_win_is_recorded_once_per_lot_and_told_in_one_mail(alpha):
    delta = ingest(award_notice())
    connection.set_tenant(alpha.tenant)
    member = user(alpha.member_email)
    watched_competitor_add(actor=member, name="BELGO Facility Services")
    watched_competitor_add(actor=member, name="", identifier="0879639451")  # M&G by company number

    with CaptureQueriesContext(connection) as queries:
        delta_process(created=delta.created, changed={}, now=timezone.now())
    assert sum("notifications_competitorwin" in q["sql"] for q in queries.captured_queries) == 1

    wins = sorted(CompetitorWin.objects.values_list("competitor__label", "lot_id"))
    assert wins == [
        ("0879639451", "LOT-0002"),
        ("BELGO Facility Services", "LOT-0001"),
        ("BELGO Facility Services", "LOT-0003"),
        ("BELGO Facility Services", "LOT-0004"),
        ("BELGO Facility Services", "LOT-0005"),
    ]
    mails = Delivery.objects.filter(kind=DeliveryKind.COMPETITOR).order_by("subject")
    assert mails.count() == 2 and {m.recipient for m in mails} == {alpha.member_email}
    belgo = mails.get(subject__icontains="Belgo")
    assert "Los 1, 8.819,09 €" in belgo.text_body and "Los 5, 9.317,85 €" in belgo.text_body
    assert "Vergabestelle: " in belgo.text_body
    assert belgo.text_body.endswith(f"/ausschreibung/{delta.created[0]}/")

    delta_process(created=delta.created, changed={}, now=timezone.now())
    assert CompetitorWin.objects.count() == 5 and Delivery.objects.filter(kind=DeliveryKind.COMPETITOR).count() == 2


def test_win_rates_per_stage_cpv_and_buyer_in_one_statement(alpha):
    delta = ingest(award_notice())
    connection.set_tenant(alpha.tenant)
    company_identity_add(actor=user(alpha.admin_email), kind="name", value="M&G Cleaning")
    card = _card_in(delta.created[0], "neu")
    board.bid_card_move(card_id=card.pk, actor=user(alpha.admin_email), stage_id=BidStage.objects.get(name="prüfen").pk)
    delta_process(created=delta.created, changed={}, now=timezone.now())

    with CaptureQueriesContext(connection) as queries:
        rates = win_rates()
    assert len([q for q in queries.captured_queries if "WITH decided" in q["sql"]]) == 1
    assert [(r.key, r.won, r.lost) for r in rates["stage"]] == [("neu", 1, 0), ("prüfen", 1, 0)]
    assert rates["cpv"][0].won == 1 and rates["cpv"][0].rate == 1.0
    assert rates["buyer"][0].key and rates["buyer"][0].won == 1
