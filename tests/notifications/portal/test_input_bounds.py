"""Hostile or careless portal input: a 400 with a message (or the htmx fragment with it), never a 500."""

from __future__ import annotations

import pytest
from django_tenants.utils import schema_context

from notifications.models import SavedSearch

pytestmark = pytest.mark.django_db

BAD_SEARCHES = [
    ({"q": "Dach\x00"}, "Enthält unzulässige Steuerzeichen"),
    ({"q": "x" * 301}, "Zu lang: höchstens 300 Zeichen."),
    ({"cpv": "45\x00"}, "Enthält unzulässige Steuerzeichen"),
    ({"value_min": "1e131072"}, "höchstens 9.999.999.999.999.999,99 €"),
    ({"deadline_days": "²"}, "Frist in Tagen"),
    ({"published_since": "0001-01-01"}, "Bitte ein Datum zwischen 01.01.1900 und 31.12.2999 angeben."),
]


@pytest.mark.parametrize(("params", "message"), BAD_SEARCHES)
def test_search_answers_400_with_the_message(alpha_client, params, message):
    response = alpha_client.get("/suche/", params)
    assert response.status_code == 400
    assert message in response.content.decode()


@pytest.mark.parametrize(("params", "message"), BAD_SEARCHES[:2])
def test_the_htmx_fragment_shows_the_message(alpha_client, params, message):
    # htmx swaps only 2xx answers: the fragment carries the error list with 200.
    response = alpha_client.get("/suche/", params, headers={"HX-Request": "true"})
    assert response.status_code == 200 and message in response.content.decode()


def test_export_and_paging_with_bad_input_do_not_fail(alpha_client):
    export = alpha_client.get("/suche/export.csv", {"q": "Dach\x00"})
    assert export.status_code == 302
    assert alpha_client.get(export["Location"]).status_code == 400
    for page in ("²", "\x00", "9" * 30):
        assert alpha_client.get("/suche/", {"q": "Dach", "page": page}).status_code == 200
    assert alpha_client.get(f"/ausschreibung/{'9' * 30}/").status_code == 404


@pytest.mark.parametrize(("params", "message"), BAD_SEARCHES)
def test_saving_a_profile_with_bad_filters_answers_400(alpha, alpha_client, params, message):
    response = alpha_client.post("/suchprofile/neu/", {"name": "Grenzfall", **params})
    assert response.status_code == 400
    assert message in response.content.decode()
    preview = alpha_client.get("/suchprofile/vorschau/", params)
    assert preview.status_code == 200 and message in preview.content.decode()
    with schema_context(alpha.schema_name):
        assert not SavedSearch.objects.exists()


def test_a_second_profile_with_the_same_name_is_refused(alpha, alpha_client):
    assert alpha_client.post("/suchprofile/neu/", {"name": "Dach Bayern", "q": "Dach"}).status_code == 302
    again = alpha_client.post("/suchprofile/neu/", {"name": "dach  bayern", "q": "Dachsanierung"})
    assert again.status_code == 400
    assert "Sie haben bereits ein Suchprofil mit diesem Namen." in again.content.decode()
    with schema_context(alpha.schema_name):
        assert SavedSearch.objects.count() == 1


def test_model_forms_such_as_an_admin_check_stored_filters_by_the_same_rules(alpha, alpha_member):
    from django.forms import modelform_factory

    form_class = modelform_factory(SavedSearch, fields=["name", "filters"])
    bad = form_class(data={"name": "Admin", "filters": '{"value_min": "1e131072"}'})
    assert not bad.is_valid()
    assert "value_min: Bitte einen Betrag bis höchstens 9.999.999.999.999.999,99 € angeben." in bad.errors["filters"]
    assert form_class(data={"name": "Admin", "filters": '{"q": "Dach"}'}).is_valid()
