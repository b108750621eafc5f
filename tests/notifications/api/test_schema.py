"""The OpenAPI schema generates and validates without warnings; docs are served; the declared tender shape is real."""

from __future__ import annotations

from dataclasses import fields

import yaml
from django.core.management import call_command
from django.test import Client

from notifications.api.serializers import FILTER_KEYS, TenderFiltersSerializer, TenderSerializer
from tenders.filters import TenderFilters
from tenders.representation import tender_representation
from tenders.selectors import tender_with_history
from tests.factories.records import NoticeRecordFactory
from tests.notifications.api.conftest import ingest


def test_schema_validates_without_warnings(db, tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    schema = yaml.safe_load(target.read_text(encoding="utf-8"))
    paths = schema["paths"]
    for path in ("/api/v1/tenders/", "/api/v1/tenders/{id}/", "/api/v1/saved-searches/", "/api/v1/matches/"):
        assert path in paths
    tender_list = paths["/api/v1/tenders/"]["get"]
    assert {p["name"] for p in tender_list["parameters"]} >= {*FILTER_KEYS, "order", "page", "page_size"}
    assert {"401", "429", "400"} <= set(tender_list["responses"])
    assert tender_list["security"] == [{"BearerAuth": []}, {"ApiKeyHeader": []}]


def test_docs_and_schema_are_served_on_the_tenant_host(alpha):
    client = Client(HTTP_HOST=alpha.host)
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    schema = client.get("/api/v1/schema/")
    assert schema.status_code == 200 and b"/api/v1/tenders/" in schema.content


def test_declared_tender_fields_are_exactly_the_public_shape(db):
    (tender_id,) = ingest(NoticeRecordFactory())
    shape = tender_representation(tender_with_history().get(pk=tender_id))
    assert set(TenderSerializer().fields) == set(shape)
    declared = TenderSerializer().fields
    assert set(declared["sources"].child.fields) == set(shape["sources"][0])
    assert set(declared["versions"].child.fields) == set(shape["versions"][0])


def test_documented_filters_are_the_filter_fields():
    assert set(TenderFiltersSerializer().fields) == {f.name for f in fields(TenderFilters) if f.name != "extra"}


def test_matches_are_documented_as_cursor_pages(db, tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(target))
    matches = yaml.safe_load(target.read_text(encoding="utf-8"))["paths"]["/api/v1/matches/"]["get"]
    names = {p["name"] for p in matches["parameters"]}
    assert {"cursor", "page_size", "since", "saved_search"} <= names and "page" not in names
    page = matches["responses"]["200"]["content"]["application/json"]["schema"]
    assert page["$ref"].endswith("/PaginatedTenderMatchList")
