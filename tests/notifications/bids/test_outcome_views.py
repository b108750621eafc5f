"""The company page (identities: admins; competitors: every member), the market page's "beobachten" button,
and the win rate on the board."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from notifications.models import CompanyIdentity, WatchedCompetitor

pytestmark = pytest.mark.django_db


def _in(tenant):
    connection.set_tenant(tenant.tenant)


def test_admins_record_identities_members_may_not(alpha, alpha_client, alpha_admin_client):
    response = alpha_client.post(
        "/angebote/firma/aendern/", {"op": "identity-add", "kind": "name", "value": "Alpha Bau"}
    )
    assert response.status_code == 302
    _in(alpha)
    assert not CompanyIdentity.objects.exists()

    alpha_admin_client.post(
        "/angebote/firma/aendern/", {"op": "identity-add", "kind": "vat_id", "value": "DE 123.456.789"}
    )
    alpha_admin_client.post("/angebote/firma/aendern/", {"op": "identity-add", "kind": "vat_id", "value": "DE 12345"})
    _in(alpha)
    assert list(CompanyIdentity.objects.values_list("kind", "value", "key")) == [
        ("vat_id", "DE 123.456.789", "DE123456789")
    ]
    page = alpha_admin_client.get("/angebote/firma/").content.decode()
    assert "DE 123.456.789" in page and "Keine gültige USt-IdNr." in page


def test_the_market_supplier_page_watches_a_competitor_for_this_tenant_only(alpha, beta, alpha_client, beta_client):
    page = alpha_client.get("/markt/bieter/", {"name": "M&G CLEANING"}).content.decode()
    assert 'data-testid="market-watch"' in page and "csrfmiddlewaretoken" in page

    back = "/markt/bieter/?name=M%26G+CLEANING"
    response = alpha_client.post(
        "/angebote/firma/aendern/", {"op": "competitor-add", "name": "M&G CLEANING", "next": back}
    )
    assert response.status_code == 302 and response["Location"] == back
    alpha_client.post("/angebote/firma/aendern/", {"op": "competitor-add", "name": "M & G Cleaning"})  # same firm
    _in(alpha)
    assert list(WatchedCompetitor.objects.values_list("label", "name_key")) == [("M&G CLEANING", "m g cleaning")]
    assert (
        'data-testid="market-watched"' in alpha_client.get("/markt/bieter/", {"name": "M&G CLEANING"}).content.decode()
    )

    assert 'data-testid="market-watch"' in beta_client.get("/markt/bieter/", {"name": "M&G CLEANING"}).content.decode()
    _in(beta)
    assert not WatchedCompetitor.objects.exists()


def test_watching_needs_the_csrf_token(alpha):
    from tests.fixtures.tenants import _client_for

    client = _client_for(alpha, alpha.member_email)
    client.handler.enforce_csrf_checks = True
    response = client.post("/angebote/firma/aendern/", {"op": "competitor-add", "name": "Belgo"})
    assert response.status_code == 403
    _in(alpha)
    assert not WatchedCompetitor.objects.exists()


def test_the_board_links_the_company_page(alpha_client):
    page = alpha_client.get("/angebote/").content.decode()
    assert 'data-testid="board-company"' in page
    assert "Gewinnquote" in alpha_client.get("/angebote/firma/").content.decode()


def test_only_the_watcher_or_an_admin_removes_a_competitor(alpha, alpha_client, alpha_admin_client):
    alpha_admin_client.post("/angebote/firma/aendern/", {"op": "competitor-add", "identifier": "BE 0832.584.553"})
    _in(alpha)
    competitor = WatchedCompetitor.objects.get()
    assert competitor.id_key == "BE0832584553"
    alpha_client.post("/angebote/firma/aendern/", {"op": "competitor-remove", "competitor": competitor.pk})
    _in(alpha)
    assert WatchedCompetitor.objects.exists()
    alpha_admin_client.post("/angebote/firma/aendern/", {"op": "competitor-remove", "competitor": competitor.pk})
    _in(alpha)
    assert not WatchedCompetitor.objects.exists()
    assert isinstance(alpha_client, Client)
