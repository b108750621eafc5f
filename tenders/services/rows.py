"""Column lists and row builders shared by the tender writes (pure: no queries here)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime

from kernel.records import NoticeRecord
from tenders.merging import TenderState, record_json, version_key
from tenders.models import MergeRule
from tenders.resolution import Assignment

STATE_FIELDS = (
    "ocid",
    "procedure_id",
    "title",
    "description",
    "buyer_name",
    "buyer_id",
    "procedure_type",
    "status",
    "cpv_codes",
    "cpv_divisions",
    "cpv_prefixes",
    "cpv_labels",
    "title_parts",
    "search_parts",
    "nuts_codes",
    "bundesland",
    "postal_code",
    "town",
    "country",
    "estimated_value",
    "currency",
    "published_at",
    "submission_deadline",
    "questions_deadline",
    "lots",
    "documents_url",
    "portal_references",
    "suppliers",
    "fingerprint",
    "awards",
    "supplier_keys",
    "buyer_key",
    "buyer_street",
    "buyer_postal_code",
    "buyer_town",
    "buyer_country",
    "buyer_email",
    "buyer_phone",
    "legal_basis",
    "above_eu_threshold",
    "contract_nature",
    "main_cpv",
    "deadlines",
    "ted_publication_number",
    "publication_numbers",
    "contract_start",
    "contract_end",
    "contract_duration",
    "framework_agreement",
    "field_sources",
    "conflicts",
    "content_hash",
)
JSON_STATE_FIELDS = ("lots", "awards", "deadlines", "field_sources", "conflicts")


def state_values(*, state: TenderState) -> list:
    """The Tender columns of ``STATE_FIELDS``, in that order, clipped to the column sizes."""
    return [
        state.ocid,
        state.procedure_id,
        state.title,
        state.description,
        (state.buyer_name or "")[:500],
        (state.buyer_id or "")[:200],
        state.procedure_type[:40],
        state.status,
        list(state.cpv_codes),
        list(state.cpv_divisions),
        list(state.cpv_prefixes),
        state.cpv_labels,
        state.title_parts,
        state.search_parts,
        [code[:5] for code in state.nuts_codes],
        (state.bundesland or "")[:40],
        state.postal_code[:5],
        (state.town or "")[:200],
        state.country[:3],
        state.estimated_value,  # records are made storable at the ingest boundary (merging.record_storable)
        state.currency[:3],
        state.published_at,
        state.submission_deadline,
        state.questions_deadline,
        list(state.lots),
        (state.documents_url or "")[:2000],
        list(state.portal_references),
        [s[:500] for s in state.suppliers],
        state.fingerprint,
        list(state.awards),
        [key[:200] for key in state.supplier_keys],
        state.buyer_key[:200],
        state.buyer_street[:300],
        state.buyer_postal_code[:10],
        state.buyer_town[:200],
        state.buyer_country[:3],
        state.buyer_email[:254],
        state.buyer_phone[:80],
        state.legal_basis[:20],
        state.above_eu_threshold,
        state.contract_nature[:10],
        state.main_cpv[:8],
        list(state.deadlines),
        state.ted_publication_number[:20],
        [number[:20] for number in state.publication_numbers],
        state.contract_start,
        state.contract_end,
        state.contract_duration[:20],
        state.framework_agreement,
        state.field_sources,
        list(state.conflicts),
        state.content_hash(),
    ]


def state_row(*, state: TenderState) -> dict:
    """``state_values`` by column name, for ORM writes."""
    return dict(zip(STATE_FIELDS, state_values(state=state), strict=True))


SOURCE_COLUMNS = (
    "id",
    "tender_id",
    "source",
    "source_notice_id",
    "ocid",
    "procedure_id",
    "url",
    "latest_version",
    "merge_rule",
    "first_seen_at",
    "last_seen_at",
)


def source_rows(
    *,
    fresh: Sequence[NoticeRecord],
    assignments: Sequence[Assignment],
    tender_of: Sequence[int],
    known: dict[tuple[str, str], dict],
    new_ids: Iterator[int],
    now: datetime,
) -> dict[tuple[str, str], dict]:
    """One TenderSource row per (source, notice id): known rows keep id, tender and rule; new ones take ``new_ids``."""
    rows: dict[tuple[str, str], dict] = {}
    for record, assignment, tender_id in zip(fresh, assignments, tender_of, strict=True):
        key = (record.source, record.source_notice_id)
        base = rows.get(key) or known.get(key)
        if base is None:
            rows[key] = {
                "id": next(new_ids),
                "tender_id": tender_id,
                "source": record.source,
                "source_notice_id": record.source_notice_id,
                "ocid": record.ocid,
                "procedure_id": record.procedure_id,
                "url": record.url[:2000],
                "latest_version": record.version,
                "merge_rule": assignment.rule or MergeRule.NEW,
                "first_seen_at": now,
                "last_seen_at": now,
            }
            continue
        rows[key] = {
            **base,
            "ocid": record.ocid or base["ocid"],
            "procedure_id": record.procedure_id or base["procedure_id"],
            "url": (record.url or base["url"])[:2000],
            "latest_version": max(record.version, base["latest_version"], key=version_key),
            "last_seen_at": now,
        }
    return rows


VERSION_COLUMNS = (
    "tender_id",
    "tender_source_id",
    "source",
    "source_notice_id",
    "version",
    "kind",
    "published_at",
    "record",
    "content_hash",
    "changes",
    "seen_at",
)


def version_row(
    *, record: NoticeRecord, tender_id: int, source_id: int, content_hash: str, changes: dict, now: datetime
) -> list:
    return [
        tender_id,
        source_id,
        record.source,
        record.source_notice_id,
        record.version,
        record.kind.value,
        record.published_at,
        record_json(record),
        content_hash,
        json.dumps(changes, ensure_ascii=False) if changes else "{}",
        now,
    ]
