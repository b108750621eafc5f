"""A NetServer notice as a ``NoticeRecord``: from its result row, its detail page, or both. Pure."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.legal_basis import legal_basis_code, legal_basis_in_text
from kernel.vocabulary.procedures import procedure_type_code
from kernel.vocabulary.provenance import Origin
from kernel.vocabulary.statuses import TenderStatus
from sources.adapters.html import NoticeFacts

from . import selectors
from .detail import DetailFacts
from .options import detail_url, documents_url
from .parse import ResultRow

KIND_BY_CATEGORY = {
    "InvitationToTender": NoticeKind.CONTRACT_NOTICE,
    "ContractAward": NoticeKind.AWARD,
    "PriorInformation": NoticeKind.PRIOR_INFORMATION,
}


def _procedure_code(raw: str) -> str:
    """Canonical code of "Öffentliche Ausschreibung" and of combined cells such as "VOB, Beschränkte Ausschreibung"."""
    code = procedure_type_code(raw)
    if code == "other":
        for part in reversed(raw.split(",")):
            if (candidate := procedure_type_code(part)) not in ("", "other"):
                return candidate
    return code


def notice_record(
    *, source: str, base_url: str, row: ResultRow | None, detail: DetailFacts | None, url: str = ""
) -> NoticeRecord:
    """One notice from its result row, its detail page, or both (the row wins for list fields)."""
    if row is None and detail is None:
        raise ValueError("notice_record needs a result row or a detail page")
    oid = row.oid if row is not None else detail.oid  # type: ignore[union-attr]
    category = row.category if row is not None else (detail.category or _category_from_url(url))  # type: ignore[union-attr]
    kind = KIND_BY_CATEGORY.get(category, NoticeKind.CONTRACT_NOTICE)
    facts = detail.facts if detail is not None else NoticeFacts()
    procedure = (row.procedure if row else "") or facts.procedure
    legal_framework = (row.legal_framework if row else "") or (detail.legal_framework if detail else "")
    references = [f"netserver:{oid}"]
    if detail is not None and detail.tender_oid and detail.tender_oid != oid:
        references.append(f"netserver:{detail.tender_oid}")  # the id DÖE notices link (documents link)
    documents = (detail.documents_url if detail is not None else "") or (
        documents_url(base_url, oid=oid) if kind is NoticeKind.CONTRACT_NOTICE and detail is not None else ""
    )
    return NoticeRecord(
        source=source,
        origin=Origin.PORTAL_DETAIL if detail is not None else Origin.PORTAL_LIST,
        source_notice_id=oid,
        kind=kind,
        status=TenderStatus.AWARDED if kind is NoticeKind.AWARD else TenderStatus.ACTIVE,
        portal_references=tuple(references),
        title=facts.title or (row.title if row else ""),
        buyer_name=(row.buyer_name if row else "") or facts.buyer_name,
        procedure_type=_procedure_code(procedure),
        legal_basis=legal_basis_in_text(legal_framework) or legal_basis_code(legal_framework),
        published_at=(row.published_at if row else None) or facts.published_at,
        submission_deadline=(row.submission_deadline if row else None) or facts.submission_deadline,
        **facts.record_fields(),
        documents_url=documents,
        url=url or detail_url(base_url, oid=oid, category=category),
        payload={
            "format": "netserver-html",
            "category": category,
            "procedure": procedure,
            "legal_framework": legal_framework,
            "reference": facts.reference,
            "detail": detail is not None,
        },
    )


def _category_from_url(url: str) -> str:
    query = dict(parse_qsl(urlsplit(url).query)) if url else {}
    category = query.get(selectors.CATEGORY_PARAM, "")
    return category if category in selectors.CATEGORIES else "InvitationToTender"
