"""Reads of tenders. The export/API representation is built here, once."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Case, F, Func, Prefetch, Q, QuerySet, TextField, Value, When

from kernel.records import NoticeKind
from kernel.vocabulary.deadlines import DeadlineKind, deadline_label
from kernel.vocabulary.legal_basis import legal_basis_label
from kernel.vocabulary.nuts import nuts_labelled
from kernel.vocabulary.procedures import procedure_type_label
from kernel.vocabulary.time_zone import BERLIN
from tenders.fulltext import keyword_query_build
from tenders.models import SynonymGroup, Tender, TenderSource, TenderVersion

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


CONFLICT_FIELD_LABELS = {
    "title": "Titel",
    "buyer_name": "Auftraggeber",
    "submission_deadline": "Angebotsfrist",
    "estimated_value": "Geschätzter Wert",
    "postal_code": "PLZ",
    "town": "Ort",
    "bundesland": "Bundesland",
}


@dataclass(frozen=True)
class ConflictLine:
    label: str
    chosen: str
    chosen_source: str
    value: str
    source: str


def _conflict_text(name: str, value) -> str:
    if value is None:
        return "–"
    if name == "submission_deadline":
        try:
            return datetime.fromisoformat(str(value)).astimezone(BERLIN).strftime("%d.%m.%Y %H:%M")
        except ValueError:
            return str(value)
    return str(value)


def conflict_lines(*, field_sources: dict, conflicts: list) -> list[ConflictLine]:
    """A tender's open conflicts as text lines for the console (field, both values, both sources)."""
    refs = (field_sources or {}).get("refs", [])

    def named(index) -> str:
        if not isinstance(index, int) or index >= len(refs):
            return "?"
        ref = refs[index]
        return f"{ref.get('source', '')} {ref.get('origin', '')} v{ref.get('version', '')}"

    return [
        ConflictLine(
            label=CONFLICT_FIELD_LABELS.get(c.get("field"), str(c.get("field"))),
            chosen=_conflict_text(c.get("field"), c.get("chosen")),
            chosen_source=named(c.get("chosen_ref")),
            value=_conflict_text(c.get("field"), c.get("value")),
            source=named(c.get("ref")),
        )
        for c in conflicts or []
    ]


def tenders_with_conflicts(*, queryset: QuerySet | None = None) -> QuerySet:
    """Tenders with open conflicts, newest change first (served by the partial index tender_conflicts_idx)."""
    queryset = Tender.objects.all() if queryset is None else queryset
    return (
        queryset.exclude(conflicts=[])
        .only("id", "title", "buyer_name", "changed_at", "conflicts", "field_sources")
        .order_by(F("changed_at").desc())
    )


def _iso_text(value: str) -> str:
    return datetime.fromisoformat(value).astimezone(BERLIN).isoformat()


def _tender_deadline(tender: Tender) -> str | None:
    """The Angebotsfrist; tenders compiled without deadline kinds (none stated) keep the submission deadline."""
    if not tender.deadlines:
        return _iso(tender.submission_deadline)
    found = [d["at"] for d in tender.deadlines if d["kind"] == DeadlineKind.TENDER]
    return _iso(min(map(datetime.fromisoformat, found))) if found else None


# Within one publication time, a notice comes before what refers to it: prior information, the contract notice,
# its changes, the award, the cancellation (TED often stamps a notice and its correction with the same second).
_KIND_ORDER = Case(
    *(When(kind=kind.value, then=Value(rank)) for rank, kind in enumerate(NoticeKind)),
    default=Value(len(NoticeKind)),
)


def version_order() -> tuple:
    """The order of a tender's versions in its history (``order_by(*version_order())``)."""
    return ("published_at", _KIND_ORDER, "id")


def tender_history_prefetches(prefix: str = "") -> tuple[Prefetch, Prefetch]:
    """Sources and versions (without the parsed record) for ``tender_representation``: two queries per page.

    ``prefix`` reaches tenders through a relation, e.g. ``"tender__"`` from matches.
    """
    return (
        Prefetch(f"{prefix}sources", queryset=TenderSource.objects.order_by("first_seen_at", "id")),
        Prefetch(f"{prefix}versions", queryset=TenderVersion.objects.order_by(*version_order()).defer("record")),
    )


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


def tender_with_history() -> QuerySet[Tender]:
    return Tender.objects.prefetch_related(*tender_history_prefetches())


def tender_export_iter(*, since: datetime | None = None, chunk_size: int = 2000) -> Iterator[dict]:
    """Every tender seen since ``since`` (new or seen again), in id order, in chunks: constant memory, 3 queries
    per chunk. A sighting is its sources' (``TenderSource.last_seen_at``)."""
    queryset = tender_with_history().order_by("id")
    if since is not None:
        queryset = queryset.filter(id__in=TenderSource.objects.filter(last_seen_at__gte=since).values("tender_id"))
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
    if term.lstrip("#").isascii() and term.lstrip("#").isdigit() and len(term) < 19:
        return queryset.filter(pk=int(term.lstrip("#")))
    # Ids are indexed on the sources (every tender's OCID / procedure id is one of its sources').
    by_id = TenderSource.objects.filter(Q(ocid=term) | Q(procedure_id=term)).values("tender_id")
    return queryset.filter(id__in=by_id) | queryset.filter(search_vector=keyword_query_build(q=term).search)


def synonym_group_admin_search(*, queryset: QuerySet[SynonymGroup], term: str) -> QuerySet[SynonymGroup]:
    """The thesaurus groups whose words or narrower terms contain ``term`` (any case)."""
    term = term.strip()
    if not term:
        return queryset
    # The words are arrays, which icontains cannot search: match their joined text.
    all_words = Func(
        Func(F("words"), F("narrower"), function="array_cat"),
        Value(" "),
        function="array_to_string",
        output_field=TextField(),
    )
    return queryset.alias(all_words=all_words).filter(all_words__icontains=term)


def tender_source_keys() -> list[str]:
    """The source keys that have notices, in order: one probe of the (source, source_notice_id) index per key.

    A loose index scan (PostgreSQL has no skip scan): a DISTINCT over every notice row would read them all.
    """
    sql = f"""
        WITH RECURSIVE keys AS (
            SELECT min(source) AS key FROM {TenderSource._meta.db_table}
            UNION ALL
            SELECT (SELECT min(source) FROM {TenderSource._meta.db_table} WHERE source > keys.key)
            FROM keys WHERE keys.key IS NOT NULL
        )
        SELECT key FROM keys WHERE key IS NOT NULL
    """  # noqa: S608 - the table name is the model's own, no input reaches the statement
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return [row[0] for row in cursor.fetchall()]
