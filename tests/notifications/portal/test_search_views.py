"""The result list over HTTP: URL filters, form errors, htmx fragments, pagination, triage filter, CSV."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.portal.services import triage_set
from tenders.filters import STATUSES
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

# The corpus mixes open, expired, awarded and cancelled tenders; without a status a search lists open ones.
EVERY_STATUS = {"status": list(STATUSES)}


def _titles(response) -> list[str]:
    return [tender.title for tender in response.context["page"].object_list]


def test_search_page_lists_tenders_with_total(alpha_client, corpus):
    response = alpha_client.get("/suche/", EVERY_STATUS)
    assert response.status_code == 200
    assert response.context["page"].paginator.count == len(corpus)
    html = response.content.decode()
    assert f"{len(corpus)} Ausschreibungen gefunden" in html
    assert "Bauarbeit an der Straße Am Anger" in html


def test_filters_come_from_the_url_and_stay_in_the_links(alpha_client, corpus):
    response = alpha_client.get("/suche/", {"q": "Straßenbau", "bundesland": "Bayern", "order": "deadline"})
    # "Bauarbeit an der Straße" is road construction too: found through the parts of "Straßenbau".
    assert _titles(response) == [
        "Straßenbau Ortsdurchfahrt B 12",
        "Bauarbeit an der Straße Am Anger",
        "Planung Straßenbau Ortsumgehung",
    ]
    html = response.content.decode()
    assert 'value="Straßenbau"' in html
    assert "q=Stra%C3%9Fenbau&amp;bundesland=Bayern&amp;order=deadline" in html  # CSV link keeps every filter
    assert "/suchprofile/neu/?q=Stra%C3%9Fenbau&amp;bundesland=Bayern" in html


def test_umlaut_spellings_and_exclusion_through_the_url(alpha_client, corpus):
    assert _titles(alpha_client.get("/suche/", {"q": "Muell"})) == ["Abholung von Müll und Wertstoffen"]
    assert _titles(alpha_client.get("/suche/", {"q": "Straßenbau -Planung"})) == [
        "Straßenbau Ortsdurchfahrt B 12",
        "Bauarbeit an der Straße Am Anger",  # through the parts of "Straßenbau", ranked below
    ]


@pytest.mark.parametrize(
    "params, field",
    [
        ({"cpv": "abc"}, "cpv"),
        ({"plz": "8x"}, "plz"),
        ({"value_min": "viel"}, "value_min"),
        ({"deadline_days": "-3"}, "deadline_days"),
        ({"published_since": "31.02.2026"}, "published_since"),
        ({"status": "geheim"}, "status"),
        ({"bundesland": "Atlantis"}, "bundesland"),
        ({"triage": "vielleicht"}, "triage"),
    ],
)
def test_invalid_input_shows_form_errors_not_a_server_error(alpha_client, corpus, params, field):
    response = alpha_client.get("/suche/", params)
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert response.context["page"] is None
    assert "Bitte prüfen Sie die Filter" in response.content.decode()


def test_english_page_shows_english_filter_errors(alpha_client, corpus):
    alpha_client.cookies["django_language"] = "en"
    response = alpha_client.get("/suche/", {"plz": "8x"})
    assert response.context["form"].errors["plz"] == ["Postcode prefix: 1 to 5 digits."]


def test_htmx_request_gets_only_the_result_list(alpha_client, corpus):
    response = alpha_client.get("/suche/", {"q": "Winterdienst"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and 'role="search"' not in html
    assert "Reinigung Strasse und Gehweg" in html
    assert "HX-Request" in response["Vary"]
    restore = alpha_client.get(
        "/suche/", {"q": "Winterdienst"}, headers={"HX-Request": "true", "HX-History-Restore-Request": "true"}
    )
    assert "<html" in restore.content.decode()


def test_htmx_errors_are_swapped_in_with_status_200(alpha_client, corpus):
    response = alpha_client.get("/suche/", {"plz": "x"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert "PLZ-Anfang" in response.content.decode()


def test_pagination_keeps_the_total_and_the_filters(alpha_client, db):
    now = timezone.now()
    notices_ingest(
        records=[
            NoticeRecordFactory(
                title=f"Pflasterarbeiten Bauabschnitt {n}", submission_deadline=now + timedelta(days=n + 1)
            )
            for n in range(30)
        ],
        now=now,
        use_fingerprint=False,
    )
    first = alpha_client.get("/suche/", {"q": "Pflasterarbeiten", "order": "deadline"})
    assert first.context["page"].paginator.count == 30
    assert len(first.context["page"].object_list) == 25
    assert "Seite 1 von 2" in first.content.decode()
    assert "q=Pflasterarbeiten&amp;order=deadline&amp;page=2" in first.content.decode()
    second = alpha_client.get("/suche/", {"q": "Pflasterarbeiten", "order": "deadline", "page": "2"})
    assert _titles(second) == [f"Pflasterarbeiten Bauabschnitt {n}" for n in range(25, 30)]
    assert alpha_client.get("/suche/", {"q": "Pflasterarbeiten", "page": "999"}).context["page"].number == 2


def test_big_results_are_counted_up_to_a_bound_and_paged_beyond(alpha_client, db, monkeypatch):
    from tenders.pagination import BoundedCountPaginator

    monkeypatch.setattr(BoundedCountPaginator, "exact_up_to", 26)  # above one page of 25
    now = timezone.now()
    records = [
        NoticeRecordFactory(title=f"Pflasterarbeiten Bauabschnitt {n}", submission_deadline=now + timedelta(days=n + 1))
        for n in range(30)
    ]
    notices_ingest(records=records, now=now, use_fingerprint=False)
    html = alpha_client.get("/suche/", {"q": "Pflasterarbeiten", "order": "deadline"}).content.decode()
    assert "Mehr als 26 Ausschreibungen gefunden" in html and "ca. " not in html
    assert "Seite 1</span>" in html and 'rel="next"' in html
    second = alpha_client.get("/suche/", {"q": "Pflasterarbeiten", "order": "deadline", "page": "2"})
    assert _titles(second) == [f"Pflasterarbeiten Bauabschnitt {n}" for n in range(25, 30)]
    assert 'rel="next"' not in second.content.decode() and 'rel="prev"' in second.content.decode()
    exact = alpha_client.get("/suche/", {"q": "Bauabschnitt 7", "order": "deadline"}).content.decode()
    assert "1 Ausschreibung gefunden" in exact and "Mehr als" not in exact


def test_a_relevance_list_counts_its_own_candidates_up_to_the_bound(alpha_client, db, monkeypatch):
    """Ranked by relevance, the list holds one candidate more than the bound and counts its own rows (a window),
    so the matches are read once: the same figures as a count of the matches."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tenders.pagination import BoundedCountPaginator

    monkeypatch.setattr(BoundedCountPaginator, "exact_up_to", 26)
    now = timezone.now()
    records = [
        NoticeRecordFactory(title=f"Pflasterarbeiten Bauabschnitt {n}", submission_deadline=now + timedelta(days=n + 1))
        for n in range(30)
    ]
    notices_ingest(records=records, now=now, use_fingerprint=False)
    with CaptureQueriesContext(connection) as captured:
        past = alpha_client.get("/suche/", {"q": "Pflasterarbeiten"})
    assert past.context["page"].paginator.is_lower_bound
    assert "Mehr als 26 Ausschreibungen gefunden" in past.content.decode()
    page_statement = next(q["sql"] for q in captured.captured_queries if "ts_rank" in q["sql"])
    assert "OVER ()" in page_statement and "SELECT count(*) FROM (" not in page_statement
    monkeypatch.setattr(BoundedCountPaginator, "exact_up_to", 30)
    exact = alpha_client.get("/suche/", {"q": "Pflasterarbeiten"})
    assert exact.context["page"].paginator.count == 30 and "30 Ausschreibungen gefunden" in exact.content.decode()
    second = alpha_client.get("/suche/", {"q": "Pflasterarbeiten", "page": "2"})
    assert second.context["page"].paginator.count == 30 and len(second.context["page"].object_list) == 5


