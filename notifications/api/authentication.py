"""API-key authentication: ``Authorization: Bearer <key>`` or ``X-Api-Key: <key>``.

A key belongs to the tenant whose schema it is stored in and acts for the user
who created it; a revoked key, or a key whose creator was removed or
deactivated, is refused. The request's user is that creator, ``request.auth``
the ApiKey row.

Guessing is throttled like a password sign-in (django-axes, ``accounts.login_throttle``):
every unknown key counts against the client address and against the presented key
itself (a keyed hash of all of it), in this tenant's schema; at either limit even
the right key is refused there with 429 and the wait time. Never against the key's
prefix alone: the prefix is listed in the portal and sits in logs, and wrong keys
sharing a real key's prefix would lock that key out from every address. So one
address guessing is stopped after the limit, and nobody can lock out a key they
do not hold. A revoked key or one of a departed user is a known key, not a guess,
and is refused without counting.
"""

from __future__ import annotations

import math
import re

from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth.signals import user_login_failed
from django.db import connection
from django.utils import timezone
from django.utils.crypto import salted_hmac
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from accounts.login_throttle import lockout_message, lockout_remaining
from notifications.api.selectors import api_key_for_secret
from notifications.api.services import KEY_PREFIX, PREFIX_LENGTH, api_key_touch

MAX_KEY_LENGTH = 200
_KEY_CHARACTERS = re.compile(r"[A-Za-z0-9_-]+")  # "tr_" and secrets.token_urlsafe's alphabet


def presented_key(request) -> str | None:
    header = authentication.get_authorization_header(request).decode("latin-1").strip()
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer":
            return value.strip()
        return None  # another scheme (e.g. Basic) is not ours to judge
    value = request.META.get("HTTP_X_API_KEY", "").strip()
    return value or None


class LoginLocked(exceptions.APIException):
    """429 with the German wait message; DRF's handler turns ``wait`` into Retry-After."""

    status_code = 429
    default_code = "login_locked"

    def __init__(self, *, wait: int, detail: str):
        super().__init__(detail=detail, code=self.default_code)
        self.wait = wait


def api_key_credentials(presented: str) -> dict:
    """What a key attempt is counted against, as an axes "account": the whole presented key.

    Stored as a keyed hash (never the key, nor its plain SHA-256, which ``ApiKey.key_hash`` holds),
    after the prefix operators recognise in the lockout list.
    """
    digest = salted_hmac("notifications.api.key-attempt", presented, algorithm="sha256").hexdigest()
    prefix = presented[:PREFIX_LENGTH]
    if not _KEY_CHARACTERS.fullmatch(prefix):  # a NUL or control character would fail the row's INSERT
        prefix = "?"
    return {"username": f"api-key:{prefix}:{digest}"}


def _storable_client_details(http_request) -> None:
    """axes stores the client's User-Agent, Accept and path as sent, and PostgreSQL text cannot hold a
    NUL: a guess with ``User-Agent: a\\x00b`` would fail the attempt's INSERT (a 500, uncounted)."""
    AxesProxyHandler.update_request(http_request)
    for name in ("axes_user_agent", "axes_http_accept", "axes_path_info"):
        value = getattr(http_request, name, None)
        if isinstance(value, str) and "\x00" in value:
            setattr(http_request, name, value.replace("\x00", "\ufffd"))


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        key = presented_key(request)
        if key is None:
            return None
        http_request = request._request  # axes marks and reads the Django request, as the middleware sees it
        credentials = api_key_credentials(key)
        if not AxesProxyHandler.is_allowed(http_request, credentials):
            remaining = lockout_remaining(http_request, credentials)
            raise LoginLocked(wait=math.ceil(remaining.total_seconds()), detail=lockout_message(remaining))
        tenant = getattr(connection, "tenant", None)
        if tenant is not None and not getattr(tenant, "is_active", True):
            raise exceptions.AuthenticationFailed("Dieser Zugang ist deaktiviert.", code="tenant_inactive")
        api_key = None
        if key and len(key) <= MAX_KEY_LENGTH and key.startswith(KEY_PREFIX):
            api_key = api_key_for_secret(key)
        if api_key is None:
            _storable_client_details(http_request)
            user_login_failed.send(sender=type(self), credentials=credentials, request=http_request)
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
