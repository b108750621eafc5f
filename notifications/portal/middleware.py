"""Signed-in users see the portal in the language stored in their preferences, on every device.

Runs after ``AuthenticationMiddleware``; ``LocaleMiddleware`` (earlier) has
already chosen a language from cookie/header, which this overrides for users
with a stored choice. The public (operator) host has no preference table.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.utils import translation
from django_tenants.utils import get_public_schema_name

from notifications.portal.signed_in import language_of


class UserLanguageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.languages = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request):
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and getattr(connection, "schema_name", get_public_schema_name()) != get_public_schema_name()
        ):
            # Read with the user (notifications.portal.backends) unless another backend signed them in.
            language = user.preferred_language if hasattr(user, "preferred_language") else language_of(user_id=user.pk)
            if language in self.languages:
                translation.activate(language)
                request.LANGUAGE_CODE = language
        return self.get_response(request)
