"""The board as CSV: the board's cards and filters, Excel conventions, no cell that runs as a formula."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.bids import services
from notifications.models import BidCard
from tests.notifications.alerts.helpers import ingest, notice, user

pytestmark = pytest.mark.django_db


def _rows(answer) -> list[list[str]]:
    text = answer.content.decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:]), delimiter=";"))


@pytest.fixture
def cards(alpha):
    deadline = timezone.now() + timedelta(days=9)
    delta = ingest(
        notice(
            title='=HYPERLINK("http://x";"klick")',
            buyer_name="+49 Stadtwerke",
            submission_deadline=deadline,
            estimated_value=Decimal("125000.50"),
            currency="EUR",
        ),
        notice(title="Dachsanierung Grundschule", buyer_name="Stadt Musterhausen", submission_deadline=deadline),
    )
    with schema_context(alpha.schema_name):
        admin, member = user(alpha.admin_email), user(alpha.member_email)
        first, second = (services.bid_card_ensure(tender_id=t).pk for t in delta.created)
        member.first_name, member.last_name = "@Mia", "Muster"
        member.save(update_fields=["first_name", "last_name"])
        services.bid_card_assign(card_id=first, actor=admin, owner_id=member.pk)
        reason = services.decision_reason_create(actor=admin, label="-kein Personal")
        services.bid_card_decide(card_id=second, actor=admin, decision="no_bid", reason_id=reason.pk)
        return first, second


def test_the_board_export_is_a_german_excel_csv_without_formulas(alpha, cards, alpha_client):
    first, second = cards
    answer = alpha_client.get("/angebote/export.csv?alle=1")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/csv") and "attachment" in answer["Content-Disposition"]
    head, *rows = _rows(answer)
    assert head == [
        "Phase",
        "Titel",
        "Auftraggeber",
        "Angebotsfrist",
        "Geschätzter Wert",
        "Währung",
        "Zuständig",
        "Entscheidung",
        "Grund",
        "Letzte Änderung",
        "Link",
    ]
    by_link = {row[-1].rsplit("/karte/", 1)[1].strip("/"): row for row in rows}
    row = by_link[str(first)]
    assert row[0] == "neu"
    assert row[1] == '\'=HYPERLINK("http://x";"klick")' and row[2] == "'+49 Stadtwerke"
    assert row[4] == "125000,50" and row[5] == "EUR"
    assert row[6] == "'@Mia Muster" and row[7] == ""
    declined = by_link[str(second)]
    assert declined[0] == "nicht angeboten" and declined[7] == "kein Angebot" and declined[8] == "'-kein Personal"
    assert declined[-1].startswith("http://") and declined[-1].endswith(f"/angebote/karte/{second}/")
    for cells in rows:
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in cells)


def test_the_export_shows_what_the_board_shows(alpha, cards, alpha_client, alpha_admin_client):
    first, second = cards
    page = alpha_client.get("/angebote/?meine=1").content.decode()
    assert 'href="/angebote/export.csv?meine=1"' in page
    links = lambda answer: [row[-1] for row in _rows(answer)[1:]]  # noqa: E731
    assert [link.endswith(f"/karte/{first}/") for link in links(alpha_client.get("/angebote/export.csv"))] == [True]
    assert len(links(alpha_client.get("/angebote/export.csv?alle=1"))) == 2
    assert links(alpha_admin_client.get("/angebote/export.csv?meine=1")) == []
    with schema_context(alpha.schema_name):
        assert BidCard.objects.count() == 2


def test_the_export_needs_a_sign_in_and_is_per_tenant(alpha, cards, beta_client):
    from django.test import Client

    assert Client(HTTP_HOST=alpha.host).get("/angebote/export.csv").status_code == 302
    assert _rows(beta_client.get("/angebote/export.csv?alle=1"))[1:] == []
