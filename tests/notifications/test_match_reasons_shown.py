""" "Warum gefunden" where users see a match: the tender page per profile, the result list, the alert mail, the API.

The weak case is the one a user met in the demo: a profile on "Sicherheit" matched an IT consulting
contract only through the real CPV 2008 label of 79000000 ("… Consulting, Einstellungen, Druck und
Sicherheit"); every place that shows the match says that it was only a CPV label.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tenants.utils import schema_context

from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.composing import ClaimedMatch, search_section
from notifications.alerts.rendering import instant_subject, render_mail
from notifications.models import SavedSearch, TenderMatch
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory
from tests.notifications.api.conftest import make_api_caller

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


@pytest.fixture
def scene(alpha):
    records = [
        NoticeRecordFactory(
            title="Bewachung des Verwaltungsgebäudes",
            description="Sicherheitsdienst rund um die Uhr.",
            cpv_codes=("79713000",),
        ),
        NoticeRecordFactory(
            title="Beratung zur Einführung eines Dokumentenmanagementsystems",
            description="Konzeption, Migration und Schulung.",
            cpv_codes=("79000000",),
        ),
    ]
    notices_ingest(records=records, now=timezone.now() - timedelta(hours=1), use_fingerprint=False)
    guard, it = (Tender.objects.get(title=r.title) for r in records)
    with schema_context(alpha.schema_name):
        member = get_user_model().objects.get(username=alpha.member_email)
        profile = SavedSearch.objects.create(
            owner=member, name="Sicherheitsdienste", filters={"q": "Sicherheit"}, active_since=NOW
        )
        for tender in (guard, it):
            TenderMatch.objects.create(saved_search=profile, tender=tender, matched_at=NOW)
    return {"guard": guard, "it": it, "profile": profile}


def test_the_tender_page_says_why_each_profile_matched(alpha_client, scene):
    weak = alpha_client.get(f"/ausschreibung/{scene['it'].pk}/").content.decode()
    assert 'data-testid="matched-profile"' in weak and "Sicherheitsdienste" in weak
    assert "CPV-Bezeichnung: Sicherheit" in weak
    assert 'data-testid="only-cpv-label"' in weak
    strong = alpha_client.get(f"/ausschreibung/{scene['guard'].pk}/").content.decode()
    assert "Beschreibung: Sicherheitsdienst" in strong
    assert 'data-testid="only-cpv-label"' not in strong


def test_the_result_list_says_where_the_words_hit(alpha_client, scene):
    html = alpha_client.get("/suche/", {"q": "Sicherheit"}).content.decode()
    rows = {row.split("</h2>")[0]: row for row in html.split('data-testid="tender-row"')[1:]}
    it_row = next(row for head, row in rows.items() if "Dokumentenmanagementsystems" in head)
    guard_row = next(row for head, row in rows.items() if "Bewachung" in head)
    assert 'data-testid="only-cpv-label"' in it_row
    assert "Beschreibung: Sicherheitsdienst" in guard_row and 'data-testid="only-cpv-label"' not in guard_row


def test_the_alert_mail_says_why(alpha, scene):
    with schema_context(alpha.schema_name):
        profile = SavedSearch.objects.get(pk=scene["profile"].pk)
        matches = [
            ClaimedMatch(match_id=m.pk, saved_search_id=profile.pk, tender_id=m.tender_id)
            for m in TenderMatch.objects.filter(saved_search=profile).order_by("id")
        ]
        tenders = {t.pk: t for t in Tender.objects.filter(pk__in=[m.tender_id for m in matches])}
        section = search_section(
            search=profile,
            matches=matches,
            changes=[],
            tenders=tenders,
            base_url="https://alpha.example",
            language="de",
            unsubscribe_url="https://alpha.example/abmelden/",
        )
    mail = render_mail(
        kind="instant",
        language="de",
        subject=instant_subject(language="de", search_name=profile.name, tenders=section.tenders),
        sections=[section],
        unsubscribe_url="https://alpha.example/abmelden/",
        portal_url="https://alpha.example/",
    )
    assert "Warum gefunden: CPV-Bezeichnung: Sicherheit (nur über eine CPV-Bezeichnung)" in mail.text_body
    assert "Warum gefunden: Beschreibung: Sicherheitsdienst" in mail.text_body
    assert "nur über eine CPV-Bezeichnung" in mail.html_body


def test_the_api_gives_match_reasons(alpha, scene):
    caller = make_api_caller(alpha, alpha.member_email)
    rows = caller.get("/api/v1/matches/").json()["results"]
    by_tender = {row["tender"]["id"]: row["match_reasons"] for row in rows}
    assert by_tender[scene["it"].pk]["only_cpv_label"] is True
    assert by_tender[scene["it"].pk]["words"] == [{"field": "cpv_labels", "words": ["Sicherheit"]}]
    guard = by_tender[scene["guard"].pk]
    assert {"field": "description", "words": ["Sicherheitsdienst"]} in guard["words"]
    assert guard["only_cpv_label"] is False
    assert {"filter": "status", "value": "active"} in guard["filters"]
