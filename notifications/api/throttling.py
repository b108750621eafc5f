"""Rate limits per API key (not per IP: partners run behind shared NAT and cloud egress).

Rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["api_key"]``. The cache
key names the tenant's schema and the key's id, so two tenants' keys with the
same id never share a bucket (the cache's key function adds the schema too).
"""

from __future__ import annotations

from django.db import connection
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from notifications.models import ApiKey


class ApiKeyRateThrottle(SimpleRateThrottle):
    scope = "api_key"

    def get_rate(self) -> str | None:
        # Read at request time (not import time) so operators' setting changes apply without a deploy.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view) -> str | None:
        if not isinstance(request.auth, ApiKey):
            return None  # unauthenticated requests are refused before they cost anything
        return self.cache_format % {"scope": self.scope, "ident": f"{connection.schema_name}:{request.auth.pk}"}