def test_paging_ends_at_the_deepest_page_offered(alpha_client, db, monkeypatch):
    from tenders.pagination import BoundedCountPaginator

    # Deeper numbered pages are the CSV export's job (newest-first and deadline lists page by keyset, no limit).
    monkeypatch.setattr(BoundedCountPaginator, "max_pages", 1)
    notices_ingest(
        records=[NoticeRecordFactory(title=f"Pflasterarbeiten Los {n}") for n in range(30)],
        now=timezone.now(),
        use_fingerprint=False,
    )
    response = alpha_client.get("/suche/", {"q": "Pflasterarbeiten", "order": "relevance", "page": "2"})
    assert response.context["page"].number == 1 and len(response.context["page"].object_list) == 25
    assert 'rel="next"' not in response.content.decode()


def _link(html: str, rel: str) -> str | None:
    found = re.search(rf'<a href="\?([^"]*)"[^>]*rel="{rel}"', html)
    return found.group(1).replace("&amp;", "&") if found else None


def test_newest_first_pages_continue_from_the_rows_shown_both_ways(alpha_client, db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    now = timezone.now()
    same_moment = now - timedelta(days=3)
    records = [
        NoticeRecordFactory(
            source_notice_id=f"keyset-{n}",
            title=f"Pflasterarbeiten Los {n}",
            # Ties on the publication time and undated notices: the id decides, as in the list's order.
            published_at=None if n % 11 == 0 else (same_moment if n % 3 == 0 else now - timedelta(hours=n)),
        )
        for n in range(60)
    ]
    notices_ingest(records=records, now=now, use_fingerprint=False)
    expected = [
        tender.title
        for tender in Tender.objects.filter(title__startswith="Pflasterarbeiten Los").order_by(
            F("published_at").desc(nulls_last=True), "-id"
        )
    ]
    pages, query = [], "q=Pflasterarbeiten&order=published"
    while query is not None:
        with CaptureQueriesContext(connection) as statements:
            response = alpha_client.get("/suche/?" + query)
        pages.append(_titles(response))
        assert len(statements.captured_queries) <= 6
        query = _link(response.content.decode(), "next")
    assert [title for page in pages for title in page] == expected
    assert [len(page) for page in pages] == [25, 25, 10]
    assert "nach=" in _link(alpha_client.get("/suche/?q=Pflasterarbeiten&order=published").content.decode(), "next")
    back, html = [], response.content.decode()
    while (query := _link(html, "prev")) is not None:
        response = alpha_client.get("/suche/?" + query)
        back.append(_titles(response))
        html = response.content.decode()
    assert back == pages[-2::-1]
    assert response.context["page"].number == 1 and _link(html, "prev") is None


def test_deadline_pages_continue_from_the_rows_shown_both_ways(alpha_client, db):
    from urllib.parse import urlencode

    from tenders.deadline_order import OpenDeadlinesFirst

    now = timezone.now()
    records = [
        NoticeRecordFactory(
            source_notice_id=f"dl-keyset-{n}",
            title=f"Pflasterarbeiten Abschnitt {n}",
            # Open, expired and undated, with ties on the deadline.
            submission_deadline=None if n % 7 == 0 else now + timedelta(days=(-2, -1, 1, 2)[n % 4], hours=n % 2),
        )
        for n in range(60)
    ]
    notices_ingest(records=records, now=now - timedelta(days=1), use_fingerprint=False)
    expected = [
        tender.title
        for tender in OpenDeadlinesFirst.of(Tender.objects.filter(title__startswith="Pflasterarbeiten"), now=now)
    ]
    base = urlencode([("q", "Pflasterarbeiten"), ("order", "deadline"), *[("status", s) for s in STATUSES]])
    pages, query = [], base
    while query is not None:
        response = alpha_client.get("/suche/?" + query)
        pages.append(_titles(response))
        query = _link(response.content.decode(), "next")
    assert [title for page in pages for title in page] == expected
    assert "nach=" in _link(alpha_client.get("/suche/?" + base).content.decode(), "next")
    back, html = [], response.content.decode()
    while (query := _link(html, "prev")) is not None:
        response = alpha_client.get("/suche/?" + query)
        back.append(_titles(response))
        html = response.content.decode()
    assert back == pages[-2::-1]


def test_a_forged_cursor_shows_the_first_page(alpha_client, corpus):
    first = _titles(alpha_client.get("/suche/", EVERY_STATUS))
    for forged in ("!!!", "MjAyNi0xMy0wMVQwODozMDowMCswMDowMHwx", "\x00"):
        response = alpha_client.get("/suche/", {**EVERY_STATUS, "nach": forged})
        assert response.status_code == 200 and _titles(response) == first


def test_more_than_a_thousand_hits_are_not_counted_a_thousand_are(alpha_client, db):
    now = timezone.now()
    records = [
        NoticeRecordFactory(
            source_notice_id=f"bound-{n}",
            title=f"Winterdienst Los {n}",
            bundesland="Berlin" if n else "Bayern",
            submission_deadline=now + timedelta(days=30),
        )
        for n in range(1001)
    ]
    notices_ingest(records=records, now=now, use_fingerprint=False)
    past = alpha_client.get("/suche/")
    assert "Mehr als 1.000 Ausschreibungen gefunden" in past.content.decode()
    assert past.context["page"].paginator.is_lower_bound
    below = alpha_client.get("/suche/", {"bundesland": "Berlin"})
    assert "1.000 Ausschreibungen gefunden" in below.content.decode()
    assert "Mehr als" not in below.content.decode() and below.context["page"].paginator.count == 1000


def test_empty_result_says_what_to_do(alpha_client, corpus):
    html = alpha_client.get("/suche/", {"q": "Raumfahrtbahnhof"}).content.decode()
    assert "Keine Treffer" in html and "Alle Filter zurücksetzen" in html


def test_triage_filter_uses_the_users_own_verdicts(alpha, alpha_client, alpha_member, alpha_admin, corpus):
    with schema_context(alpha.schema_name):
        triage_set(user=alpha_member, tender_id=corpus["muell"], status="interessant")
        triage_set(user=alpha_member, tender_id=corpus["planung"], status="abgelehnt")
        triage_set(user=alpha_admin, tender_id=corpus["bauarbeit"], status="interessant")
    assert _titles(alpha_client.get("/suche/", {"triage": "interessant", **EVERY_STATUS})) == [
        "Abholung von Müll und Wertstoffen"
    ]
    new_to_me = _titles(alpha_client.get("/suche/", {"triage": "neu", **EVERY_STATUS}))
    assert len(new_to_me) == len(corpus) - 2  # untriaged tenders are "neu"
    assert "Planung Straßenbau Ortsumgehung" not in new_to_me
    both = _titles(
        alpha_client.get("/suche/", {"triage": ["interessant", "abgelehnt"], "order": "deadline", **EVERY_STATUS})
    )
    assert both == ["Planung Straßenbau Ortsumgehung", "Abholung von Müll und Wertstoffen"]


def test_search_requires_sign_in(alpha, corpus):
    from django.test import Client

    assert Client(HTTP_HOST=alpha.host).get("/suche/").status_code == 302


# --- CSV ---------------------------------------------------------------------------------------------------


def test_csv_has_bom_semicolons_umlauts_and_the_same_filters(alpha, alpha_client, alpha_member, corpus):
    with schema_context(alpha.schema_name):
        triage_set(user=alpha_member, tender_id=corpus["muell"], status="pruefung")
    response = alpha_client.get("/suche/export.csv", {"bundesland": "Nordrhein-Westfalen"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="ausschreibungen-')
    body = b"".join(response.streaming_content)
    assert body.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8")[1:]), delimiter=";"))
    assert rows[0][:2] == ["ID", "Titel"]
    assert len(rows) == 2
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["Titel"] == "Abholung von Müll und Wertstoffen"
    assert row["Ort"] == "Köln"
    assert row["CPV-Bezeichnung"] == "Abholung von Siedlungsabfällen"
    assert row["Geschätzter Wert"] == "1200000,00"
    assert row["Meine Bewertung"] == "in Prüfung"
    assert row["Link"] == f"http://alpha.localhost/ausschreibung/{corpus['muell']}/"


def test_csv_cap_adds_a_note(alpha_client, corpus, monkeypatch):
    monkeypatch.setattr("notifications.portal.views.search.ROW_CAP", 3)
    body = b"".join(alpha_client.get("/suche/export.csv", EVERY_STATUS).streaming_content).decode("utf-8")
    rows = list(csv.reader(io.StringIO(body[1:]), delimiter=";"))
    assert len(rows) == 1 + 3 + 1
    assert rows[-1][0].startswith(f"Hinweis: Export auf 3 von {len(corpus)} Zeilen begrenzt")


def test_csv_with_invalid_filters_goes_back_to_the_search(alpha_client, corpus):
    response = alpha_client.get("/suche/export.csv", {"plz": "x"})
    assert response.status_code == 302
    assert response["Location"] == "/suche/?plz=x"


def test_query_count_does_not_grow_with_the_rows(
    alpha, alpha_client, alpha_member, corpus, django_assert_max_num_queries
):
    with schema_context(alpha.schema_name):
        for key in ("muell", "planung", "bauarbeit"):
            triage_set(user=alpha_member, tender_id=corpus[key], status="interessant")
    alpha_client.get("/suche/", EVERY_STATUS)  # warm the session
    # tenant, session, user, language, sources, admin role, count, page: none per row
    with django_assert_max_num_queries(10):
        response = alpha_client.get("/suche/", EVERY_STATUS)
    assert len(response.context["page"].object_list) == len(corpus)


def test_htmx_pushes_the_address_without_empty_parameters(alpha_client, corpus):
    typed = {"q": "Winterdienst", "cpv": "", "plz": "", "value_min": "", "bundesland": "", "order": ""}
    response = alpha_client.get("/suche/", typed, headers={"HX-Request": "true"})
    assert response["HX-Push-Url"] == "/suche/?q=Winterdienst"
    everything_empty = {key: "" for key in typed}
    response = alpha_client.get("/suche/", everything_empty, headers={"HX-Request": "true"})
    assert response["HX-Push-Url"] == "/suche/"


def test_links_carry_no_empty_parameters_and_zero_results_offer_no_csv(alpha_client, db):
    now = timezone.now()
    notices_ingest(
        records=[NoticeRecordFactory(title=f"Pflaster {n}") for n in range(30)], now=now, use_fingerprint=False
    )
    html = alpha_client.get("/suche/").content.decode()
    assert 'href="?page=2&amp;nach=' in html and "?&amp;" not in html
    assert 'data-testid="csv-export"' in html and 'href="/suche/export.csv"' in html
    nothing = alpha_client.get("/suche/", {"q": "Raumfahrtbahnhof"}).content.decode()
    assert "Keine Treffer" in nothing and 'data-testid="csv-export"' not in nothing


def test_deadline_order_puts_open_deadlines_first_in_the_list_and_the_csv(alpha_client, corpus):
    now = timezone.now()
    expired = NoticeRecordFactory(
        source_notice_id="expired-1", title="Längst abgelaufen", submission_deadline=now - timedelta(days=2)
    )
    notices_ingest(records=[expired], now=now - timedelta(days=9), use_fingerprint=False)
    rows = list(alpha_client.get("/suche/", {"order": "deadline", **EVERY_STATUS}).context["page"].object_list)
    titles = [tender.title for tender in rows]
    deadlines = [tender.submission_deadline for tender in rows]
    open_ones = [d for d in deadlines if d and d >= now]
    expired_ones = [d for d in deadlines if d and d < now]
    assert len(rows) == 12 and len(open_ones) >= 5 and len(expired_ones) >= 1
    # Open deadlines nearest first, then expired ones latest first (two days ago before any older one), then none.
    assert deadlines == sorted(open_ones) + sorted(expired_ones, reverse=True) + [None] * 4
    assert titles[len(open_ones)] == "Längst abgelaufen"
    body = b"".join(alpha_client.get("/suche/export.csv", {"order": "deadline", **EVERY_STATUS}).streaming_content)
    exported = list(csv.reader(io.StringIO(body.decode("utf-8")[1:]), delimiter=";"))
    assert [row[1] for row in exported[1:]] == titles  # the export in the same order


def test_without_a_status_the_search_lists_open_tenders_shows_it_ticked_and_the_profile_previews_the_same(
    alpha_client, corpus
):
    # One meaning of a query everywhere: the search, the saved search's preview and its matching.
    response = alpha_client.get("/suche/", {"q": "Straße"})
    listed = [tender.pk for tender in response.context["page"].object_list]
    assert listed and {tender.status for tender in response.context["page"].object_list} == {"active"}
    html = response.content.decode()
    assert re.search(r'<input[^>]*value="active"[^>]*checked', html)
    save_link = re.search(r'href="/suchprofile/neu/\?([^"]*)" data-testid="save-profile"', html).group(1)
    preview = alpha_client.get("/suchprofile/neu/?" + save_link.replace("&amp;", "&")).context["preview"]
    assert preview.count == response.context["page"].paginator.count
    assert [tender.pk for tender in preview.sample] == listed[: len(preview.sample)]
