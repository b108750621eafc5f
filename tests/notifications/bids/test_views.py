"""The board, a card and the settings through the portal (real middleware, sessions, tenant hosts)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone
from django_tenants.utils import schema_context

from kernel.vocabulary.time_zone import BERLIN
from notifications.bids import services
from notifications.models import BidCard, BidStage, CardComment, DecisionReason, Delivery
from tests.notifications.alerts.helpers import ingest, notice, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def card(alpha):
    delta = ingest(
        notice(
            title="Dachsanierung <b>Grundschule</b>",
            buyer_name="Stadt Musterhausen",
            submission_deadline=timezone.now() + timezone.timedelta(days=9),
        )
    )
    with schema_context(alpha.schema_name):
        return services.bid_card_ensure(tender_id=delta.created[0])


def test_two_people_work_one_card_and_see_the_same_board(alpha, card, alpha_client, alpha_admin_client):
    with schema_context(alpha.schema_name):
        admin, member = user(alpha.admin_email), user(alpha.member_email)
        reason = DecisionReason.objects.get(label="außerhalb Region")
    url = f"/angebote/karte/{card.pk}/"
    assert alpha_admin_client.post(url + "zustaendig/", {"owner": member.pk}).status_code == 302
    assert alpha_client.post(url + "kommentar/", {"text": "@admin Region passt nicht"}).status_code == 302
    answer = alpha_client.post(url + "entscheidung/", {"decision": "no_bid", "reason": reason.pk})
    assert answer.status_code == 302

    page = alpha_admin_client.get(url).content.decode()
    assert "Region passt nicht" in page and "außerhalb Region" in page and "nicht angeboten" in page
    assert "&lt;b&gt;Grundschule&lt;/b&gt;" in page  # foreign text is escaped
    with schema_context(alpha.schema_name):
        assert Delivery.objects.filter(user=admin, kind="mention").count() == 1
        assert BidCard.objects.get(pk=card.pk).owner == member
    for client in (alpha_client, alpha_admin_client):
        closed = client.get("/angebote/?alle=1").content.decode()
        assert f'data-card="{card.pk}"' in closed
        assert f'data-card="{card.pk}"' not in client.get("/angebote/").content.decode()  # declined: hidden
    assert f'data-card="{card.pk}"' in alpha_client.get("/angebote/?meine=1&alle=1").content.decode()
    assert f'data-card="{card.pk}"' not in alpha_admin_client.get("/angebote/?meine=1&alle=1").content.decode()


def test_a_card_of_another_tenant_is_404(alpha, beta, card, beta_client):
    with schema_context(beta.schema_name):
        assert not BidCard.objects.filter(pk=card.pk).exists()
    assert beta_client.get(f"/angebote/karte/{card.pk}/").status_code == 404
    assert beta_client.post(f"/angebote/karte/{card.pk}/kommentar/", {"text": "x"}).status_code == 404
    with schema_context(alpha.schema_name):
        assert not CardComment.objects.exists()


def test_the_board_needs_a_sign_in(alpha):
    from django.test import Client

    answer = Client(HTTP_HOST=alpha.host).get("/angebote/")
    assert answer.status_code == 302 and "/konto/" in answer["Location"]


def test_only_admins_see_and_change_stages_and_reasons(alpha, card, alpha_client, alpha_admin_client):
    assert alpha_client.get("/angebote/einstellungen/").status_code == 404
    refused = alpha_client.post("/angebote/einstellungen/aendern/", {"op": "stage-create", "name": "X", "kind": "open"})
    assert refused.status_code == 403
    assert alpha_admin_client.get("/angebote/einstellungen/").status_code == 200
    made = alpha_admin_client.post(
        "/angebote/einstellungen/aendern/", {"op": "stage-create", "name": "Rückfragen", "kind": "open"}
    )
    assert made.status_code == 302
    with schema_context(alpha.schema_name):
        assert BidStage.objects.filter(name="Rückfragen").exists() and not BidStage.objects.filter(name="X").exists()


def test_an_admin_switches_an_open_stages_reminders_on_the_settings_page(alpha, card, alpha_client, alpha_admin_client):
    with schema_context(alpha.schema_name):
        stage = BidStage.objects.filter(kind="open").order_by("position").first()
        closed = BidStage.objects.exclude(kind="open").first()
        open_stages = BidStage.objects.filter(kind="open").count()
        assert stage.reminders
    page = alpha_admin_client.get("/angebote/einstellungen/").content.decode()
    assert page.count('data-testid="stage-reminders"') == open_stages
    form = {"op": "stage-update", "stage": stage.pk, "name": stage.name, "position": stage.position}
    off = alpha_admin_client.post("/angebote/einstellungen/aendern/", {**form, "reminders_shown": "1"})
    assert off.status_code == 302
    with schema_context(alpha.schema_name):
        stage.refresh_from_db()
        assert not stage.reminders
    alpha_admin_client.post("/angebote/einstellungen/aendern/", {**form, "reminders_shown": "1", "reminders": "1"})
    # a closed stage's form has no switch: saving its name leaves its setting alone
    alpha_admin_client.post(
        "/angebote/einstellungen/aendern/",
        {"op": "stage-update", "stage": closed.pk, "name": closed.name, "position": closed.position},
    )
    with schema_context(alpha.schema_name):
        stage.refresh_from_db()
        assert stage.reminders and BidStage.objects.get(pk=closed.pk).reminders == closed.reminders
    refused = alpha_client.post("/angebote/einstellungen/aendern/", {**form, "reminders_shown": "1"})
    assert refused.status_code == 403


def test_one_click_on_a_dashboard_row_moves_the_card(alpha, card, alpha_client):
    answer = alpha_client.post(
        f"/angebote/ausschreibung/{card.tender_id}/schnell/", {"action": "pruefen"}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 200 and "prüfen" in answer.content.decode()
    with schema_context(alpha.schema_name):
        assert BidCard.objects.get(pk=card.pk).stage.name == "prüfen"


def test_dashboard_rows_carry_deadline_buyer_value_status_and_the_buttons(alpha, alpha_client):
    from notifications.alerts.services import delta_process
    from tests.notifications.alerts.helpers import saved_search

    delta = ingest(
        notice(
            title="Dachsanierung Rathaus",
            buyer_name="Gemeinde Beispiel",
            town="Beispielstadt",
            estimated_value=Decimal("250000"),
            currency="EUR",
            status="active",
            # Five Berlin calendar days ahead at noon, whatever the hour now ("5 Tage" counts dates, not hours).
            submission_deadline=datetime.combine(
                timezone.now().astimezone(BERLIN).date() + timedelta(days=5), time(12), tzinfo=BERLIN
            ),
        )
    )
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dachsanierung")
    delta_process(created=delta.created, changed={}, now=timezone.now())
    connection.set_schema_to_public()
    page = alpha_client.get("/").content.decode()
    row = page.split('data-testid="match-row"', 1)[1].split("</li>", 1)[0]
    assert "Gemeinde Beispiel" in row and "Beispielstadt" in row and "5 Tage" in row
    assert "250.000" in row and "laufend" in row
    assert 'data-testid="quick-review"' in row and 'data-testid="quick-dismiss"' in row and "Board: neu" in row
