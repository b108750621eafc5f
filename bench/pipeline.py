"""Ingest throughput: the real pipeline vs a naive per-row ORM path vs raw COPY of the same rows.

Each path starts from empty tender tables; timings include everything a path
does for its rows (the real pipeline also resolves merge rules and compiles).
"""

from __future__ import annotations

import time

from django.db import connection, transaction
from django.utils import timezone

from bench.notices import synthetic_notices
from tenders.bulk import copy_rows
from tenders.merging import compile_tender, content_hash, record_to_json
from tenders.models import MergeRule, Tender, TenderSource, TenderVersion
from tenders.services import notices_ingest
from tenders.services.rows import JSON_STATE_FIELDS, STATE_FIELDS, state_row, state_values

BATCH = 2000


def _truncate() -> None:
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE tenders_tenderversion, tenders_tendersource, tenders_tender RESTART IDENTITY CASCADE")


def _pipeline(records) -> float:
    _truncate()
    start = time.perf_counter()
    for i in range(0, len(records), BATCH):
        notices_ingest(records=records[i : i + BATCH], use_fingerprint=True)
    return time.perf_counter() - start


def _naive(records) -> float:
    """What a first version does: look each notice up, then create or update it row by row."""
    _truncate()
    now = timezone.now()
    start = time.perf_counter()
    for record in records:
        with transaction.atomic():
            source = TenderSource.objects.filter(source=record.source, source_notice_id=record.source_notice_id).first()
            state = state_row(state=compile_tender([record], now=now))
            if source is None:
                same_procedure = TenderSource.objects.filter(procedure_id=record.procedure_id)
                tender_id = same_procedure.values_list("tender_id", flat=True).first() if record.procedure_id else None
                if tender_id is None:
                    tender_id = Tender.objects.create(**state, first_seen_at=now, changed_at=now).pk
                source = TenderSource.objects.create(
                    tender_id=tender_id,
                    source=record.source,
                    source_notice_id=record.source_notice_id,
                    ocid=record.ocid,
                    procedure_id=record.procedure_id,
                    url=record.url,
                    merge_rule=MergeRule.NEW,
                    first_seen_at=now,
                    last_seen_at=now,
                )
            else:
                Tender.objects.filter(pk=source.tender_id).update(**state)
            TenderVersion.objects.update_or_create(
                source=record.source,
                source_notice_id=record.source_notice_id,
                version=record.version,
                defaults={
                    "tender_id": source.tender_id,
                    "tender_source": source,
                    "kind": record.kind.value,
                    "published_at": record.published_at,
                    "record": record_to_json(record),
                    "content_hash": content_hash(record),
                    "seen_at": now,
                },
            )
    return time.perf_counter() - start


def _copy(records) -> float:
    """Lower bound: COPY of the finished tender rows alone (no merging, no sources, no versions)."""
    _truncate()
    now = timezone.now()
    rows = [[*state_values(state=compile_tender([record], now=now)), now, now] for record in records]  # unclocked
    start = time.perf_counter()
    copy_rows(
        table="tenders_tender",
        columns=[*STATE_FIELDS, "first_seen_at", "changed_at"],
        rows=rows,
        json_columns=JSON_STATE_FIELDS,
    )
    return time.perf_counter() - start


def run(*, n: int | None) -> None:
    n = n or 20000
    records = synthetic_notices(n)
    naive_n = min(n, 3000)  # the naive path is slow; its rate is measured on a slice
    # Warm up on other notices (seed differs, so no cache holds the measured ones): the first batch in a
    # fresh process and database pays for imports, catalog lookups and relation files, not for ingesting.
    _pipeline(synthetic_notices(500, seed=7))
    _naive(synthetic_notices(50, seed=7))
    pipeline_s = _pipeline(records)
    assert Tender.objects.count() == n, "pipeline lost or duplicated rows"
    naive_s = _naive(records[:naive_n])
    copy_s = _copy(records)
    _truncate()
    pipeline_rate, naive_rate, copy_rate = n / pipeline_s, naive_n / naive_s, n / copy_s
    print(f"pipeline: {n} notices in {pipeline_s:.2f}s = {pipeline_rate:,.0f}/s")
    print(f"naive:    {naive_n} notices in {naive_s:.2f}s = {naive_rate:,.0f}/s")
    print(f"copy:     {n} rows in {copy_s:.2f}s = {copy_rate:,.0f}/s")
    print(
        f"RESULT pipeline pipeline_per_s={pipeline_rate:.0f} naive_per_s={naive_rate:.0f} copy_per_s={copy_rate:.0f} "
        f"ratio_naive={pipeline_rate / naive_rate:.1f} ratio_copy={pipeline_rate / copy_rate:.2f}"
    )
