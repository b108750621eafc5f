"""The relevance list's pages (notifications.portal.result_list): the candidates are read, counted and ranked in
one statement, the page's statement fetches only the rows up to the page's end, and the pages are the whole
ranked list's."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.portal.services import triage_set
from tenders.filters import TenderFilters
from tenders.pagination import BoundedCountPaginator
from tenders.search import tender_search
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

WORD = "Pflasterarbeiten"
BOUND = 26  # above one page of 25: a relevance list ranks BOUND + 1 candidates


@pytest.fixture
def ranked(db, monkeypatch) -> list[int]:
    """30 open tenders of the word, ranked differently (the word in the title, the description or both); the ids
    of the whole relevance list of BOUND + 1 candidates, best first."""
    monkeypatch.setattr(BoundedCountPaginator, "exact_up_to", BOUND)
    now = timezone.now()
    records = [
        NoticeRecordFactory(
            source_notice_id=f"ranked-{n}",
            title=f"{WORD} Los {n}" if n % 3 else f"Gehwegsanierung Los {n}",
            description=f"{WORD} und Nebenarbeiten." if n % 2 or not n % 3 else "Leistungen nach Leistungsverzeichnis.",
            published_at=now - timedelta(hours=n),
            submission_deadline=now + timedelta(days=n % 7 + 1),
        )
        for n in range(30)
    ]
    notices_ingest(records=records, now=now, use_fingerprint=False)
    whole = tender_search(filters=TenderFilters(q=WORD), order="relevance", now=timezone.now(), candidates=BOUND + 1)
    return list(whole.values_list("id", flat=True))


def _page(client, **params):
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/suche/", {"q": WORD, **params})
    assert response.status_code == 200
    return response, [query["sql"] for query in captured.captured_queries]


def _ids_fetched(statements: list[str]) -> list[int]:
    """The tenders the page's statement (the one reading the shown rows' columns) asks for (its places left over
    name no tender: -1)."""
    (page,) = [sql for sql in statements if '"tenders_tender"."title"' in sql and "array_position" in sql]
    listed = re.search(r'"tenders_tender"\."id" IN \(([^)]*)\)', page).group(1).split(",")
    return [int(value) for value in listed if int(value) > 0]


def test_the_pages_are_the_whole_ranked_lists_and_fetch_only_their_own_rows(alpha_client, ranked):
    assert len(ranked) == BOUND + 1 and len(set(ranked)) == BOUND + 1
    first, statements = _page(alpha_client)
    assert [tender.pk for tender in first.context["page"].object_list] == ranked[:25]
    assert "Mehr als 26 Ausschreibungen gefunden" in first.content.decode()
    # Read once: one statement reads the word's matches, counting every candidate there.
    (candidates,) = [sql for sql in statements if "count(*) OVER ()" in sql]
    assert "@@" in candidates and sum("@@" in sql for sql in statements) == 1
    assert _ids_fetched(statements) == ranked[:25]  # the page's own rows, not the 27 candidates
    second, statements = _page(alpha_client, page="2")
    assert [tender.pk for tender in second.context["page"].object_list] == ranked[25:]
    assert _ids_fetched(statements) == ranked[25:]
    assert second.context["page"].paginator.count == BOUND + 1
    html = second.content.decode()
    assert 'rel="next"' not in html and 'rel="prev"' in html


def test_a_page_past_the_end_shows_the_last_without_counting_again(alpha_client, ranked):
    response, statements = _page(alpha_client, page="9")
    page = response.context["page"]
    assert page.number == 2 and [tender.pk for tender in page.object_list] == ranked[25:]
    assert not [sql for sql in statements if "COUNT(*)" in sql.upper() and "OVER ()" not in sql]


def test_a_word_nothing_matches_says_so(alpha_client, ranked):
    response = alpha_client.get("/suche/", {"q": "Glockenstuhl"})
    assert response.context["page"].paginator.count == 0 and not response.context["page"].object_list
    assert "Keine Treffer" in response.content.decode()


def test_with_a_triage_filter_the_list_ranks_only_the_users_verdicts(alpha, alpha_client, alpha_member, ranked):
    from django_tenants.utils import schema_context

    marked = ranked[3:30:4]  # some of the candidates, among them the one just past the shown rows
    with schema_context(alpha.schema_name):
        for tender_id in marked:
            triage_set(user=alpha_member, tender_id=tender_id, status="interessant")
    response, _statements = _page(alpha_client, triage="interessant")
    page = response.context["page"]
    assert [tender.pk for tender in page.object_list] == [pk for pk in ranked if pk in marked]
    assert page.paginator.count == len(marked)
    assert all(tender.my_triage == "interessant" for tender in page.object_list)


def _hits_built(monkeypatch) -> list[tuple]:
    """Each time a page builds its count basis (``portal_tender_hits``), the filters it was built for."""
    import notifications.portal.result_list as result_list

    built = []
    real = result_list.portal_tender_hits

    def counting(**kwargs):
        built.append(kwargs["filters"])
        return real(**kwargs)

    monkeypatch.setattr(result_list, "portal_tender_hits", counting)
    return built


def test_a_relevance_page_arrives_counted_and_never_builds_its_count_basis(alpha_client, ranked, monkeypatch):
    built = _hits_built(monkeypatch)
    for params in ({}, {"page": "2"}, {"page": "9"}):  # first, last and past the end
        response, _statements = _page(alpha_client, **params)
        assert response.context["page"].paginator.count == BOUND + 1
    assert built == []


def test_a_list_that_counts_apart_builds_its_count_basis_once(alpha_client, ranked, monkeypatch):
    built = _hits_built(monkeypatch)
    response, statements = _page(alpha_client, order="published")
    assert response.context["page"].paginator.count == BOUND + 1  # "mehr als 26": counted up to the bound
    assert "Mehr als 26 Ausschreibungen gefunden" in response.content.decode()
    assert [filters.q for filters in built] == [WORD]
    # The count rides in the page's statement: the basis is read there, not in a statement of its own.
    assert not [sql for sql in statements if sql.upper().startswith("SELECT COUNT(*)")]


def test_a_deferred_count_basis_counts_as_the_queryset_does(alpha, ranked):
    from tenders.models import Tender

    matches = Tender.objects.filter(pk__in=ranked[:5]).order_by("-id")
    calls = []

    def basis():
        calls.append(1)
        return matches

    deferred = BoundedCountPaginator(matches, 2, count_basis=basis)
    given = BoundedCountPaginator(matches, 2, count_basis=matches)
    assert calls == []  # nothing built before something is counted
    assert deferred.count == given.count == 5
    assert deferred.get_page("9").number == given.get_page("9").number == 3  # past the end: the last page
    assert calls == [1]  # built once, kept for the page past the end too
