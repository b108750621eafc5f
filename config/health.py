"""Health endpoints. ``/healthz``: liveness for load balancers (the database answers).

``/health/`` (public host): what an operator needs to see that the pipeline moves (see
``config.health_checks``). Any check past its limit (``HEALTH_*`` settings) makes the answer 503.
No tenant data: counts and ages only.
"""

from __future__ import annotations

from django.http import JsonResponse

from config.health_checks import database_ping, health_report


def health(request):
    """Liveness for load balancers: the database answers. No tenant data, no auth."""
    database_ping()
    return JsonResponse({"status": "ok"})


def health_detail(request):
    report = health_report()
    return JsonResponse(
        {"status": "ok" if report.ok else "failing", "checks": report.checks}, status=200 if report.ok else 503
    )
