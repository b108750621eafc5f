"""The dashboard: new matches of the user's profiles, this week's deadlines, tenders published per day (server SVG)."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.utils import timezone
from django_tenants.utils import schema_context

from kernel.vocabulary.time_zone import BERLIN
from notifications.models import TenderMatch
from notifications.portal.selectors import tender_daily_counts
from notifications.portal.services import saved_search_create, triage_set
from tenders.filters import TenderFilters
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory


def test_empty_dashboard_says_what_to_do(alpha_client, db):
    html = alpha_client.get("/").content.decode()
    assert "Erstes Suchprofil anlegen" in html
    assert "Noch keine Ausschreibungen aus den letzten 30 Tagen – die Quellen werden gerade abgerufen." in html
    assert "Prüfen die" not in html


def test_new_matches_and_deadlines_of_this_week(alpha, alpha_client, alpha_member, alpha_admin, corpus):
    with schema_context(alpha.schema_name):
        mine = saved_search_create(owner=alpha_member, name="Meins", filters=TenderFilters(q="Straßenbau"))
        theirs = saved_search_create(owner=alpha_admin, name="Fremd", filters=TenderFilters(q="Müll"))
        now = timezone.now()
        TenderMatch.objects.create(saved_search=mine, tender_id=corpus["ortsdurchfahrt"], matched_at=now)
        TenderMatch.objects.create(saved_search=mine, tender_id=corpus["planung"], matched_at=now - timedelta(days=9))
        TenderMatch.objects.create(saved_search=theirs, tender_id=corpus["muell"], matched_at=now)
        triage_set(user=alpha_member, tender_id=corpus["bauarbeit"], status="interessant")  # due in 5 days
        triage_set(user=alpha_member, tender_id=corpus["winterdienst"], status="abgelehnt")  # due in 10 days
    response = alpha_client.get("/")
    assert [m.tender_id for m in response.context["matches"]] == [corpus["ortsdurchfahrt"]]
    assert [t.pk for t in response.context["deadlines"]] == [corpus["ortsdurchfahrt"], corpus["bauarbeit"]]
    html = response.content.decode()
    assert "Straßenbau Ortsdurchfahrt B 12" in html and "in 3 Tagen" in html
    assert "Abholung von Müll" not in html


def test_rejected_tenders_leave_the_week_list(alpha, alpha_client, alpha_member, corpus):
    with schema_context(alpha.schema_name):
        mine = saved_search_create(owner=alpha_member, name="Meins", filters=TenderFilters(q="Straßenbau"))
        TenderMatch.objects.create(saved_search=mine, tender_id=corpus["ortsdurchfahrt"], matched_at=timezone.now())
        triage_set(user=alpha_member, tender_id=corpus["ortsdurchfahrt"], status="abgelehnt")
    assert alpha_client.get("/").context["deadlines"] == []


def test_daily_counts_group_by_berlin_day_of_publication(db):
    now = timezone.now()
    today = now.astimezone(BERLIN).replace(hour=12, minute=0, second=0, microsecond=0)

    def published(count: int, at, *, read_at=now):
        records = NoticeRecordFactory.build_batch(count, published_at=at)
        notices_ingest(records=records, now=read_at, use_fingerprint=False)

    # All read today (a first run), published on three days: each counts on its day of publication.
    published(3, today - timedelta(days=2))
    published(2, today - timedelta(days=2, hours=3))
    published(1, today - timedelta(days=40))  # before the window
    # 00:30 Berlin time is still the previous day in UTC: it must count for the Berlin day.
    night = (today - timedelta(days=5)).replace(hour=0, minute=30)
    published(1, night)
    # Read long ago but published in the window: its publication counts, not its ingest.
    published(1, today - timedelta(days=1), read_at=today - timedelta(days=60))
    counts = tender_daily_counts(since=today - timedelta(days=29), until=now + timedelta(minutes=1))
    assert counts == {(today - timedelta(days=2)).date(): 5, night.date(): 1, (today - timedelta(days=1)).date(): 1}


def test_chart_is_inline_svg_with_one_bar_per_day(alpha_client, corpus):
    html = alpha_client.get("/").content.decode()
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert svg.count("<rect") == 30
    assert "," not in svg.split("<title", 1)[0]  # coordinates are never localised ("12,5" breaks SVG)
    # Counted by publication: the corpus' official notices (eForms, OCDS) were published long before the window.
    start = datetime.combine(timezone.now().astimezone(BERLIN).date() - timedelta(days=29), time.min, tzinfo=BERLIN)
    published = Tender.objects.filter(published_at__gte=start, published_at__lte=timezone.now()).count()
    assert 0 < published < len(corpus)
    assert f"{published} Ausschreibungen in 30 Tagen veröffentlicht" in html
    assert "Veröffentlichte Ausschreibungen pro Tag" in html
