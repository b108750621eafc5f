"""One saved search that cannot be evaluated never silences the tenant's other searches."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.alerts.matching import (
    SearchCondition,
    _filters_sql,
    active_searches,
    matches_insert,
    search_conditions,
)
from notifications.alerts.services import delta_process
from notifications.models import Delivery, SavedSearch, TenderMatch
from tenders.filters import TenderFilters, effective_filters
from tests.notifications.alerts.helpers import LONG_AGO, ingest, notice, saved_search, user

pytestmark = pytest.mark.django_db


def _condition_bypassing_the_checks(search: SavedSearch, filters: TenderFilters) -> SearchCondition:
    """The SQL a search would have had before filters were bounded: what used to break the statement."""
    sql, params = _filters_sql(effective_filters(filters))
    return SearchCondition(saved_search_id=search.pk, active_since=search.active_since, sql=sql, params=params)


def _keywords_bypassing_the_checks(search: SavedSearch, q: str) -> SearchCondition:
    """Unchecked keywords inside the statement. Compiling keywords now reads the rewritten tsquery
    back from the database, which refuses a NUL there already; this places it in the statement."""
    sql, params = _filters_sql(effective_filters(TenderFilters()))
    keywords = '"tenders_tender"."search_vector" @@ websearch_to_tsquery(\'german\'::regconfig, %s)'
    return SearchCondition(
        saved_search_id=search.pk, active_since=search.active_since, sql=f"({sql}) AND {keywords}", params=(*params, q)
    )


def _inserts(queries) -> int:
    # A statement the driver refused before sending (NUL) is recorded without its SQL.
    return sum(q["sql"] is None or "INSERT INTO" in q["sql"] for q in queries.captured_queries)


def test_a_failing_statement_falls_back_to_the_searches_one_by_one(alpha):
    delta = ingest(notice(title="Dach Grundschule", estimated_value=Decimal("250000")))
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    healthy = saved_search(owner, name="gesund", q="Dach")
    overflow = saved_search(owner, name="Überlauf", q="Dach")
    nul = saved_search(owner, name="Null-Byte", q="Dach")
    conditions = [
        *search_conditions([healthy]),
        _condition_bypassing_the_checks(overflow, TenderFilters(value_min=Decimal("1e131072"))),
        _keywords_bypassing_the_checks(nul, "Dach\x00"),
    ]

    with CaptureQueriesContext(connection) as queries:
        created = matches_insert(conditions=conditions, tender_ids=delta.created, now=timezone.now())

    assert [(m.saved_search_id, m.tender_id) for m in created] == [(healthy.pk, delta.created[0])]
    assert _inserts(queries) == 1 + 3  # the shared statement, then each search alone
    overflow.refresh_from_db()
    nul.refresh_from_db()
    healthy.refresh_from_db()
    assert overflow.failing_since is not None and "numeric" in overflow.failing_reason
    assert overflow.failing_reason.startswith("Die Datenbank konnte das Suchprofil nicht auswerten")
    assert nul.failing_since is not None and "NUL" in nul.failing_reason
    assert healthy.failing_since is None


def test_a_search_marked_failing_is_evaluated_alone_and_recovers_when_it_works(alpha):
    first = ingest(notice(title="Dach eins"))
    connection.set_tenant(alpha.tenant)
    owner = user(alpha.member_email)
    healthy = saved_search(owner, name="gesund", q="Dach")
    was_failing = saved_search(owner, name="war kaputt", q="Dach")
    SavedSearch.objects.filter(pk=was_failing.pk).update(
        failing_since=LONG_AGO, failing_reason="numeric field overflow"
    )

    with CaptureQueriesContext(connection) as queries:
        created = matches_insert(
            conditions=search_conditions(active_searches()), tender_ids=first.created, now=timezone.now()
        )

    assert {m.saved_search_id for m in created} == {healthy.pk, was_failing.pk}
    assert _inserts(queries) == 2  # the shared statement without it, and its own
    was_failing.refresh_from_db()
    assert (was_failing.failing_since, was_failing.failing_reason) == (None, "")


def test_stored_filters_beyond_the_bounds_mark_the_search_and_the_others_are_notified(alpha):
    delta = ingest(notice(title="Dach Turnhalle"))
    connection.set_tenant(alpha.tenant)
    member, admin = user(alpha.member_email), user(alpha.admin_email)
    poisoned = saved_search(member, name="vergiftet", q="Dach", instant_alert=True)
    # Stored before filters were bounded: the portal and the API accepted these.
    SavedSearch.objects.filter(pk=poisoned.pk).update(filters={"value_min": "1e131072", "q": "Dach\x1b"})
    mine = saved_search(member, name="Dach", q="Dach", instant_alert=True)
    theirs = saved_search(admin, name="Dach Admin", q="Dach", instant_alert=True)

    outcome = delta_process(created=delta.created, changed={})

    assert {TenderMatch.objects.get(pk=pk).saved_search_id for pk in outcome.match_ids} == {mine.pk, theirs.pk}
    assert set(Delivery.objects.values_list("saved_search_id", flat=True)) == {mine.pk, theirs.pk}
    poisoned.refresh_from_db()
    assert poisoned.failing_since is not None
    assert "value_min: Bitte einen Betrag bis höchstens 9.999.999.999.999.999,99 € angeben." in poisoned.failing_reason
    assert "q: Enthält unzulässige Steuerzeichen" in poisoned.failing_reason
