"""Sign-in throttling with django-axes: who is counted, for how long, and what a locked-out client sees.

Attempts are rows of ``axes.AccessAttempt`` in the schema of the host that was
asked: axes is installed in both schemas (settings ``APPS_IN_BOTH_SCHEMAS``), and
django-tenants' search path puts the tenant's own table first. So the failures of
``anna@firma.de`` on tenant A never count on tenant B, where an unrelated
``anna@firma.de`` may exist, and an address locked out on one host is still
served on every other. Operators see every schema's lockouts in the admin
(``accounts.selectors.login_lockout_list``).

Two counters run side by side (``AXES_LOCKOUT_PARAMETERS``): per account (the
sign-in name, normalised as users are stored) and per client address; either
one reaching ``AXES_FAILURE_LIMIT`` locks for ``AXES_COOLOFF_TIME``. The partner
API counts unknown API keys the same way (``notifications.api.authentication``).
"""

from __future__ import annotations

import ipaddress
import math
from datetime import timedelta

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_ip_address, get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.db import connection
from django.db.models import Max, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import ngettext


def attempt_username(request: HttpRequest, credentials: dict | None) -> str | None:
    """The account an attempt is counted against: user names are stored lower-case and trimmed."""
    if credentials and credentials.get("username") is not None:
        raw = credentials["username"]
    else:
        raw = getattr(request, "POST", {}).get("username")
    if raw is None:
        return None
    # Printable characters only: the name is stored, and PostgreSQL text cannot hold a NUL.
    return "".join(ch for ch in str(raw) if ch.isprintable()).strip().lower()[:255] or None


def client_ip(request: HttpRequest) -> str | None:
    """REMOTE_ADDR, or the address the trusted proxies saw (``TRUSTED_PROXY_COUNT`` hops from the right)."""
    address = request.META.get("REMOTE_ADDR")
    hops = settings.TRUSTED_PROXY_COUNT
    if hops > 0:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            address = forwarded[-hops]
    try:
        return str(ipaddress.ip_address(address or ""))
    except ValueError:
        return None  # not an address: axes then counts this attempt by account only


def lockout_remaining(request: HttpRequest, credentials: dict | None = None) -> timedelta:
    """How long the lockout that applies to this request still lasts (at least one minute)."""
    cool_off = get_cool_off(request) or timedelta(0)
    username = get_client_username(request, credentials)
    address = getattr(request, "axes_ip_address", None) or get_client_ip_address(request)
    clauses = Q()
    if username:
        clauses |= Q(username=username)
    if address:
        clauses |= Q(ip_address=address)
    last = AccessAttempt.objects.filter(clauses).aggregate(last=Max("attempt_time"))["last"] if clauses else None
    remaining = (last + cool_off - timezone.now()) if last else cool_off
    return max(remaining, timedelta(minutes=1))


def lockout_message(remaining: timedelta) -> str:
    minutes = max(1, math.ceil(remaining.total_seconds() / 60))
    return ngettext(
        "Zu viele fehlgeschlagene Anmeldeversuche. Die Anmeldung ist für %(minutes)d Minute gesperrt; "
        "bitte versuchen Sie es danach erneut.",
        "Zu viele fehlgeschlagene Anmeldeversuche. Die Anmeldung ist für %(minutes)d Minuten gesperrt; "
        "bitte versuchen Sie es danach erneut.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict | None = None
) -> HttpResponse:
    """What axes answers for a locked-out sign-in: 429 with the wait time, in the page the client asked for."""
    remaining = lockout_remaining(request, credentials)
    message = lockout_message(remaining)
    retry_after = str(max(60, math.ceil(remaining.total_seconds())))
    if request.path.startswith("/api/"):
        # The partner API's error shape (notifications.api.errors), which this shared app cannot import.
        response = JsonResponse({"error": {"code": "login_locked", "message": message, "fields": {}}}, status=429)
    elif request.path.startswith("/admin/"):
        from django.contrib import admin

        context = {**admin.site.each_context(request), "title": "Anmeldung gesperrt", "message": message}
        response = render(request, "admin/login_locked.html", context, status=429)
    else:
        response = render(request, "accounts/login_locked.html", {"message": message}, status=429)
    response["Retry-After"] = retry_after
    return response


class OneStatementAxesHandler(AxesDatabaseHandler):
    """django-axes' database handler whose lock check reads the failures of every lockout parameter
    (account, client address) in one statement; axes runs one per parameter, and every API request
    and sign-in checks them."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        totals, params = [], []
        for attempts in self.get_user_attempts(request, credentials):
            sql, attempt_params = attempts.order_by().values("failures_since_start").query.sql_with_params()
            # The ORM's own SQL for axes' querysets; every value stays a parameter.
            totals.append(f"(SELECT COALESCE(SUM(failures_since_start), 0) FROM ({sql}) AS attempts)")  # noqa: S608
            params.extend(attempt_params)
        if not totals:
            return 0
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT GREATEST({', '.join(totals)})", params)
            return int(cursor.fetchone()[0])
