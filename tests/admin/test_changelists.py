"""Console list pages stay fast on big tables: constant queries per page, no unbounded COUNT, no DISTINCT scans."""

from __future__ import annotations

from datetime import timedelta
from itertools import count

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Domain, Tenant
from sources.models import FetchRun, Source
from tenders.models import Tender
from tenders.pagination import EstimatedCountPaginator
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

_serial = count(1)


def _tenders(n: int) -> None:
    notices_ingest(records=[NoticeRecordFactory() for _ in range(n)], use_fingerprint=False)


def _runs(n: int) -> None:
    source = Source.objects.get(key="doe")
    now = timezone.now()
    FetchRun.objects.bulk_create(
        FetchRun(source=source, started_at=now - timedelta(minutes=next(_serial)), status="failed", error="x")
        for _ in range(n)
    )


def _sources(n: int) -> None:
    for _ in range(n):
        i = next(_serial)
        source = Source.objects.create(key=f"quelle-{i}", name=f"Quelle {i}", adapter="doe")
        FetchRun.objects.create(source=source, started_at=timezone.now(), status="succeeded", fetched=3)


def _domains(n: int) -> None:
    tenant = Tenant.objects.get(schema_name="alpha")
    Domain.objects.bulk_create(
        Domain(domain=f"d{next(_serial)}.alpha.localhost", tenant=tenant, is_primary=False) for _ in range(n)
    )


BIG_TABLE_PAGES = [
    ("/admin/tenders/tender/", _tenders),
    ("/admin/tenders/tendersource/", _tenders),
    ("/admin/tenders/tenderversion/", _tenders),
    ("/admin/sources/fetchrun/", _runs),
]
SMALL_TABLE_PAGES = [
    ("/admin/sources/source/", _sources),
    ("/admin/accounts/tenant/", _domains),
    ("/admin/accounts/domain/", _domains),
]


@pytest.mark.parametrize(("url", "grow"), BIG_TABLE_PAGES + SMALL_TABLE_PAGES)
def test_queries_do_not_grow_with_rows(operator_client, url, grow):
    grow(5)
    assert operator_client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as few:
        assert operator_client.get(url).status_code == 200
    grow(45)
    with CaptureQueriesContext(connection) as many:
        response = operator_client.get(url)
        assert response.status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries), [q["sql"] for q in many.captured_queries]


@pytest.mark.parametrize(("url", "grow"), BIG_TABLE_PAGES)
def test_big_tables_are_never_counted_whole(operator_client, url, grow):
    grow(5)
    with CaptureQueriesContext(connection) as queries:
        assert operator_client.get(url).status_code == 200
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()]
    assert counts  # the page does count, but only a bounded number of rows
    assert all("LIMIT" in sql.upper() for sql in counts), counts


@pytest.mark.parametrize(
    "url", ["/admin/tenders/tender/", "/admin/tenders/tendersource/", "/admin/tenders/tenderversion/"]
)
def test_big_table_filters_never_scan_for_distinct_values(operator_client, url):
    _tenders(3)
    with CaptureQueriesContext(connection) as queries:
        assert operator_client.get(url).status_code == 200
    assert not any("DISTINCT" in q["sql"].upper() for q in queries.captured_queries)


def test_tender_search_uses_the_full_text_index(operator_client):
    notices_ingest(
        records=[NoticeRecordFactory(title="Neubau Feuerwache Nord"), NoticeRecordFactory(title="Reinigung Rathaus")],
        use_fingerprint=False,
    )
    with CaptureQueriesContext(connection) as queries:
        response = operator_client.get("/admin/tenders/tender/", {"q": "Feuerwachen"})
    body = response.content.decode()
    assert "Neubau Feuerwache Nord" in body and "Reinigung Rathaus" not in body
    assert any("@@" in q["sql"] and "tenders_tender" in q["sql"] for q in queries.captured_queries)
    tender = Tender.objects.get(title="Reinigung Rathaus")
    by_id = operator_client.get("/admin/tenders/tender/", {"q": f"#{tender.pk}"}).content.decode()
    assert "Reinigung Rathaus" in by_id and "Neubau Feuerwache Nord" not in by_id


def test_tender_search_spells_umlauts_as_the_portal_does(operator_client):
    notices_ingest(records=[NoticeRecordFactory(title="Müllabfuhr Stadtgebiet")], use_fingerprint=False)
    body = operator_client.get("/admin/tenders/tender/", {"q": "Muellabfuhr"}).content.decode()
    assert "Müllabfuhr Stadtgebiet" in body


def test_tender_list_shows_portals_and_filters_by_bundesland(operator_client):
    notices_ingest(
        records=[
            NoticeRecordFactory(title="In Bayern", bundesland="Bayern"),
            NoticeRecordFactory(title="In Sachsen", bundesland="Sachsen", source="ted"),
        ],
        use_fingerprint=False,
    )
    body = operator_client.get("/admin/tenders/tender/", {"bundesland": "Sachsen"}).content.decode()
    assert "In Sachsen" in body and "In Bayern" not in body
    assert ">ted<" in body


def test_paginator_counts_exactly_when_small_and_estimates_when_big(db, monkeypatch):
    monkeypatch.setattr(EstimatedCountPaginator, "exact_up_to", 3)
    _tenders(2)
    with CaptureQueriesContext(connection) as small:
        assert EstimatedCountPaginator(Tender.objects.all(), 50).count == 2
    _tenders(8)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tenders_tender")
    with CaptureQueriesContext(connection) as big:
        whole = EstimatedCountPaginator(Tender.objects.order_by("id"), 50).count
        filtered = EstimatedCountPaginator(Tender.objects.filter(bundesland="Bayern"), 50).count
    assert whole == 10  # pg_class.reltuples after ANALYZE
    assert filtered >= 4  # at least what the bounded count saw
    for query in [*small.captured_queries, *big.captured_queries]:
        sql = query["sql"].upper()
        if "COUNT(" in sql:
            assert "LIMIT 4" in sql, query["sql"]
