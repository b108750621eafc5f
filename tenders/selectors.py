"""Reads of tenders. Their one public shape is ``tenders.representation``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Case, F, Func, Prefetch, Q, QuerySet, TextField, Value, When

from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from tenders.fulltext import keyword_query_build
from tenders.models import SynonymGroup, Tender, TenderSource, TenderVersion
from tenders.representation import tender_representation

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
