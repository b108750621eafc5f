"""The one filter builder: ``TenderFilters`` as a condition over ``Tender`` (the ORM half of the filters).

Search in the portal, the partner API and the matching of saved searches use ``filters_q``;
matching ORs/UNIONs these same Q objects, so a saved search finds exactly what the portal
shows for the same filters. Parsing (pure) is ``tenders.filters``.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.contrib.postgres.lookups import Overlap
from django.db.models import BooleanField, Exists, F, Func, OuterRef, Q
from django.db.models.functions import Coalesce
from django.db.models.lookups import GreaterThanOrEqual, In, LessThanOrEqual

from kernel.vocabulary.cpv import cpv_prefix
from kernel.vocabulary.time_zone import BERLIN
from tenders.filters import TenderFilters
from tenders.fulltext import KeywordQuery, keyword_query_build
from tenders.models import TenderSource
from tenders.place_query import kreis_q, radius_q


def _cpv_q(codes: tuple[str, ...], *, words_lead: bool = False) -> Q:
    # Tender.cpv_prefixes holds every prefix of every code, so any level is one GIN-indexed overlap.
    prefixes = sorted({cpv_prefix(code) for code in codes})
    if words_lead and any(len(prefix) <= BROAD_CPV_DIGITS for prefix in prefixes):
        return Q(Overlap(unindexed("cpv_prefixes"), prefixes))
    return Q(cpv_prefixes__overlap=prefixes)


# Open tenders' words (tender_active_search_gin) lead a keyword search of open tenders; a Land, a deadline
# range or a CPV division is then checked on the rows the words found, not intersected from its own index.
# Why, measured at 1,000,000 tenders (bench/README.md "Search page"): PostgreSQL never intersects two indexes
# whose predicates are the same clause (status = 'active'), so a Land or a deadline range, each with an
# index of open tenders, took the full-text index of *every* tender beside it: 83,583 entries for a frequent
# word, 63-97 ms, against 12,472 in the open tenders' index, 5 ms. A CPV division is no help either way
# ("45" holds a third of all tenders: a 333,522-entry bitmap, 125-165 ms). Checking them on the word's open
# rows costs 2-3 microseconds a row. Exact codes (more digits) stay indexed: they are selective.
BROAD_CPV_DIGITS = 2


def _words_lead(filters: TenderFilters) -> bool:
    return bool(filters.q) and tuple(filters.status) == ("active",)


def unindexed(field: str) -> Coalesce:
    """The column's own value (NULL stays NULL) as an expression no index answers: a bound or a list checked on
    the rows other conditions found, never a bitmap of its own (here, and the far deadline range's bound)."""
    return Coalesce(F(field), F(field))


def _deadline_between(start: datetime, end: datetime, *, words_lead: bool) -> Q:
    if words_lead:
        deadline = unindexed("submission_deadline")
        return Q(GreaterThanOrEqual(deadline, start)) & Q(LessThanOrEqual(deadline, end))
    return Q(submission_deadline__gte=start, submission_deadline__lte=end)


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


def filters_q(
    filters: TenderFilters,
    *,
    now: datetime,
    keywords: KeywordQuery | None = None,
    by_deadline: bool = False,
    land_words_indexed: bool = False,
) -> Q:
    """A Q over Tender for everything except keywords' ranking (see ``tender_search``).

    ``keywords`` is ``keyword_query_build(q=filters.q)`` when the caller has it already (to rank, to
    count, to highlight): building it reads the thesaurus, one round trip per request, not per use.
    ``land_words_indexed``: the server has the open tenders' (Land, words) index (migration 0022), so a
    Land beside open tenders' words is a plain condition that index answers together with the words.
    """
    condition = Q()
    # A list in deadline order walks the deadline (or Land and deadline) index of open tenders in order and
    # checks the words on the way: there the filters keep their indexes.
    words_lead = _words_lead(filters) and not by_deadline
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
            condition &= _cpv_q(filters.cpv, words_lead=words_lead)
    if filters.bundesland:
        if words_lead and not land_words_indexed:
            condition &= Q(In(unindexed("bundesland"), list(filters.bundesland)))
        else:
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
        condition &= _deadline_between(now, now + timedelta(days=filters.deadline_days), words_lead=words_lead)
    if filters.deadline_until is not None:
        end = datetime.combine(filters.deadline_until, time.max, tzinfo=BERLIN)
        condition &= _deadline_between(now, end, words_lead=words_lead)
    if filters.published_since is not None:
        condition &= Q(published_at__gte=datetime.combine(filters.published_since, time.min, tzinfo=BERLIN))
    if filters.status:
        condition &= Q(status__in=filters.status)
    if filters.portal:
        condition &= Q(Exists(TenderSource.objects.filter(tender=OuterRef("pk"), source__in=filters.portal)))
    return condition
