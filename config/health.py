"""Health endpoints.

``/healthz`` and ``/health/`` (every host): liveness for load balancers and uptime checks. One
``SELECT 1``, no broker round trip, no tenant schema read, no internals: ``{"status": "ok"}`` or 503.
They are open to anyone, so they must stay cheap: a flood of them must not slow a tenant's pages.

``/health/ready/`` (public host): readiness for operators, the stored snapshot of every check
(``config.health_checks``; computed by the periodic task ``config.health_snapshot``, never by the
request) with its age; 503 when a check failed or the snapshot is older than
``HEALTH_SNAPSHOT_MAX_AGE_SECONDS``. Only a signed-in console operator or a caller with the
``HEALTH_TOKEN`` bearer token sees it; anyone else gets 404 (401 for a wrong token), because
worker counts, queue ages and mail counts are a map for an attacker.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import Http404, JsonResponse

from config.health_checks import database_ping, health_snapshot_read


def health(request):
    """Liveness: the database answers. No tenant data, no auth, nothing slow."""
    try:
        database_ping()
    except Exception:
        return JsonResponse({"status": "unavailable"}, status=503)
    return JsonResponse({"status": "ok"})


def _bearer_token(request) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _is_operator(request) -> bool:
    # The console's own rule (admin.site.has_permission): an active staff account of the public schema.
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_active and user.is_staff)


def health_ready(request):
    token = _bearer_token(request)
    if token is not None:
        expected = settings.HEALTH_TOKEN
        # Constant time, so the token cannot be guessed byte by byte; no token configured: none is right.
        if not expected or not hmac.compare_digest(token.encode(), expected.encode()):
            response = JsonResponse({"status": "unauthorized"}, status=401)
            response["WWW-Authenticate"] = 'Bearer realm="health"'
            return response
    elif not _is_operator(request):
        raise Http404
    snapshot = health_snapshot_read()
    response = JsonResponse(
        {
            "status": snapshot.status,
            "computed_at": snapshot.computed_at.isoformat() if snapshot.computed_at else None,
            "age_seconds": snapshot.age_seconds,
            "limit_seconds": snapshot.limit_seconds,
            "checks": snapshot.checks,
        },
        status=200 if snapshot.ok else 503,
    )
    response["Cache-Control"] = "no-store"
    return response
