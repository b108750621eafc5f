"""Branded error pages: German, English in English mode, on company and public hosts, also in the demo."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import override_settings
from django.utils import translation


def test_an_unknown_page_on_a_company_host_is_the_branded_german_404(alpha_client):
    response = alpha_client.get("/gibt-es-nicht/")
    html = response.content.decode()
    assert response.status_code == 404
    assert '<html lang="de">' in html and "Tender&nbsp;Radar" in html and 'data-testid="error-page"' in html
    assert "Seite nicht gefunden." in html and "Not Found" not in html


def test_the_404_is_english_in_english_mode(alpha_client):
    alpha_client.post("/sprache/", {"language": "en", "next": "/"})
    html = alpha_client.get("/gibt-es-nicht/").content.decode()
    assert '<html lang="en">' in html and "Page not found." in html and "Seite nicht gefunden" not in html


def test_a_tender_that_does_not_exist_is_the_same_page(alpha_client):
    response = alpha_client.get("/ausschreibung/999999999/")
    assert response.status_code == 404 and "Seite nicht gefunden." in response.content.decode()


def test_the_public_host_has_the_branded_404_in_both_languages(public_client):
    response = public_client.get("/gibt-es-nicht/")
    assert response.status_code == 404 and "Seite nicht gefunden." in response.content.decode()
    public_client.cookies["django_language"] = "en"
    assert "Page not found." in public_client.get("/gibt-es-nicht/").content.decode()


@pytest.mark.parametrize("host_client", ["alpha_client", "public_client"])
def test_the_demo_shows_the_branded_404_although_debug_is_on(request, host_client):
    client = request.getfixturevalue(host_client)
    with override_settings(DEBUG=True, DEMO_ENABLED=True):
        response = client.get("/gibt-es-nicht/")
    html = response.content.decode()
    assert response.status_code == 404
    assert "Seite nicht gefunden." in html and "DEBUG = True" not in html


def test_without_the_demo_debug_keeps_djangos_page_for_developers(alpha_client):
    with override_settings(DEBUG=True, DEMO_ENABLED=False):
        html = alpha_client.get("/gibt-es-nicht/").content.decode()
    assert "DEBUG = True" in html


@pytest.mark.parametrize(
    ("language", "heading"), [("de", "Da ist etwas schiefgegangen."), ("en", "Something went wrong.")]
)
def test_the_500_page_renders_without_a_request(language, heading):
    # Django renders 500.html with no request and no context processors: nothing may need them.
    with translation.override(language):
        html = render_to_string("500.html")
    assert f'<html lang="{language}">' in html and heading in html
    assert "/static/css/app.css" in html and "Tender&nbsp;Radar" in html


@pytest.mark.parametrize(("language", "heading"), [("de", "Ungültige Anfrage."), ("en", "Bad request.")])
def test_the_400_page_renders_without_a_request(language, heading):
    with translation.override(language):
        assert heading in render_to_string("400.html")


def test_the_403_page_is_branded(rf):
    with translation.override("en"):
        html = render_to_string("403.html", request=rf.get("/"))
    assert "Permission denied." in html and "Tender&nbsp;Radar" in html
