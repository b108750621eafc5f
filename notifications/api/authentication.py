"""API-key authentication: ``Authorization: Bearer <key>`` or ``X-Api-Key: <key>``.

A key belongs to the tenant whose schema it is stored in and acts for the user
who created it; a revoked key, or a key whose creator was removed or
deactivated, is refused. The request's user is that creator, ``request.auth``
the ApiKey row.
"""

from __future__ import annotations

from django.db import connection
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from notifications.api.selectors import api_key_for_secret
from notifications.api.services import KEY_PREFIX, api_key_touch

MAX_KEY_LENGTH = 200


def presented_key(request) -> str | None:
    header = authentication.get_authorization_header(request).decode("latin-1").strip()
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer":
            return value.strip()
        return None  # another scheme (e.g. Basic) is not ours to judge
    value = request.META.get("HTTP_X_API_KEY", "").strip()
    return value or None


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        key = presented_key(request)
        if key is None:
            return None
        if not key or len(key) > MAX_KEY_LENGTH or not key.startswith(KEY_PREFIX):
            raise exceptions.AuthenticationFailed("Ungültiger API-Schlüssel.", code="invalid_api_key")
        tenant = getattr(connection, "tenant", None)
        if tenant is not None and not getattr(tenant, "is_active", True):
            raise exceptions.AuthenticationFailed("Dieser Zugang ist deaktiviert.", code="tenant_inactive")
        api_key = api_key_for_secret(key)
        if api_key is None:
            raise exceptions.AuthenticationFailed("Ungültiger API-Schlüssel.", code="invalid_api_key")
        if api_key.revoked_at is not None:
            raise exceptions.AuthenticationFailed("Dieser API-Schlüssel wurde widerrufen.", code="api_key_revoked")
        user = api_key.created_by
        if user is None or not user.is_active:
            raise exceptions.AuthenticationFailed(
                "Die Person, die diesen Schlüssel angelegt hat, ist nicht mehr aktiv; bitte einen neuen anlegen.",
                code="api_key_owner_inactive",
            )
        api_key_touch(api_key=api_key, now=timezone.now())
        return user, api_key

    def authenticate_header(self, request) -> str:
        # Present so that missing credentials answer 401 (with this challenge), not 403.
        return 'Bearer realm="api"'


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "notifications.api.authentication.ApiKeyAuthentication"
    name = ["BearerAuth", "ApiKeyHeader"]

    def get_security_requirement(self, auto_schema):
        return [{"BearerAuth": []}, {"ApiKeyHeader": []}]  # either header, not both

    def get_security_definition(self, auto_schema):
        return [
            {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <API-Schlüssel>"},
            {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
        ]
