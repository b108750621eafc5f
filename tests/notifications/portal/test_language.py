"""German by default, English per user: the choice is stored and applied on every request and device."""

from __future__ import annotations

from django.test import Client
from django_tenants.utils import schema_context

from notifications.models import UserPreference
from tests.fixtures.tenants import TENANT_PASSWORD


def test_german_is_the_default(alpha_client, db):
    html = alpha_client.get("/suche/").content.decode()
    assert '<html lang="de">' in html and "Ausschreibungen suchen" in html


def test_switch_is_stored_and_follows_the_user_to_another_device(alpha, alpha_client, alpha_member):
    response = alpha_client.post("/sprache/", {"language": "en", "next": "/suche/"})
    assert response.status_code == 302 and response["Location"] == "/suche/"
    with schema_context(alpha.schema_name):
        assert UserPreference.objects.get(user=alpha_member).language == "en"
    assert "Search tenders" in alpha_client.get("/suche/").content.decode()

    other_device = Client(HTTP_HOST=alpha.host)
    other_device.post("/konto/anmelden/", {"username": alpha.member_email, "password": TENANT_PASSWORD})
    html = other_device.get("/suche/").content.decode()
    assert '<html lang="en">' in html and "Search tenders" in html and "Saved searches" in html


def test_stored_language_beats_a_stale_cookie(alpha, alpha_client, alpha_member):
    alpha_client.post("/sprache/", {"language": "en", "next": "/"})
    alpha_client.cookies["django_language"] = "de"
    assert "Overview" in alpha_client.get("/").content.decode()
    alpha_client.post("/sprache/", {"language": "de", "next": "/"})
    assert "Übersicht" in alpha_client.get("/").content.decode()
    with schema_context(alpha.schema_name):
        assert UserPreference.objects.get(user=alpha_member).language == "de"


def test_language_of_one_user_does_not_change_another(alpha, alpha_client, alpha_admin_client):
    alpha_client.post("/sprache/", {"language": "en", "next": "/"})
    assert "Übersicht" in alpha_admin_client.get("/").content.decode()


def test_unknown_language_is_ignored(alpha, alpha_client, alpha_member):
    response = alpha_client.post("/sprache/", {"language": "xx", "next": "/"})
    assert response.status_code == 302
    with schema_context(alpha.schema_name):
        assert not UserPreference.objects.filter(user=alpha_member).exists()


def test_signed_out_visitors_switch_with_the_cookie_only(alpha, db):
    visitor = Client(HTTP_HOST=alpha.host)
    visitor.post("/i18n/setlang/", {"language": "en", "next": "/konto/anmelden/"})
    assert "Sign in" in visitor.get("/konto/anmelden/").content.decode()


def test_numbers_and_dates_follow_the_language(alpha_client, corpus):
    german = alpha_client.get(f"/ausschreibung/{corpus['muell']}/").content.decode()
    assert "1.200.000 €" in german
    alpha_client.post("/sprache/", {"language": "en", "next": "/"})
    english = alpha_client.get(f"/ausschreibung/{corpus['muell']}/").content.decode()
    assert "€1,200,000" in english


def test_navigation_links_for_members_and_admins(alpha_client, alpha_admin_client):
    member = alpha_client.get("/").content.decode()
    admin = alpha_admin_client.get("/").content.decode()
    for link in ('href="/suche/"', 'href="/suchprofile/"', 'href="/pipeline/"', 'href="/einstellungen/"'):
        assert link in member and link in admin
    assert 'href="/konto/team/"' not in member and 'href="/api-schluessel/"' not in member
    assert 'href="/konto/team/"' in admin and 'href="/api-schluessel/"' in admin


def test_date_only_values_show_no_midnight_and_english_dates_are_english():
    from datetime import date, datetime

    from django.utils import translation

    from kernel.vocabulary.time_zone import BERLIN
    from notifications.portal.formatting import filters_summary
    from notifications.templatetags.portal_format import money, when
    from tenders.filters import TenderFilters

    midnight = datetime(2026, 7, 13, 0, 0, tzinfo=BERLIN)
    noon = datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN)
    with translation.override("de"):
        assert when(midnight) == "13.07.2026"
        assert when(noon) == "20.10.2026 12:00"
        assert filters_summary(TenderFilters(deadline_until=date(2026, 12, 24))) == [("Frist bis", "24.12.2026")]
        assert money(1200000) == '<span class="amount">1.200.000 €</span>'
    with translation.override("en"):
        # British day-first dates (config/settings/formats/en): "07/13" would be read as the 7th of a 13th month.
        assert when(midnight) == "13/07/2026"
        assert when(noon) == "20/10/2026 12:00"
        assert filters_summary(TenderFilters(deadline_until=date(2026, 12, 24)))[0][1] == "24/12/2026"
