"""What a signed-in page costs in statements: the search page and the tender page, each at most six.

Every statement of the request is counted (tenant, session, user, the search itself, triage, profiles),
with a team that has several saved searches, matches and triage, so a read per row or per profile shows.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tenants.utils import schema_context

from kernel.vocabulary.synonyms import SynonymEntry
from notifications.models import TenderMatch
from notifications.portal.services import saved_search_create, triage_set
from tenders.filters import TenderFilters
from tenders.models import Tender
from tenders.services import notices_ingest
from tenders.services.synonyms import synonym_group_save
from tests.factories.records import NoticeRecordFactory

MAX_STATEMENTS = 6
WORK = "Pflasterarbeiten"


@pytest.fixture
def team(alpha, alpha_member, alpha_admin, db) -> dict[str, int]:
    """40 open tenders of one kind of work; the member and an admin triaged some, three profiles matched some."""
    now = timezone.now()
    records = [
        NoticeRecordFactory(
            source_notice_id=f"stmt-{n}",
            title=f"{WORK} Bauabschnitt {n}",
            published_at=now - timedelta(days=n % 9),
            submission_deadline=now + timedelta(days=n + 1),
        )
        for n in range(40)
    ]
    notices_ingest(records=records, now=now, use_fingerprint=False)
    ids = list(
        Tender.objects.filter(title__startswith=WORK).order_by("submission_deadline").values_list("id", flat=True)
    )
    with schema_context(alpha.schema_name):
        own = saved_search_create(owner=alpha_member, name="Pflaster", filters=TenderFilters(q=WORK))
        shared = saved_search_create(
            owner=alpha_admin, name="Tiefbau (geteilt)", filters=TenderFilters(q="Bauabschnitt"), is_shared=True
        )
        private = saved_search_create(owner=alpha_admin, name="Nur Admin", filters=TenderFilters(q=WORK))
        for profile in (own, shared, private):
            TenderMatch.objects.bulk_create(
                TenderMatch(saved_search=profile, tender_id=tender_id, matched_at=now) for tender_id in ids[:30]
            )
        for tender_id, status in zip(ids[:12], ["interessant", "pruefung", "abgelehnt"] * 4, strict=True):
            triage_set(user=alpha_member, tender_id=tender_id, status=status, note=f"Notiz {tender_id}")
            triage_set(user=alpha_admin, tender_id=tender_id, status="beworben")
    triage = dict(zip(ids[:12], ["interessant", "pruefung", "abgelehnt"] * 4, strict=True))
    return {"first": ids[0], "own": own.pk, "shared": shared.pk, "private": private.pk, "triage": triage}


def _counted(client, path: str, params: dict | None = None):
    client.get(path, params or {})  # a second visit: the session is in the cache, as after sign-in
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path, params or {})
    listing = "\n".join(f"{n}. {query['sql'][:200]}" for n, query in enumerate(queries.captured_queries, 1))
    return response, len(queries.captured_queries), listing


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"q": WORK},
        {"q": WORK, "order": "deadline"},
        {"q": WORK, "order": "published"},
        {"q": WORK, "order": "published", "page": "2"},
        {"q": WORK, "triage": "interessant"},
        {"order": "deadline"},
    ],
    ids=["no-keywords", "relevance", "deadline", "published", "page-2", "triage-filter", "deadline-no-keywords"],
)
def test_a_search_page_costs_at_most_six_statements(alpha_client, team, params):
    response, statements, listing = _counted(alpha_client, "/suche/", params)
    assert response.status_code == 200
    assert response.context["page"].object_list
    assert statements <= MAX_STATEMENTS, listing


def test_the_shown_rows_carry_the_users_own_triage(alpha_client, team):
    response, _statements, _listing = _counted(alpha_client, "/suche/", {"q": WORK, "order": "deadline"})
    html = response.content.decode()
    chosen = re.search(rf'<select name="status" id="triage-{team["first"]}" class="triage-(\w+)"', html)
    assert chosen.group(1) == "interessant"  # the member's verdict, not the admin's "beworben"
    shown = {tender.pk: tender.my_triage for tender in response.context["page"].object_list}
    assert shown == {tender_id: team["triage"].get(tender_id) for tender_id in shown}
    assert len([status for status in shown.values() if status]) == 12  # the nearest deadlines are the triaged ones


@pytest.mark.parametrize(
    "params", [{}, {"q": WORK}, {"q": "Bauabschnitt Pflaster"}], ids=["alert", "result", "other-q"]
)
def test_a_matched_tender_page_costs_at_most_six_statements(alpha_client, team, params):
    """From an alert mail (no keywords) or the result list (its keywords): "Warum gefunden" of each matched
    profile and the page's own keywords compile against the keywords version read in the tender's statement."""
    response, statements, listing = _counted(alpha_client, f"/ausschreibung/{team['first']}/", params)
    assert response.status_code == 200
    assert [row["profile"].pk for row in response.context["profiles"]] == [team["own"], team["shared"]]
    assert all(row["reasons"] for row in response.context["profiles"])
    assert statements <= MAX_STATEMENTS, listing
    assert "SELECT md5(" not in listing  # the keywords version is read in the tender's statement, not on its own


def test_the_tender_page_compiles_its_keywords_against_the_thesaurus_of_the_moment(alpha_client, team):
    """The version read with the tender keys the compiled keywords: a group added between two visits counts."""
    path = f"/ausschreibung/{team['first']}/"
    before = alpha_client.get(path, {"q": "Natursteinpflaster"})
    synonym_group_save(entry=SynonymEntry(words=("Natursteinpflaster", WORK), narrower=(), basis="Test"))
    after = alpha_client.get(path, {"q": "Natursteinpflaster"})
    assert [text for text, hit in after.context["title_segments"] if hit] == [WORK]
    assert [text for text, hit in before.context["title_segments"] if hit] == []


def test_the_tender_page_shows_the_users_triage_and_profiles(alpha_client, team):
    response, statements, listing = _counted(alpha_client, f"/ausschreibung/{team['first']}/")
    assert response.status_code == 200
    assert statements <= MAX_STATEMENTS, listing
    # What the folded reads must still show: the member's triage and note, own and shared profiles.
    assert response.context["triage"].status == "interessant"
    assert response.context["triage_form"].initial == {"status": "interessant", "note": f"Notiz {team['first']}"}
    shown = [row["profile"].pk for row in response.context["profiles"]]
    assert shown == [team["own"], team["shared"]]  # by name; the admin's private profile is not the member's
    html = response.content.decode()
    assert "Tiefbau (geteilt)" in html and "Nur Admin" not in html
    assert all(row["reasons"] for row in response.context["profiles"])


@pytest.mark.parametrize("params", [{}, {"q": WORK}], ids=["no-keywords", "result"])
def test_a_tender_nobody_triaged_or_matched_says_so(alpha_client, team, params):
    last = Tender.objects.filter(title__startswith=WORK).order_by("-submission_deadline").first()
    response, statements, listing = _counted(alpha_client, f"/ausschreibung/{last.pk}/", params)
    assert statements <= MAX_STATEMENTS, listing
    assert response.context["triage"] is None and response.context["profiles"] == []
    assert "Keines Ihrer Suchprofile hat diese Ausschreibung gemeldet." in response.content.decode()
