"""The operator console is German whatever the browser asks for.

Why: its own texts (columns, actions, pages, messages) are written in German only, while
Django's admin and the model names have English translations; following the browser's
``Accept-Language`` gave an English operator a console of two languages. The portal and the
API follow the user's choice as before.
"""

from __future__ import annotations

from functools import cached_property

from django.conf import settings
from django.urls import reverse
from django.utils import translation


class OperatorConsoleLanguageMiddleware:
    """Runs after ``LocaleMiddleware``: on the operators' host, pages under the console's root are German."""

    def __init__(self, get_response):
        self.get_response = get_response

    @cached_property
    def console_root(self) -> str:
        return reverse("admin:index", urlconf=settings.PUBLIC_SCHEMA_URLCONF)

    def __call__(self, request):
        tenant = getattr(request, "tenant", None)  # set by django-tenants' middleware, first in the chain
        if tenant is not None and tenant.is_public and request.path_info.startswith(self.console_root):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = settings.LANGUAGE_CODE
        return self.get_response(request)
