"""Current sign-in lockouts across every schema, for operators; and lifting one.

django-axes keeps attempts in the schema of the host that was asked (see
``accounts.login_throttle``), so the operators' console reads each tenant's
table in turn: two grouped queries per schema, only while someone looks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max, Sum
from django.utils import timezone
from django_tenants.utils import get_public_schema_name, schema_context

from accounts.models import Tenant


@dataclass(frozen=True)
class LoginLockout:
    schema_name: str
    tenant_name: str
    kind: str  # "username" or "ip_address"
    value: str
    failures: int
    locked_until: datetime


def _lockouts_in_schema(tenant: Tenant, *, now: datetime) -> list[LoginLockout]:
    window_start = now - settings.AXES_COOLOFF_TIME
    found = []
    with schema_context(tenant.schema_name):
        recent = AccessAttempt.objects.filter(attempt_time__gte=window_start)
        for kind in ("username", "ip_address"):
            groups = (
                recent.exclude(**{f"{kind}__isnull": True})
                .values(kind)
                .annotate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
                .filter(failures__gte=settings.AXES_FAILURE_LIMIT)
                .order_by("-last")
            )
            found += [
                LoginLockout(
                    schema_name=tenant.schema_name,
                    tenant_name=tenant.name,
                    kind=kind,
                    value=str(group[kind]),
                    failures=group["failures"],
                    locked_until=group["last"] + settings.AXES_COOLOFF_TIME,
                )
                for group in groups
            ]
    return found


def login_lockout_list(*, now: datetime | None = None) -> list[LoginLockout]:
    """Every account and address locked right now, operators' (public schema) first, then per tenant."""
    now = now or timezone.now()
    tenants = Tenant.objects.order_by("name")
    public = [t for t in tenants if t.schema_name == get_public_schema_name()]
    others = [t for t in tenants if t.schema_name != get_public_schema_name()]
    lockouts: list[LoginLockout] = []
    for tenant in public + others:
        lockouts += _lockouts_in_schema(tenant, now=now)
    return lockouts


def login_lockout_lift(*, schema_name: str, kind: str, value: str) -> int:
    """Forget the failed attempts behind one lockout (an operator vouched for the person); returns rows removed."""
    if kind not in ("username", "ip_address"):
        raise ValueError(f"unknown lockout kind {kind!r}")
    if not Tenant.objects.filter(schema_name=schema_name).exists():
        raise Tenant.DoesNotExist(schema_name)
    with schema_context(schema_name):
        deleted, _ = AccessAttempt.objects.filter(**{kind: value}).delete()
    return deleted
