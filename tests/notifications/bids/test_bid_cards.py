"""Matches land on the team board in matching's own transaction, as one statement for any batch size."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.alerts.services import delta_process
from notifications.models import BidCard, BidStage, CardEvent
from tests.notifications.alerts.helpers import ingest, notice, saved_search, user

pytestmark = pytest.mark.django_db


def _card_statements(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "notifications_bidcard" in q["sql"]]


@pytest.mark.parametrize("batch", [1, 12])
def test_new_matches_become_cards_in_neu_with_one_statement_whatever_the_batch(alpha, batch):
    delta = ingest(*(notice(title=f"Dachsanierung Los {i}") for i in range(batch)))
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    saved_search(owner, name="Dach", q="Dachsanierung")
    saved_search(owner, name="Dach 2", q="Dachsanierung Los")  # two matches of one tender: still one card

    with CaptureQueriesContext(connection) as queries:
        outcome = delta_process(created=delta.created, changed={}, now=timezone.now())

    assert len(outcome.match_ids) == 2 * batch
    assert len(_card_statements(queries)) == 1
    cards = BidCard.objects.filter(tender_id__in=delta.created)
    assert cards.count() == batch
    assert set(cards.values_list("stage__name", flat=True)) == {"neu"}
    assert CardEvent.objects.filter(card__in=cards, kind="created", data__via="match").count() == batch


def test_re_running_a_delta_lands_nothing_twice_and_keeps_the_teams_work(alpha):
    delta = ingest(notice(title="Dachsanierung"))
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dachsanierung")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    card = BidCard.objects.get(tender_id=delta.created[0])
    BidCard.objects.filter(pk=card.pk).update(stage=BidStage.objects.get(name="prüfen"))

    with CaptureQueriesContext(connection) as queries:
        delta_process(created=delta.created, changed={}, now=timezone.now())
    assert _card_statements(queries) == []  # no new match, nothing to land
    assert BidCard.objects.get(pk=card.pk).stage.name == "prüfen"


def test_a_schema_without_stages_gets_the_defaults_before_cards_land(alpha):
    delta = ingest(notice(title="Dachsanierung"))
    connection.set_tenant(alpha.tenant)
    BidCard.objects.all().delete()
    BidStage.objects.all().delete()
    saved_search(user(alpha.member_email), q="Dachsanierung")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    assert list(BidStage.objects.values_list("name", flat=True)) == [
        "neu",
        "prüfen",
        "Angebot in Arbeit",
        "abgegeben",
        "gewonnen",
        "verloren",
        "nicht angeboten",
    ]
    assert BidCard.objects.get().stage.name == "neu"


def test_matching_of_one_tenant_puts_nothing_on_another_tenants_board(alpha, beta):
    delta = ingest(notice(title="Dachsanierung"))
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dachsanierung")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    connection.set_tenant(beta.tenant)
    assert not BidCard.objects.filter(tender_id=delta.created[0]).exists()
