"""Reads for alert mails: the tenant's portal address, tenders to show, and what the tenant's own mailbox brought."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce

from accounts.models import Domain
from notifications.inbox.selectors import mailbox_settings_active
from notifications.models import SavedSearch, SmtpSettings
from sources.mail_runs import MAIL_SOURCE_KEY
from sources.models import FAILED_RUN_STATUSES, MAILBOX_TRIGGER, FetchRun, FetchRunStatus
from tenders.models import Tender

_MAIL_FIELDS = (
    "id",
    "title",
    "buyer_name",
    "postal_code",
    "town",
    "bundesland",
    "submission_deadline",
    "estimated_value",
    "currency",
    "status",
    "cpv_codes",
    "description",  # for the "why it matched" snippet
)


@dataclass(frozen=True)
class MailboxCoverage:
    new_since: int  # notices the tenant's alert mails brought since the previous digest
    last_run_status: str | None
    last_run_at: datetime | None

    @property
    def failing(self) -> bool:
        return self.last_run_status in FAILED_RUN_STATUSES


def tenant_base_url() -> str:
    """The portal address of the current tenant (``PORTAL_URL_FORMAT``, https://<primary domain> by default)."""
    domain = (
        Domain.objects.filter(tenant__schema_name=connection.schema_name)
        .order_by("-is_primary", "pk")
        .values_list("domain", flat=True)
        .first()
    )
    return settings.PORTAL_URL_FORMAT.format(domain=domain or settings.TENDER_RADAR_PUBLIC_HOST)


def tenders_for_mail(ids: Iterable[int]) -> dict[int, Tender]:
    return {t.pk: t for t in Tender.objects.filter(pk__in=list(ids)).only(*_MAIL_FIELDS).order_by()}


def mailbox_coverage(*, since: datetime) -> list[MailboxCoverage]:
    """The current tenant's own mailbox checks as one coverage row, when it has an active mailbox.

    The mail source is not polled for the platform: each tenant's mailbox is checked as a run of
    its own (``scope`` = schema).
    A tenant whose alert mails are read is told what they brought and whether the last check
    failed, and never about another tenant's mailbox.
    """
    if mailbox_settings_active() is None:
        return []
    runs = FetchRun.objects.filter(source__key=MAIL_SOURCE_KEY, trigger=MAILBOX_TRIGGER, scope=connection.schema_name)
    last = runs.exclude(status=FetchRunStatus.RUNNING).order_by("-started_at").values("status", "started_at").first()
    new_since = runs.aggregate(n=Coalesce(Sum("new", filter=Q(started_at__gte=since)), 0))["n"]
    return [
        MailboxCoverage(
            new_since=new_since,
            last_run_status=last["status"] if last else None,
            last_run_at=last["started_at"] if last else None,
        )
    ]


@dataclass(frozen=True)
class OutboxHealth:
    oldest_due_at: datetime | None  # the longest-waiting mail that is due and not sent
    uncertain: int  # mails a person has to decide about (see README, "Uncertain mails")


def outbox_health_all_tenants(*, now: datetime) -> OutboxHealth:
    """Across every active tenant, one statement per chunk of schemas (for /health/, public schema)."""
    from accounts.selectors import tenant_schema_chunks
    from notifications.models import Delivery, DeliveryStatus

    table = Delivery._meta.db_table
    oldest, uncertain = None, 0
    for chunk in tenant_schema_chunks():
        parts, params = [], []
        for schema in chunk:
            # Two index lookups per schema (delivery_due_idx leads with status), never a scan of sent mail.
            qualified = f"{connection.ops.quote_name(schema)}.{connection.ops.quote_name(table)}"
            parts.append(
                f"SELECT (SELECT min(next_attempt_at) FROM {qualified} WHERE status = %s AND next_attempt_at <= %s), "  # noqa: S608
                f"(SELECT count(*) FROM {qualified} WHERE status = %s)"
            )
            params += [DeliveryStatus.PENDING, now, DeliveryStatus.UNCERTAIN]
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(parts), params)
            for due_at, count in cursor.fetchall():
                uncertain += count
                if due_at is not None and (oldest is None or due_at < oldest):
                    oldest = due_at
    return OutboxHealth(oldest_due_at=oldest, uncertain=uncertain)


def instant_alerts_without_mail_route() -> bool:
    """Instant alerts are switched on somewhere in this company, but no mail can leave (no SMTP, no platform ESP)."""
    if SmtpSettings.objects.exists():
        return False
    if settings.ALERTS_PLATFORM_ESP_ENABLED and settings.ALERTS_PLATFORM_ESP_BACKEND:
        return False
    return SavedSearch.objects.filter(is_active=True, instant_alert=True, email_enabled=True).exists()
