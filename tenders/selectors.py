"""Reads of tenders. The export/API representation is built here, once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from django.db.models import Prefetch, Q, QuerySet

from sources.normalise import BERLIN, procedure_type_label
from tenders.filters import search_query
from tenders.models import Tender, TenderSource, TenderVersion
from tenders.vocabulary.legal_basis import legal_basis_label


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(BERLIN).isoformat() if value else None


def tender_representation(tender: Tender) -> dict:
    """The one public shape of a tender (export, partner API): ISO datetimes with offset, value as string."""
    return {
        "id": tender.pk,
        "ocid": tender.ocid,
        "procedure_id": tender.procedure_id,
        "title": tender.title,
        "description": tender.description,
        "buyer_name": tender.buyer_name,
        "buyer_id": tender.buyer_id,
        "procedure_type": tender.procedure_type,
        "procedure_type_label": procedure_type_label(tender.procedure_type),
        "legal_basis": tender.legal_basis or None,
        "legal_basis_label": legal_basis_label(tender.legal_basis) if tender.legal_basis else None,
        "status": tender.status,
        "cpv_codes": list(tender.cpv_codes),
        "cpv_divisions": list(tender.cpv_divisions),
        "nuts": list(tender.nuts_codes),
        "bundesland": tender.bundesland,
        "postal_code": tender.postal_code,
        "town": tender.town,
        "estimated_value": str(tender.estimated_value) if tender.estimated_value is not None else None,
        "currency": tender.currency or None,
        "published_at": _iso(tender.published_at),
        "deadline": _iso(tender.submission_deadline),
        "questions_deadline": _iso(tender.questions_deadline),
        "lots": tender.lots,
        "documents_url": tender.documents_url or None,
        "first_seen_at": _iso(tender.first_seen_at),
        "last_seen_at": _iso(tender.last_seen_at),
        "sources": [
            {
                "portal": source.source,
                "notice_id": source.source_notice_id,
                "url": source.url or None,
                "merge_rule": source.merge_rule,
                "latest_version": source.latest_version,
                "first_seen_at": _iso(source.first_seen_at),
            }
            for source in tender.sources.all()
        ],
        "versions": [
            {
                "source": version.source,
                "notice_id": version.source_notice_id,
                "version": version.version,
                "kind": version.kind,
                "published_at": _iso(version.published_at),
                "changes": version.changes,
            }
            for version in tender.versions.all()
        ],
    }


def tender_history_prefetches(prefix: str = "") -> tuple[Prefetch, Prefetch]:
    """Sources and versions (without the parsed record) for ``tender_representation``: two queries per page.

    ``prefix`` reaches tenders through a relation, e.g. ``"tender__"`` from matches.
    """
    return (
        Prefetch(f"{prefix}sources", queryset=TenderSource.objects.order_by("first_seen_at", "id")),
        Prefetch(f"{prefix}versions", queryset=TenderVersion.objects.order_by("published_at", "id").defer("record")),
    )


def tender_with_history() -> QuerySet[Tender]:
    return Tender.objects.prefetch_related(*tender_history_prefetches())


def tender_export_iter(*, since: datetime | None = None, chunk_size: int = 2000) -> Iterator[dict]:
    """Every tender seen since ``since`` (new or seen again), in id order, in chunks: constant memory, 3 queries
    per chunk."""
    queryset = tender_with_history().order_by("id")
    if since is not None:
        queryset = queryset.filter(last_seen_at__gte=since)
    last_id = 0
    while True:
        chunk = list(queryset.filter(id__gt=last_id)[:chunk_size])
        if not chunk:
            return
        for tender in chunk:
            yield tender_representation(tender)
        last_id = chunk[-1].pk


def tender_admin_search(*, queryset: QuerySet[Tender], term: str) -> QuerySet[Tender]:
    """The operator's search box: ``#123`` is a primary key, an OCID or procedure id matches exactly,
    anything else searches the German full text as the portal does (same query, umlaut spellings)."""
    term = term.strip()
    if not term:
        return queryset
    if term.lstrip("#").isdigit() and len(term) < 19:
        return queryset.filter(pk=int(term.lstrip("#")))
    # Ids are indexed on the sources (every tender's OCID / procedure id is one of its sources').
    by_id = TenderSource.objects.filter(Q(ocid=term) | Q(procedure_id=term)).values("tender_id")
    return queryset.filter(id__in=by_id) | queryset.filter(search_vector=search_query(term))
