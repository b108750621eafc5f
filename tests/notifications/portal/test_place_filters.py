"""The place filters in the portal: search form round trip, errors shown, saved search and its summary."""

from __future__ import annotations

import pytest
from django_tenants.utils import schema_context

from notifications.models import SavedSearch
from tests.factories.records import NoticeRecordFactory
from tests.notifications.alerts.helpers import ingest


@pytest.fixture
def places(db):
    ingest(
        NoticeRecordFactory(title="Dachsanierung Stuttgart", postal_code="70173", nuts_codes=("DE111",)),
        NoticeRecordFactory(title="Dachsanierung Heilbronn", postal_code="74072", nuts_codes=("DE117",)),
        NoticeRecordFactory(title="Dachsanierung nur NUTS", postal_code="", nuts_codes=("DE111",)),
    )


def _titles(response) -> set[str]:
    return {tender.title for tender in response.context["page"].object_list}


def test_search_form_round_trip_keeps_the_place_filters(alpha_client, places):
    response = alpha_client.get("/suche/", {"kreis": "08111", "umkreis_plz": "70173", "umkreis_km": "40"})
    assert response.status_code == 200
    html = response.content.decode()
    assert '<input type="checkbox" name="kreis" value="08111" checked><span>Stuttgart, Stadtkreis</span>' in html
    assert 'name="umkreis_plz"' in html and 'value="70173"' in html and 'value="40"' in html
    assert "kreis=08111" in html and "umkreis_plz=70173" in html and "umkreis_km=40" in html  # links keep them
    assert _titles(response) == {"Dachsanierung Stuttgart", "Dachsanierung nur NUTS"}
    radius = alpha_client.get("/suche/", {"umkreis_plz": "70173", "umkreis_km": "50"})
    assert _titles(radius) == {"Dachsanierung Stuttgart", "Dachsanierung Heilbronn", "Dachsanierung nur NUTS"}


def test_search_form_shows_what_is_wrong_with_the_radius(alpha_client, places):
    html = alpha_client.get("/suche/", {"umkreis_plz": "00000", "umkreis_km": "40"}).content.decode()
    assert "Die PLZ 00000 ist nicht bekannt" in html
    html = alpha_client.get("/suche/", {"umkreis_plz": "70173"}).content.decode()
    assert "bitte die Entfernung in km angeben (1 bis 300)" in html


def test_a_saved_search_keeps_the_place_filters_and_summarises_them(alpha, alpha_client, places):
    response = alpha_client.post(
        "/suchprofile/neu/",
        {"name": "Rund um Stuttgart", "kreis": ["08111", "08121"], "umkreis_plz": "70173", "umkreis_km": "80"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    with schema_context(alpha.schema_name):
        profile = SavedSearch.objects.get()
    assert profile.filters == {"kreis": ["08111", "08121"], "umkreis_plz": "70173", "umkreis_km": 80}
    html = alpha_client.get(f"/suchprofile/{profile.pk}/").content.decode()
    assert "Stuttgart, Stadtkreis; Heilbronn, Stadtkreis" in html
    assert "80 km um PLZ 70173" in html
