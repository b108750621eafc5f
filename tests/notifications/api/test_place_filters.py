"""The place filters in the partner API: tender search parameters, saved-search filters, errors, schema."""

from __future__ import annotations

import pytest

from tests.factories.records import NoticeRecordFactory
from tests.notifications.api.conftest import ingest


@pytest.fixture
def places(db) -> dict[str, int]:
    stuttgart, tuebingen, heilbronn, nuts_only = ingest(
        NoticeRecordFactory(title="Stuttgart", postal_code="70173", nuts_codes=("DE111",)),
        NoticeRecordFactory(title="Tübingen", postal_code="72070", nuts_codes=("DE142",)),  # 30.09 km
        NoticeRecordFactory(title="Heilbronn", postal_code="74072", nuts_codes=("DE117",)),  # 41.23 km
        NoticeRecordFactory(title="Nur NUTS Stuttgart", postal_code="", nuts_codes=("DE111",)),  # 0.44 km
    )
    return {"stuttgart": stuttgart, "tuebingen": tuebingen, "heilbronn": heilbronn, "nuts_only": nuts_only}


def _ids(response) -> set[int]:
    assert response.status_code == 200, response.content
    return {row["id"] for row in response.json()["results"]}


def test_radius_and_kreis_parameters_filter_the_tender_list(alpha_api, places):
    radius = alpha_api.get("/api/v1/tenders/", {"umkreis_plz": "70173", "umkreis_km": "40"})
    assert _ids(radius) == {places["stuttgart"], places["tuebingen"], places["nuts_only"]}
    assert _ids(alpha_api.get("/api/v1/tenders/", {"kreis": "DE111"})) == {places["stuttgart"], places["nuts_only"]}
    by_key = alpha_api.get("/api/v1/tenders/?kreis=08121&kreis=08416")  # Heilbronn (Stadt), Tübingen (Landkreis)
    assert _ids(by_key) == {places["heilbronn"], places["tuebingen"]}


def test_unknown_postcode_and_radius_out_of_range_answer_400_per_parameter(alpha_api):
    response = alpha_api.get("/api/v1/tenders/", {"umkreis_plz": "00000", "umkreis_km": "500", "kreis": "Atlantis"})
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert set(fields) == {"umkreis_plz", "umkreis_km", "kreis"}
    assert "00000" in fields["umkreis_plz"][0]


def test_a_saved_search_stores_place_filters_normalised(alpha_api):
    response = alpha_api.post(
        "/api/v1/saved-searches/",
        {"name": "Hof", "filters": {"kreis": ["DE212", "Landkreis München"], "umkreis_plz": "80331", "umkreis_km": 80}},
    )
    assert response.status_code == 201, response.content
    assert response.json()["filters"] == {"kreis": ["09162", "09184"], "umkreis_plz": "80331", "umkreis_km": 80}
    missing = alpha_api.post("/api/v1/saved-searches/", {"name": "X", "filters": {"umkreis_plz": "80331"}})
    assert missing.status_code == 400 and "filters.umkreis_km" in missing.json()["error"]["fields"]


def test_the_schema_documents_the_place_parameters(alpha_api):
    schema = alpha_api.get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    text = schema.content.decode()
    assert "umkreis_plz" in text and "umkreis_km" in text and "NUTS-3-Code" in text
