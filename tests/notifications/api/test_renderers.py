"""The partner API's JSON is byte for byte what DRF's own renderer writes, only faster."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from kernel.vocabulary.time_zone import BERLIN
from notifications.api.renderers import FastJSONRenderer
from tests.factories.records import OCDS_AWARD, NoticeRecordFactory, eforms_record, ocds_records
from tests.notifications.api.conftest import ingest

ODD_VALUES = {
    "text": 'Straße – «Los 1»\u2028neue Zeile\u2029Absatz \x01 "zitiert" \\ é 日本',
    "numbers": [0, -1, 2**53, 1.5, 0.1, 1e16],
    "nested": {"leer": [], "nichts": None, "ja": True, "nein": False},
    "datetime": datetime(2026, 9, 1, 9, 30, 15, 123456, tzinfo=BERLIN),
    "utc": datetime(2026, 9, 1, 7, 30, tzinfo=UTC),
    "naive": datetime(2026, 9, 1, 7, 30),
    "date": date(2026, 9, 1),
    "time": time(9, 30, 15, 250000),
    "decimal": Decimal("125000.50"),
    "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "lazy": gettext_lazy("Nicht gefunden."),
}


@pytest.mark.parametrize(
    "data",
    [ODD_VALUES, [ODD_VALUES, ODD_VALUES], {1: "keys that are not text"}, {"big": 2**70}, {}, [], "text"],
    ids=["odd-values", "list", "int-keys", "big-int", "empty-object", "empty-list", "string"],
)
def test_the_bytes_are_drf_own(data):
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)


def test_pretty_printing_on_request_is_drf_own():
    media_type = "application/json; indent=4"
    assert FastJSONRenderer().render(ODD_VALUES, media_type) == JSONRenderer().render(ODD_VALUES, media_type)
    assert FastJSONRenderer().render(None) == b""


def test_a_tender_page_is_written_as_drf_writes_it(alpha_api, db):
    ingest(eforms_record(), *ocds_records(OCDS_AWARD), NoticeRecordFactory(title="Dach\u2028Sanierung"))
    response = alpha_api.get("/api/v1/tenders/", {"status": ["active", "expired", "awarded", "cancelled"]})
    assert response.status_code == 200
    assert len(response.json()["results"]) == 3
    assert response.content == JSONRenderer().render(response.data)
    assert b"\\u2028" in response.content
