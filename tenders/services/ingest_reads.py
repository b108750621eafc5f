"""What the ingest reads under its lock: known versions, identities for the merge rules, stored history.

Each function is one or two set-based queries for a whole batch (array
parameters, no per-record lookups). They live beside the ingest, not among
the selectors, because their results are only valid inside its transaction.
"""
# ruff: noqa: S608  (column lists are our own constants; values always go through parameters)

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import orjson
from django.db import connection

import tenders.lookups  # noqa: F401  (registers __any)
from kernel.identifiers import canonical_publication_number
from kernel.records import NoticeRecord
from tenders.merging import TRACKED_CHANGES, record_from_json, traits_of
from tenders.models import Tender, TenderSource
from tenders.resolution import FingerprintCandidate, Lookups, RecordKeys
from tenders.services.rows import SOURCE_COLUMNS


def known_versions(*, records: Sequence[NoticeRecord]) -> dict[tuple[str, str, str], tuple[str, int]]:
    """(source, notice id, version) → (content hash, tender id) for the versions already stored."""
    if not records:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT v.source, v.source_notice_id, v.version, v.content_hash, v.tender_id
            FROM tenders_tenderversion v
            JOIN unnest(%s::text[], %s::text[], %s::text[]) AS k(source, notice, version)
              ON v.source = k.source AND v.source_notice_id = k.notice AND v.version = k.version
            """,
            [[r.source for r in records], [r.source_notice_id for r in records], [r.version for r in records]],
        )
        return {(s, n, v): (h, t) for s, n, v, h, t in cursor.fetchall()}


def merge_lookups(
    *, records: Sequence[NoticeRecord], keys: Sequence[RecordKeys], use_fingerprint: bool
) -> tuple[Lookups, dict[tuple[str, str], dict]]:
    """The identities the merge rules need, and the full rows of the batch's already known sources."""
    lookups = Lookups()
    ocids = sorted({k.ocid for k in keys if k.ocid})
    procedure_ids = sorted({k.procedure_id for k in keys if k.procedure_id})
    own_keys = {(r.source, r.source_notice_id) for r in records}
    notice_ids = sorted({ref for k in keys for ref in k.references} | {notice for _, notice in own_keys})
    portal_refs = sorted({ref for k in keys for ref in k.portal_references})

    known_sources: dict[tuple[str, str], dict] = {}
    with connection.cursor() as cursor:  # raw rows: the ORM's per-row model conversion cost more than the query
        cursor.execute(
            f"SELECT {', '.join(SOURCE_COLUMNS)} FROM tenders_tendersource WHERE source_notice_id = ANY(%s)",
            [notice_ids],
        )
        for values in cursor.fetchall():
            row = dict(zip(SOURCE_COLUMNS, values, strict=True))
            key = (row["source"], row["source_notice_id"])
            lookups.by_source_notice[key] = row["tender_id"]
            lookups.by_notice_id.setdefault(row["source_notice_id"], row["tender_id"])
            if key in own_keys:
                known_sources[key] = row
    if ocids:
        for ocid, tender_id in TenderSource.objects.filter(ocid__any=ocids).values_list("ocid", "tender_id"):
            lookups.by_ocid.setdefault(ocid, tender_id)
    if procedure_ids:
        rows = TenderSource.objects.filter(procedure_id__any=procedure_ids).values_list("procedure_id", "tender_id")
        for procedure_id, tender_id in rows:
            lookups.by_procedure_id.setdefault(procedure_id, tender_id)
    publication_numbers = sorted({ref for k in keys for ref in k.references if canonical_publication_number(ref)})
    with _index_lookups():
        if publication_numbers:
            rows = Tender.objects.filter(publication_numbers__overlap=publication_numbers).values_list(
                "id", "publication_numbers"
            )
            for tender_id, numbers in rows:
                for number in numbers:
                    lookups.by_publication_number.setdefault(number, tender_id)
        if portal_refs:
            rows = Tender.objects.filter(portal_references__overlap=portal_refs).values_list("id", "portal_references")
            for tender_id, refs in rows:
                for ref in refs:
                    lookups.by_portal_reference.setdefault(ref, tender_id)
    if use_fingerprint:
        wanted = sorted({(k.fingerprint, r.source) for r, k in zip(records, keys, strict=True) if k.fingerprint})
        if wanted:
            _add_fingerprint_candidates(lookups, wanted)
    return lookups, known_sources


@contextmanager
def _index_lookups() -> Iterator[None]:
    """The array-overlap lookups of a batch through their GIN indexes, whatever the table statistics say.

    Why: with statistics from before an import (a fresh table, or one that grew within the import
    faster than autovacuum analyses it) the planner scans the whole table, testing every row
    against thousands of keys: 35-70 ms per batch at a few thousand tenders, growing with the
    table, under the ingest lock. Through the index it is a few milliseconds at any size.
    ``SET LOCAL`` keeps the setting inside the ingest transaction; it is reset right after.
    """
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        try:
            yield
        finally:
            cursor.execute("RESET enable_seqscan")


def _add_fingerprint_candidates(lookups: Lookups, wanted: list[tuple[str, str]]) -> None:
    """Per (fingerprint, source) of the batch, the stored tenders a record of that source may join.

    A tender that already has a notice of the record's source is never a fingerprint candidate
    (a portal does not publish one tender twice), so it is not listed under that source: a buyer
    who reuses one title year after year does not make every record of a later batch compare
    itself with the whole history. Two plain index lookups (a correlated or joined form made the
    planner estimate costs high enough to compile the statement, which cost more than it
    saved). Oldest tender first, so the choice among several candidates is stable.
    """
    sources_by_fingerprint: dict[str, list[str]] = defaultdict(list)
    for fp, source in wanted:
        sources_by_fingerprint[fp].append(source)
    rows = list(
        Tender.objects.filter(fingerprint__any=sorted(sources_by_fingerprint))
        .order_by("id")
        .values_list("id", "fingerprint", "cpv_codes", "submission_deadline", "estimated_value")
    )
    if not rows:
        return
    held_by: dict[int, set[str]] = defaultdict(set)
    for tender_id, source in TenderSource.objects.filter(tender_id__any=[r[0] for r in rows]).values_list(
        "tender_id", "source"
    ):
        held_by[tender_id].add(source)
    for tender_id, fp, cpv_codes, deadline, value in rows:
        held = held_by[tender_id]
        open_to = [source for source in sources_by_fingerprint[fp] if source not in held]
        if not open_to:
            continue
        candidate = FingerprintCandidate(
            tender_id=tender_id,
            traits=traits_of(cpv_codes=cpv_codes, deadline=deadline, value=value),
            sources=frozenset(held),
        )
        for source in open_to:
            lookups.by_fingerprint.setdefault((fp, source), []).append(candidate)


def records_of_tenders(*, tender_ids: Iterable[int]) -> dict[int, list[NoticeRecord]]:
    """Every stored version of the given tenders, as records, to recompile them."""
    grouped: dict[int, list[NoticeRecord]] = defaultdict(list)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tender_id, record::text FROM tenders_tenderversion WHERE tender_id = ANY(%s)", [list(tender_ids)]
        )
        for tender_id, document in cursor.fetchall():
            grouped[tender_id].append(record_from_json(orjson.loads(document)))
    return grouped


def tender_states(*, tender_ids: Iterable[int]) -> dict[int, dict]:
    """What a recompile is compared with: each tender's content hash and its tracked fields."""
    rows = Tender.objects.filter(id__any=list(tender_ids)).values("id", "content_hash", *TRACKED_CHANGES)
    return {row["id"]: row for row in rows}
