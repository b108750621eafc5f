"""Filters that fit a hand: checkbox groups for Bundesland and Quelle, chip pickers for CPV and Kreis,
every chosen value in the URL as a parameter of its own."""

from __future__ import annotations

import re

import pytest
from django_tenants.utils import schema_context

from notifications.models import SavedSearch
from notifications.portal.filter_chips import Chip, picker_chips


def test_cpv_chips_carry_the_code_and_its_label_unknown_ones_as_typed():
    assert picker_chips("cpv", ["90910000", "45, 4521", "abc", "90910000"]) == [
        Chip("90910000", "90910000 Reinigungsdienste", True),
        Chip("45", "45 Bauarbeiten", True),
        Chip("4521", "4521 Bauleistungen im Hochbau", True),
        Chip("abc", "abc", False),
    ]


def test_kreis_chips_are_shown_and_kept_by_key_however_named():
    assert picker_chips("kreise", ["DE212", "München, Landkreis", "09162", "Atlantis"]) == [
        Chip("09162", "München, Kreisfreie Stadt", True),
        Chip("09184", "München, Landkreis", True),
        Chip("Atlantis", "Atlantis", False),
    ]


def _fieldset(html: str, name: str) -> str:
    start = html.index(f'data-field="{name}"')
    return html[start : html.index("</fieldset>", start)]


@pytest.mark.django_db
def test_bundesland_and_quelle_are_checkbox_groups_with_a_legend(alpha_client):
    html = alpha_client.get("/suche/", {"bundesland": ["Bayern", "Berlin"]}).content.decode()
    laender = _fieldset(html, "bundesland")
    assert "<legend>Bundesland</legend>" in laender
    assert len(re.findall(r'type="checkbox" name="bundesland"', laender)) == 16
    assert len(re.findall(r'name="bundesland" value="[^"]+"[^>]*checked', laender)) == 2
    assert "<select" not in html.split('data-field="order"')[0]  # no Ctrl-click multi-select left
    assert "<legend>Quelle</legend>" in _fieldset(html, "portal")
    assert "Strg/⌘" not in html


@pytest.mark.django_db
def test_chosen_values_are_chips_a_nuts_code_or_name_shown_by_its_kreis(alpha_client):
    response = alpha_client.get("/suche/", {"cpv": ["90910000"], "kreis": ["DE212", "Landkreis München"]})
    html = response.content.decode()
    kreis = _fieldset(html, "kreis")
    assert '<input type="checkbox" name="kreis" value="09162" checked><span>München, Kreisfreie Stadt</span>' in kreis
    assert '<input type="checkbox" name="kreis" value="09184" checked><span>München, Landkreis</span>' in kreis
    assert 'hx-get="/kreise/"' in kreis and "<legend>Landkreis / kreisfreie Stadt</legend>" in kreis
    cpv = _fieldset(html, "cpv")
    assert '<input type="checkbox" name="cpv" value="90910000" checked><span>90910000 Reinigungsdienste</span>' in cpv
    # The links carry every chosen value as a parameter of its own, Kreise by key.
    assert "cpv=90910000&amp;kreis=09162&amp;kreis=09184" in html


@pytest.mark.django_db
def test_an_unknown_value_stays_a_chip_beside_its_error(alpha_client):
    response = alpha_client.get("/suche/", {"kreis": ["Atlantis"]})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="chip unknown"><input type="checkbox" name="kreis" value="Atlantis" checked>' in html
    assert "Unbekannter Landkreis" in html


@pytest.mark.django_db
def test_htmx_pushes_the_url_with_each_chosen_value(alpha_client, corpus):
    params = {"bundesland": ["Bayern", "Berlin"], "cpv": ["90910000", ""], "kreis": ["DE212"], "q": ""}
    response = alpha_client.get("/suche/", params, headers={"HX-Request": "true"})
    assert response["HX-Push-Url"] == "/suche/?cpv=90910000&bundesland=Bayern&bundesland=Berlin&kreis=09162"


@pytest.mark.django_db
def test_a_profile_keeps_the_chosen_values_and_shows_them_again_as_chips(alpha, alpha_client):
    response = alpha_client.post(
        "/suchprofile/neu/",
        {"name": "Reinigung München", "cpv": ["90910000", "45"], "kreis": ["09162"], "bundesland": ["Bayern"]},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    with schema_context(alpha.schema_name):
        profile = SavedSearch.objects.get()
    assert profile.filters == {"cpv": ["90910000", "45"], "bundesland": ["Bayern"], "kreis": ["09162"]}
    html = alpha_client.get(f"/suchprofile/{profile.pk}/bearbeiten/").content.decode()
    assert '<input type="checkbox" name="cpv" value="45" checked><span>45 Bauarbeiten</span>' in html
    assert '<input type="checkbox" name="kreis" value="09162" checked><span>München, Kreisfreie Stadt</span>' in html
    assert re.search(r'name="bundesland" value="Bayern"[^>]*checked', html)
