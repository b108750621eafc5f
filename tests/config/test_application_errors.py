"""One application error, mapped by every edge: API JSON, portal pages, admin messages, commands."""

from __future__ import annotations

import pytest
from django import forms
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages.storage.fallback import FallbackStorage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import RequestFactory
from django.utils import translation

from config.edges import ApplicationCommand, admin_refusal, form_refusal
from config.middleware import ApplicationErrorMiddleware
from kernel.errors import ApplicationError, NotFound, PermissionRefused
from notifications.alerts.sending import SendError
from notifications.api.errors import api_exception_handler
from notifications.outbox import OutboxDecisionRefused
from tenders.filters import FilterError


def test_the_domain_errors_are_application_errors_with_their_codes():
    assert FilterError({"plz": "PLZ-Anfang: 1 bis 5 Ziffern."}).code == "invalid_filters"
    assert FilterError({"plz": "x"}).errors == {"plz": "x"} == FilterError({"plz": "x"}).fields
    assert (SendError("abgelehnt").code, str(SendError("abgelehnt"))) == ("send_failed", "abgelehnt")
    refused = OutboxDecisionRefused("sent")
    assert (refused.code, refused.extra) == ("state_changed", {"status": "sent"})
    assert refused.text.startswith("Der Eintrag hat inzwischen einen anderen Status")
    for error in (FilterError({}), SendError(""), refused):
        assert isinstance(error, ApplicationError) and error.status == 400


def test_the_text_is_the_message_else_every_field_message():
    assert ApplicationError("Geht nicht.").text == "Geht nicht."
    assert ApplicationError(fields={"name": "fehlt", "note": "zu lang"}).text == "name: fehlt; note: zu lang"
    assert ApplicationError("Allgemein.", fields={"name": "fehlt"}).messages == ["Allgemein.", "fehlt"]


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (ApplicationError("Ungültig."), 400, "invalid"),
        (NotFound("Diese Ausschreibung gibt es nicht."), 404, "not_found"),
        (PermissionRefused("Nur für Administratoren."), 403, "permission_denied"),
        (ApplicationError("Doppelt.", code="duplicate_name"), 400, "duplicate_name"),
    ],
)
def test_the_api_answers_the_status_code_and_german_message(error, status, code):
    response = api_exception_handler(error, {})
    assert response.status_code == status
    assert response.data == {"error": {"code": code, "message": str(error.message), "fields": {}}}


def test_the_api_lists_field_messages_under_fields():
    response = api_exception_handler(FilterError({"plz": "PLZ-Anfang: 1 bis 5 Ziffern."}), {})
    assert response.status_code == 400
    assert response.data["error"]["code"] == "invalid_filters"
    assert response.data["error"]["fields"] == {"plz": ["PLZ-Anfang: 1 bis 5 Ziffern."]}
    assert response.data["error"]["message"].startswith("Ungültige Angaben")


def _page(error: ApplicationError):
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    middleware = ApplicationErrorMiddleware(lambda request: None)
    return middleware.process_exception(request, error)


@pytest.mark.django_db
@pytest.mark.parametrize(("error", "status"), [(ApplicationError("Ungültig."), 400), (NotFound("Weg."), 404)])
def test_portal_pages_show_the_message_with_the_status(error, status):
    with translation.override("de"):
        response = _page(error)
    assert response.status_code == status
    assert str(error.message) in response.content.decode()


@pytest.mark.django_db
def test_portal_pages_name_a_refusal_in_the_page_language():
    with translation.override("en"):
        response = _page(PermissionRefused("Nur für Administratoren."))
    assert response.status_code == 403
    page = response.content.decode()
    assert "Permission denied." in page and "Nur für Administratoren." in page


def test_other_exceptions_are_left_to_django():
    request = RequestFactory().get("/")
    assert ApplicationErrorMiddleware(lambda request: None).process_exception(request, ValueError("bug")) is None


def test_admin_actions_show_the_message_as_a_warning():
    request = RequestFactory().post("/")
    request.session = {}
    request._messages = FallbackStorage(request)

    class ModelAdmin:
        def message_user(self, request, message, level):
            request._messages.add(level, message)

    admin_refusal(ModelAdmin(), request, ApplicationError("Es gibt nichts abzutrennen."), subject="ted 1")
    assert [str(m) for m in request._messages] == ["ted 1: Es gibt nichts abzutrennen."]


def test_commands_end_with_the_message_not_a_traceback():
    class Command(ApplicationCommand):
        def handle(self, *args, **options):
            raise ApplicationError("Nicht erlaubt.", fields={"plz": "PLZ-Anfang: 1 bis 5 Ziffern."})

    with pytest.raises(CommandError, match="Nicht erlaubt.\nPLZ-Anfang: 1 bis 5 Ziffern."):
        call_command(Command())


@pytest.mark.django_db
def test_the_search_command_reports_bad_filters_as_a_command_error():
    with pytest.raises(CommandError, match="Steuerzeichen"):
        call_command("search", "Dach\x00")


class _NameForm(forms.Form):
    name = forms.CharField(required=False)


def _refused_form(error: ApplicationError) -> forms.Form:
    form = _NameForm({"name": "x"})
    assert form.is_valid()
    form_refusal(form, error)
    return form


def test_forms_show_field_messages_beside_their_field_and_the_rest_above():
    form = _refused_form(ApplicationError(fields={"name": "vergeben", "filters.cpv": "CPV falsch"}))
    assert form.errors["name"] == ["vergeben"]
    assert form.non_field_errors() == ["CPV falsch"]


def test_forms_keep_the_general_message_beside_field_messages():
    form = _refused_form(ApplicationError("Geht gerade nicht.", fields={"name": "vergeben"}))
    assert (form.non_field_errors(), form.errors["name"]) == (["Geht gerade nicht."], ["vergeben"])
    assert _refused_form(ApplicationError("Nur allgemein.")).non_field_errors() == ["Nur allgemein."]
