"""The one public shape of a tender (partner API, webhooks, export): ``tender_representation``.

A page of tenders is shaped by ``tender_representations``, which reads the page's sources, versions and
last sightings in one statement; a single tender by ``tender_representation`` from its prefetched history
(``tenders.selectors.tender_with_history``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import connection

from kernel.records import NoticeKind
from kernel.vocabulary.deadlines import DeadlineKind, deadline_label
from kernel.vocabulary.legal_basis import legal_basis_label
from kernel.vocabulary.nuts import nuts_labelled
from kernel.vocabulary.procedures import procedure_type_label
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender, TenderSource, TenderVersion

TED_NOTICE_URL = "https://ted.europa.eu/de/notice/-/detail/{}"


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(BERLIN).isoformat() if value else None


# The tender columns ``tender_representation`` reads: a page of tenders loads these and no others (the search
# columns, cpv_labels and search_parts, are most of a row).
REPRESENTED_FIELDS = (
    "id", "ocid", "procedure_id", "title", "description", "buyer_name", "buyer_id", "procedure_type", "status",
    "cpv_codes", "cpv_divisions", "nuts_codes", "bundesland", "postal_code", "town", "estimated_value", "currency",
    "published_at", "submission_deadline", "questions_deadline", "lots", "documents_url", "buyer_street",
    "buyer_postal_code", "buyer_town", "buyer_country", "buyer_email", "buyer_phone", "legal_basis",
    "above_eu_threshold", "contract_nature", "country", "main_cpv", "deadlines", "ted_publication_number",
    "contract_start", "contract_end", "contract_duration", "framework_agreement", "awards", "field_sources",
    "conflicts", "first_seen_at",
)  # fmt: skip


def tender_representation(tender: Tender) -> dict:
    """The one public shape of a tender (export, partner API): ISO datetimes with offset, value as string.

    Sources and versions come from ``tender.sources`` and ``tender.versions``: prefetch them
    (``tender_with_history``). A page of tenders is shaped by ``tender_representations``.
    """
    sources = [
        {
            "portal": source.source,
            "notice_id": source.source_notice_id,
            "url": source.url or None,
            "merge_rule": source.merge_rule,
            "latest_version": source.latest_version,
            "first_seen_at": _iso(source.first_seen_at),
        }
        for source in tender.sources.all()
    ]
    versions = [
        {
            "source": version.source,
            "notice_id": version.source_notice_id,
            "version": version.version,
            "kind": version.kind,
            "published_at": _iso(version.published_at),
            "changes": version.changes,
        }
        for version in tender.versions.all()
    ]
    last_seen = max((source.last_seen_at for source in tender.sources.all()), default=None)
    return _represented(tender, sources=sources, versions=versions, last_seen=_iso(last_seen))


def tender_representations(*, tenders: Sequence[Tender | tuple]) -> list[dict]:
    """``tender_representation`` of each tender of a page, their sources and versions read in one statement.

    ``tenders``: Tenders, or rows of ``values_list(*REPRESENTED_FIELDS, named=True)``, which cost a page of
    50 about a third of the Python of building Tenders. Django's prefetch (a queryset per tender and
    relation, two statements compiled per page) cost such a page about 8 ms of Python; this, well under one.
    """
    histories = _histories(tender_ids=[tender.id for tender in tenders])
    return [_represented(tender, *histories.get(tender.id, ([], [], None))) for tender in tenders]


def _represented(tender: Tender, sources: list[dict], versions: list[dict], last_seen: str | None) -> dict:
    """The shape of ``tender``; ``last_seen``: when a source last delivered any of its notices (its sources' latest
    ``last_seen_at``, ISO), kept on the sources alone so that seeing an unchanged notice never rewrites the tender."""
    refs = _notice_refs(tender.field_sources)
    return {
        "id": tender.id,
        "ocid": tender.ocid,
        "procedure_id": tender.procedure_id,
        "title": tender.title,
        "description": tender.description,
        "buyer_name": tender.buyer_name,
        "buyer_id": tender.buyer_id,
        "procedure_type": tender.procedure_type,
        "procedure_type_label": procedure_type_label(tender.procedure_type),
        "status": tender.status,
        "cpv_codes": list(tender.cpv_codes),
        "cpv_divisions": list(tender.cpv_divisions),
        "nuts": list(tender.nuts_codes),
        # Names in German like the other labels, so a webhook payload does not depend on who asked.
        "nuts_regions": nuts_labelled(tender.nuts_codes),
        "bundesland": tender.bundesland,
        "postal_code": tender.postal_code,
        "town": tender.town,
        "estimated_value": str(tender.estimated_value) if tender.estimated_value is not None else None,
        "currency": tender.currency or None,
        "published_at": _iso(tender.published_at),
        # The Angebotsfrist: a Teilnahmefrist (restricted procedures) is in "deadlines" with its kind, not here.
        "deadline": _tender_deadline(tender),
        "questions_deadline": _iso(tender.questions_deadline),
        "lots": tender.lots,
        "documents_url": tender.documents_url or None,
        "buyer": {
            "name": tender.buyer_name,
            "id": tender.buyer_id,
            "street": tender.buyer_street,
            "postal_code": tender.buyer_postal_code,
            "town": tender.buyer_town,
            "country": tender.buyer_country,
            "email": tender.buyer_email,
            "phone": tender.buyer_phone,
        },
        "legal_basis": tender.legal_basis or None,
        "legal_basis_label": legal_basis_label(tender.legal_basis) or None,
        "above_eu_threshold": tender.above_eu_threshold,
        "contract_nature": tender.contract_nature or None,
        "country": tender.country or None,
        "main_cpv": tender.main_cpv or None,
        "deadlines": [
            {
                "kind": d["kind"],
                "label": deadline_label(d["kind"]),
                "datetime": _iso_text(d["at"]),
                "lot": d["lot_id"] or None,
            }
            for d in tender.deadlines
        ],
        "ted_publication_number": tender.ted_publication_number or None,
        "ted_url": TED_NOTICE_URL.format(tender.ted_publication_number) if tender.ted_publication_number else None,
        "contract_start": tender.contract_start.isoformat() if tender.contract_start else None,
        "contract_end": tender.contract_end.isoformat() if tender.contract_end else None,
        "contract_duration": tender.contract_duration or None,
        "framework_agreement": tender.framework_agreement,
        "awards": [
            {
                "lot": award["lot_id"] or None,
                "status": award["status"],
                "supplier_name": award["supplier_name"] or None,
                "supplier_id": award["supplier_id"] or None,
                "supplier_town": award["supplier_town"] or None,
                "supplier_country": award["supplier_country"] or None,
                "value": award["value"],
                "currency": award["currency"] or None,
                "tenders_received": award["tenders_received"],
                "date": award["date"],
            }
            for award in tender.awards
        ],
        # Which notice version each value came from, and where a weaker source says otherwise.
        "fields_source": _fields_source(tender.field_sources, refs),
        "conflicts": _conflicts(tender.conflicts, refs),
        "first_seen_at": _iso(tender.first_seen_at),
        "last_seen_at": last_seen,
        "sources": sources,
        "versions": versions,
    }


def _notice_refs(field_sources: dict) -> list[dict]:
    return [
        {
            "source": ref.get("source", ""),
            "notice_id": ref.get("notice_id", ""),
            "version": ref.get("version", ""),
            "kind": ref.get("kind", ""),
            "origin": ref.get("origin", ""),
            "published_at": _iso_text(ref["published_at"]) if ref.get("published_at") else None,
        }
        for ref in (field_sources or {}).get("refs", [])
    ]


def _fields_source(field_sources: dict, refs: list[dict]) -> dict[str, dict]:
    return {name: refs[index] for name, index in (field_sources or {}).get("fields", {}).items() if index < len(refs)}


def _conflicts(conflicts: list, refs: list[dict]) -> list[dict]:
    return [
        {
            "field": conflict["field"],
            "value": conflict["value"],
            "source": refs[conflict["ref"]],
            "chosen_value": conflict["chosen"],
            "chosen_source": refs[conflict["chosen_ref"]],
        }
        for conflict in conflicts or []
        if max(conflict["ref"], conflict["chosen_ref"]) < len(refs)
    ]


def _iso_text(value: str) -> str:
    return datetime.fromisoformat(value).astimezone(BERLIN).isoformat()


def _tender_deadline(tender: Tender) -> str | None:
    """The Angebotsfrist; tenders compiled without deadline kinds (none stated) keep the submission deadline."""
    if not tender.deadlines:
        return _iso(tender.submission_deadline)
    found = [d["at"] for d in tender.deadlines if d["kind"] == DeadlineKind.TENDER]
    return _iso(min(map(datetime.fromisoformat, found))) if found else None


# Both histories of a page in one statement, each a JSON array in the order of ``tender_history_prefetches``
# (unknown kinds last, as ``_KIND_ORDER`` sorts them). Written out rather than built by the ORM: compiling
# it cost more Python than shaping the page's rows.
_HISTORIES_SQL = f"""
    SELECT t.id,
        (SELECT json_agg(json_build_object(
                'portal', s.source, 'notice_id', s.source_notice_id, 'url', NULLIF(s.url, ''),
                'merge_rule', s.merge_rule, 'latest_version', s.latest_version, 'first_seen_at', s.first_seen_at
            ) ORDER BY s.first_seen_at, s.id)
         FROM {TenderSource._meta.db_table} s WHERE s.tender_id = t.id),
        (SELECT json_agg(json_build_object(
                'source', v.source, 'notice_id', v.source_notice_id, 'version', v.version, 'kind', v.kind,
                'published_at', v.published_at, 'changes', v.changes
            ) ORDER BY v.published_at, array_position(%(kinds)s::text[], v.kind), v.id)
         FROM {TenderVersion._meta.db_table} v WHERE v.tender_id = t.id),
        (SELECT max(s.last_seen_at) FROM {TenderSource._meta.db_table} s WHERE s.tender_id = t.id)
    FROM unnest(%(ids)s::bigint[]) AS t(id)
"""  # noqa: S608 - the table names are the models' own; values are parameters


def _histories(*, tender_ids: list[int]) -> dict[int, tuple[list[dict], list[dict], str | None]]:
    """Sources, versions and the last sighting by tender id, shaped as ``tender_representation`` shows them."""
    if not tender_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_HISTORIES_SQL, {"ids": tender_ids, "kinds": [kind.value for kind in NoticeKind]})
        rows = cursor.fetchall()
    histories = {}
    for tender_id, sources, versions, last_seen in rows:
        # PostgreSQL writes times in JSON in the connection's zone (UTC); the shape shows them in Berlin's.
        for source in sources or ():
            source["first_seen_at"] = _iso_text(source["first_seen_at"])
        for version in versions or ():
            version["published_at"] = _iso_text(version["published_at"]) if version["published_at"] else None
        histories[tender_id] = (sources or [], versions or [], _iso(last_seen))
    return histories
