"""Matching a delta against all saved searches of a tenant: one statement, same answers as the portal filter."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.alerts.matching import active_searches, matches_insert, search_conditions
from notifications.models import SavedSearch, TenderMatch
from tenders.filter_query import filters_q
from tenders.filters import TenderFilters, effective_filters
from tenders.models import Tender
from tests.notifications.alerts.helpers import ingest, notice, saved_search, user

pytestmark = pytest.mark.django_db


def _match(tender_ids, now=None):
    now = now or timezone.now()
    return matches_insert(conditions=search_conditions(active_searches()), tender_ids=tender_ids, now=now)


def _oracle(tender_ids, now) -> set[tuple[int, int]]:
    """Per search, per tender: what the portal filter says (the slow, obvious way)."""
    pairs = set()
    for search in SavedSearch.objects.filter(is_active=True):
        condition = filters_q(effective_filters(TenderFilters.from_json(search.filters)), now=now)
        for tender_id in tender_ids:
            if Tender.objects.filter(condition, pk=tender_id, first_seen_at__gte=search.active_since).exists():
                pairs.add((search.pk, tender_id))
    return pairs


def test_all_searches_are_matched_in_one_statement_with_the_portal_filter_semantics(alpha):
    records = [
        notice(title="Dachsanierung Grundschule", cpv_codes=("45261210",), bundesland="Bayern"),
        notice(title="Reinigung Rathaus", cpv_codes=("90919200",), bundesland="Berlin", postal_code="10115"),
        notice(title="Straßenbau Ortsdurchfahrt", cpv_codes=("45233140",), bundesland="Bayern", estimated_value=None),
        notice(
            title="Abholung von Müll im Landkreis", cpv_codes=("90511000",), bundesland="Hessen", postal_code="60311"
        ),
        notice(title="Softwareentwicklung Portal", cpv_codes=("72000000",), bundesland="Sachsen"),
        notice(title="Winterdienst", submission_deadline=timezone.now() + timedelta(days=10)),
    ]
    delta = ingest(*records)
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    saved_search(owner, name="Bau Bayern", cpv=("45000000",), bundesland=("Bayern",))
    saved_search(owner, name="Keyword", q="Dachsanierung")
    saved_search(owner, name="Umlaut", q="Muell")
    saved_search(owner, name="PLZ", plz="101")
    saved_search(owner, name="Wert", value_min=Decimal("100000"), value_max=Decimal("300000"))
    saved_search(owner, name="Frist 30", deadline_days=30)
    saved_search(owner, name="Frist 5", deadline_days=5)
    saved_search(owner, name="Portal", portal=("tender24",), cpv=("72",))
    saved_search(owner, name="Nichts", q="Hubschrauber")
    SavedSearch.objects.filter(pk=saved_search(owner, name="Aus", q="Dach").pk).update(is_active=False)
    now = timezone.now()

    with CaptureQueriesContext(connection) as queries:
        created = matches_insert(conditions=search_conditions(active_searches()), tender_ids=delta.created, now=now)
    inserts = [q for q in queries.captured_queries if "INSERT INTO" in q["sql"]]
    assert len(inserts) == 1  # one statement for all searches and all tenders of the batch

    got = {(m.saved_search_id, m.tender_id) for m in created}
    assert got == _oracle(delta.created, now)
    names = {SavedSearch.objects.get(pk=s).name for s, _ in got}
    assert {"Bau Bayern", "Keyword", "Umlaut", "PLZ", "Wert", "Portal", "Frist 30"} <= names
    assert not {"Nichts", "Aus", "Frist 5"} & names


def test_tenders_outside_the_delta_and_before_active_since_never_match(alpha):
    old = ingest(notice(title="Dach alt"), now=timezone.now() - timedelta(days=3))
    connection.set_tenant(alpha.tenant)
    search = saved_search(user(alpha.member_email), q="Dach", active_since=timezone.now() - timedelta(days=1))
    connection.set_schema_to_public()
    new = ingest(notice(title="Dach neu"))
    connection.set_tenant(alpha.tenant)

    assert _match(new.created) and _match(old.created) == []
    assert list(TenderMatch.objects.values_list("saved_search_id", "tender_id")) == [(search.pk, new.created[0])]


def test_re_running_a_delta_inserts_nothing_twice(alpha):
    delta = ingest(notice(title="Dach"))
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dach")
    assert len(_match(delta.created)) == 1
    assert _match(delta.created) == []
    assert TenderMatch.objects.count() == 1


def test_a_search_with_broken_stored_filters_is_skipped_not_fatal(alpha):
    delta = ingest(notice(title="Dach"))
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    good = saved_search(owner, q="Dach")
    SavedSearch.objects.create(
        owner=owner, name="kaputt", filters={"bundesland": ["Atlantis"]}, active_since=good.active_since
    )
    assert [m.saved_search_id for m in _match(delta.created)] == [good.pk]


def test_matching_stays_inside_the_tenant(alpha, beta):
    delta = ingest(notice(title="Dach"))
    connection.set_tenant(beta.tenant)
    beta_search = saved_search(user(beta.member_email), q="Dach")
    connection.set_tenant(alpha.tenant)
    saved_search(user(alpha.member_email), q="Dach")
    _match(delta.created)
    connection.set_tenant(beta.tenant)
    assert TenderMatch.objects.count() == 0
    _match(delta.created)
    assert list(TenderMatch.objects.values_list("saved_search_id", flat=True)) == [beta_search.pk]


def test_closed_tenders_are_no_news_unless_a_search_asks_for_their_status(alpha):
    delta = ingest(
        notice(title="Dach offen"),
        notice(title="Dach abgelaufen", submission_deadline=timezone.now() - timedelta(days=1)),
        notice(title="Dach aufgehoben", status="cancelled"),
    )
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    open_only = saved_search(owner, name="offen", q="Dach")
    closed_too = saved_search(owner, name="alles", q="Dach", status=("active", "expired", "cancelled"))
    got = {(m.saved_search_id, m.tender_id) for m in _match(delta.created)}
    titles = dict(Tender.objects.filter(pk__in=delta.created).values_list("pk", "title"))
    assert {titles[t] for s, t in got if s == open_only.pk} == {"Dach offen"}
    assert {titles[t] for s, t in got if s == closed_too.pk} == {"Dach offen", "Dach abgelaufen", "Dach aufgehoben"}
