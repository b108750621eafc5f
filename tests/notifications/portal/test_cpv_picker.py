"""The CPV picker: find codes by label or number, see the hierarchy, pick them into search and profile forms."""

from __future__ import annotations

import re

import pytest
from django.test import Client


def _codes(html: str) -> list[str]:
    return re.findall(r'data-pick-value="(\d{8})"', html)


@pytest.mark.django_db
def test_finds_codes_by_label_with_their_hierarchy(alpha_client):
    response = alpha_client.get("/cpv/", {"term": "Bewachung"})
    assert response.status_code == 200
    html = response.content.decode()
    assert _codes(html) == ["79713000"]
    assert "79000000 Dienstleistungen für Unternehmen" in html  # division › group › class, labels in full
    assert "79700000 Dienstleistungen von Detekteien und Sicherheitsdiensten › 79710000" in html
    assert 'data-pick-label="79713000 Bewachungsdienste"' in html
    assert "><strong>79713000</strong> Bewachungsdienste</button>" in html


@pytest.mark.django_db
def test_finds_codes_by_number_and_umlaut_spelling(alpha_client):
    assert _codes(alpha_client.get("/cpv/", {"term": "4523"}).content.decode())[:2] == ["45230000", "45231000"]
    assert "90919200" in _codes(alpha_client.get("/cpv/", {"term": "Bueroreinigung"}).content.decode())


@pytest.mark.django_db
def test_a_word_finds_the_codes_it_names_first_and_a_number_its_class(alpha_client):
    # "Möbel (…) und Reinigungsmittel" mentions cleaning; the cleaning services (909…) are what it names.
    hits = _codes(alpha_client.get("/cpv/", {"term": "Reinigung"}).content.decode())
    assert hits[0].startswith("909") and "39000000" not in hits[:5]
    assert _codes(alpha_client.get("/cpv/", {"term": "9091"}).content.decode())[0] == "90910000"


@pytest.mark.django_db
def test_browses_from_divisions_down(alpha_client):
    divisions = _codes(alpha_client.get("/cpv/", {"code": ""}).content.decode())
    assert len(divisions) == 45 and divisions[0] == "03000000"
    html = alpha_client.get("/cpv/", {"code": "45000000"}).content.decode()
    assert _codes(html) == ["45100000", "45200000", "45300000", "45400000", "45500000"]
    assert 'data-testid="cpv-parent"' in html and "45000000 Bauarbeiten" in html


@pytest.mark.django_db
def test_nothing_found_is_said_and_hostile_terms_are_harmless(alpha_client):
    html = alpha_client.get("/cpv/", {"term": "<script>xyzzy</script>"}).content.decode()
    assert "Kein CPV-Code gefunden." in html and "<script>" not in html
    assert alpha_client.get("/cpv/", {"term": "Reinigung " * 2000}).status_code == 200  # cut to 100 characters


@pytest.mark.django_db
def test_one_picker_sits_in_search_and_profile_forms_without_inline_script(alpha_client):
    for url in ("/suche/", "/suchprofile/neu/"):
        html = alpha_client.get(url).content.decode()
        picker = html[html.index('data-testid="cpv-picker"') :]
        picker = picker[: picker.index("</fieldset>")]
        assert 'hx-get="/cpv/"' in picker and "<legend>CPV-Codes</legend>" in picker
        # One input for a word or a number; without JavaScript it takes codes as the filter itself.
        assert len(re.findall(r'<input[^>]*name="cpv"', html)) == 1
        assert 'type="search" id="id_cpv" name="cpv"' in picker
        assert "<script" not in picker and not re.search(r"\son[a-z]+=", picker)  # strict CSP: no inline code


@pytest.mark.django_db
def test_a_picked_code_filters_the_search(alpha_client, corpus):
    # A chosen code is a "cpv" parameter, a typed one (without JavaScript) too: both count.
    response = alpha_client.get("/suche/", {"cpv": ["90511000"], "order": "deadline"})
    assert [tender.title for tender in response.context["page"].object_list] == ["Abholung von Müll und Wertstoffen"]


@pytest.mark.django_db
def test_picker_requires_login(alpha):
    response = Client(HTTP_HOST=alpha.host).get("/cpv/", {"term": "Bau"})
    assert response.status_code == 302
