"""The one filter builder: ``TenderFilters`` as a condition over ``Tender`` (the ORM half of the filters).

Search in the portal, the partner API and the matching of saved searches use ``filters_q``;
matching ORs/UNIONs these same Q objects, so a saved search finds exactly what the portal
shows for the same filters. Parsing (pure) is ``tenders.filters``.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.db.models import BooleanField, Exists, F, Func, OuterRef, Q

from kernel.vocabulary.cpv import cpv_prefix
from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import TenderFilters
from tenders.fulltext import KeywordQuery, keyword_query_build
from tenders.models import TenderSource
from tenders.place_query import kreis_q, radius_q


def _cpv_q(codes: tuple[str, ...]) -> Q:
    # Tender.cpv_prefixes holds every prefix of every code, so any level is one GIN-indexed overlap.
    return Q(cpv_prefixes__overlap=sorted({cpv_prefix(code) for code in codes}))


class TitleMatch(Func):
    """``title_vector @@ query``: the title's words (A) and their compound parts (B) as ``search_vector``
    weighs them, computed from the row (no index: ``filters_q`` looks the keywords up in ``search_vector``
    first, so only the tenders found there are read)."""

    output_field = BooleanField()

    def __init__(self, query):
        super().__init__(F("title"), F("title_parts"), query)

    def as_sql(self, compiler, connection, **extra_context):
        (title, title_params), (parts, parts_params), (query, query_params) = (
            compiler.compile(expression) for expression in self.source_expressions
        )
        sql = (
            f"((setweight(to_tsvector('german'::regconfig, COALESCE({title}, '')), 'A')"
            f" || setweight(to_tsvector('german'::regconfig, COALESCE({parts}, '')), 'B')) @@ ({query}))"
        )
        return sql, [*title_params, *parts_params, *query_params]


def filters_q(filters: TenderFilters, *, now: datetime, keywords: KeywordQuery | None = None) -> Q:
    """A Q over Tender for everything except keywords' ranking (see ``tender_search``).

    ``keywords`` is ``keyword_query_build(q=filters.q)`` when the caller has it already (to rank, to
    count, to highlight): building it reads the thesaurus, one round trip per request, not per use.
    """
    condition = Q()
    if filters.q:
        keywords = keywords.check_for(filters.q) if keywords is not None else keyword_query_build(q=filters.q)
    if filters.q and filters.q_scope == "title":
        lookup, exact = keywords.title_search
        in_title = Q(search_vector=lookup) & Q(TitleMatch(exact))
        # "nur im Titel/CPV": the two strong signals, either of them; with no CPV filter, the title alone.
        condition &= (in_title | _cpv_q(filters.cpv)) if filters.cpv else in_title
    else:
        if filters.q:
            condition &= Q(search_vector=keywords.search)
        if filters.cpv:
            condition &= _cpv_q(filters.cpv)
    if filters.bundesland:
        condition &= Q(bundesland__in=filters.bundesland)
    if filters.plz:
        condition &= Q(postal_code__startswith=filters.plz)
    if filters.kreis:
        condition &= kreis_q(filters.kreis)
    if filters.umkreis_plz and filters.umkreis_km is not None:
        condition &= radius_q(filters.umkreis_plz, filters.umkreis_km)
    if filters.value_min is not None:
        condition &= Q(estimated_value__gte=filters.value_min)
    if filters.value_max is not None:
        condition &= Q(estimated_value__lte=filters.value_max)
    if filters.deadline_days is not None:
        until = now + timedelta(days=filters.deadline_days)
        condition &= Q(submission_deadline__gte=now, submission_deadline__lte=until)
    if filters.deadline_until is not None:
        end = datetime.combine(filters.deadline_until, time.max, tzinfo=BERLIN)
        condition &= Q(submission_deadline__gte=now, submission_deadline__lte=end)
    if filters.published_since is not None:
        condition &= Q(published_at__gte=datetime.combine(filters.published_since, time.min, tzinfo=BERLIN))
    if filters.status:
        condition &= Q(status__in=filters.status)
    if filters.portal:
        condition &= Q(Exists(TenderSource.objects.filter(tender=OuterRef("pk"), source__in=filters.portal)))
    return condition
