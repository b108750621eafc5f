"""Every API error is JSON of one shape: ``{"error": {"code", "message", "fields"}}``.

``fields`` maps a parameter (dotted for nested input, e.g. ``filters.cpv``) to
its messages; it is empty for errors that are not about one input. Messages
follow the request's language (German unless ``Accept-Language`` asks otherwise).
A service's ``kernel.errors.ApplicationError`` keeps its code and status (400, 403, 404).
An unreadable body is ``parse_error`` with our own message, never the parser's exception text.
"""

from __future__ import annotations

from django.http import JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from kernel.errors import ApplicationError
from notifications.api.parsers import BodyUnreadable, not_json_message


class FieldErrors(exceptions.ValidationError):
    """400 with messages per parameter; ``error_code`` names the kind of problem."""

    def __init__(self, fields: dict[str, str | list[str]], *, code: str = "invalid"):
        super().__init__({name: value if isinstance(value, list) else [value] for name, value in fields.items()})
        self.error_code = code


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as ``{"a.b": [messages]}``; general errors under ``""``."""
    if isinstance(detail, dict):
        out: dict[str, list[str]] = {}
        for key, value in detail.items():
            name = prefix if key == "non_field_errors" else f"{prefix}.{key}" if prefix else str(key)
            for sub, messages in _flatten(value, name).items():
                out.setdefault(sub, []).extend(messages)
        return out
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return {prefix: [str(item) for item in detail]}
        out = {}
        for index, item in enumerate(detail):
            for sub, messages in _flatten(item, f"{prefix}.{index}" if prefix else str(index)).items():
                out.setdefault(sub, []).extend(messages)
        return out
    return {prefix: [str(detail)]}


def error_body(*, code: str, message: str, fields: dict | None = None) -> dict:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def _application_error_response(exc: ApplicationError) -> Response:
    fields = {name: [str(message)] for name, message in exc.fields.items()}
    message = str(exc.message) or _("Ungültige Angaben; Details je Parameter unter „fields“.")
    return Response(error_body(code=exc.code, message=message, fields=fields), status=exc.status)


def api_exception_handler(exc, context):
    if isinstance(exc, ApplicationError):
        return _application_error_response(exc)
    response = exception_handler(exc, context)
    if response is None:
        return None  # a bug: let it surface as a 500 and reach error reporting
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        general = fields.pop("", [])
        message = " ".join(general) or _("Ungültige Angaben; Details je Parameter unter „fields“.")
        response.data = error_body(code=getattr(exc, "error_code", "invalid"), message=message, fields=fields)
        return response
    if isinstance(exc, exceptions.ParseError):
        # Parsers put the decoder's text (offsets, Python's exception message) into ParseError; only
        # ours say what to fix without it.
        code = "parse_error"
        message = str(exc.detail) if isinstance(exc, BodyUnreadable) else not_json_message()
    elif isinstance(exc, exceptions.NotAuthenticated):
        code = "not_authenticated"
        message = _("Bitte mit einem API-Schlüssel anmelden (Authorization: Bearer … oder X-Api-Key).")
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        message = str(exc.detail) if isinstance(exc.detail, str) else str(exc.default_detail)
    else:  # Http404 and PermissionDenied, which DRF turned into responses above
        code = "not_found" if response.status_code == 404 else "permission_denied"
        message = _("Nicht gefunden.") if response.status_code == 404 else _("Keine Berechtigung.")
    response.data = error_body(code=code, message=message)
    return response


def not_found(request, *args, **kwargs) -> JsonResponse:
    """Unknown paths under the API answer JSON too, not the portal's HTML page."""
    message = _("Unbekannter API-Pfad.")
    if not request.path.endswith("/"):
        try:
            resolved = resolve(request.path + "/")
        except Resolver404:
            resolved = None
        if resolved is not None and resolved.func is not not_found:
            message = _("Unbekannter API-Pfad; gemeint ist wohl %(path)s/ (mit Schrägstrich).") % {"path": request.path}
    return JsonResponse(error_body(code="not_found", message=message), status=404)
