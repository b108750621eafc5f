"""Pages map an ``ApplicationError`` a view let through to its status and German message."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpResponseNotFound
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.defaults import page_not_found

from kernel.errors import ApplicationError

_HEADINGS = {
    403: lambda: _("Keine Berechtigung."),
    404: lambda: _("Nicht gefunden."),
}


# The sentence of Django's debug 404 page (django/views/templates/technical_404.html).
_DEBUG_404_MARK = b"<code>DEBUG = True</code>"


def _is_debug_404(response) -> bool:
    return type(response) is HttpResponseNotFound and _DEBUG_404_MARK in response.content


class ApplicationErrorMiddleware:
    """400/403/404 with the error's messages; views that can show them beside a form catch them first.

    The demo (local settings: DEBUG on, ``DEMO_ENABLED``) shows the branded 404 page too: Django answers
    an unknown URL with its English debug page whenever DEBUG is on, before any view or handler404 runs,
    so the page is swapped here.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if settings.DEBUG and getattr(settings, "DEMO_ENABLED", False) and _is_debug_404(response):
            return page_not_found(request, Http404())
        return response

    def process_exception(self, request, exception):
        if not isinstance(exception, ApplicationError):
            return None  # anything else is a bug or Django's own (Http404, PermissionDenied)
        heading = _HEADINGS.get(exception.status, lambda: _("Das ging nicht."))()
        context = {"heading": heading, "messages_": exception.messages}
        return render(request, "application_error.html", context, status=exception.status)


# Request headers that are stored as they came (sign-in attempts keep them for operators). PostgreSQL text
# cannot hold NUL, and a control character in a stored header only ever misleads the reader of the log.
_STORED_HEADERS = ("HTTP_USER_AGENT", "HTTP_ACCEPT")


class StoredHeadersMiddleware:
    """Drops control characters from the headers sign-in attempts store, so no client can turn a failed
    sign-in into a 500 by sending a NUL in its User-Agent or Accept header."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        for name in _STORED_HEADERS:
            value = request.META.get(name)
            if isinstance(value, str) and not value.isprintable():
                request.META[name] = "".join(ch for ch in value if ch.isprintable())
        return self.get_response(request)
