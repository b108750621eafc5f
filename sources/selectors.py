"""Reads about sources: health for the operator console and digests, and what other code needs from the Source table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, JSONObject
from django_tenants.utils import get_tenant_model

from sources.adapters.mail.hosts import ADAPTER_FAMILIES, host_sources_from_rows, portal_domains_from_rows
from sources.models import (
    FAILED_RUN_STATUSES,
    MAILBOX_TRIGGER,
    SUCCEEDED_RUN_STATUSES,
    FetchRun,
    FetchRunStatus,
    Heartbeat,
    Source,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
RECENT_RUNS = 5  # runs whose yield the operator console shows per source


def source_health_list() -> QuerySet[Source]:
    """Sources annotated with their last run, last success, failures in a row, the list layout last seen
    and the yield of their recent runs (``recent_yields``: newest first, see :func:`run_yield`). No N+1.

    The mail source runs once per tenant mailbox: ``failing_mailboxes`` names the tenant schemas whose
    latest check failed, so one broken mailbox stays visible while the other tenants' checks succeed.
    A tenant that was deactivated or deleted is no longer checked, so its last failure is not listed.
    """
    runs = FetchRun.objects.filter(source=OuterRef("pk")).exclude(status=FetchRunStatus.RUNNING)
    last = runs.order_by("-started_at")
    last_success = runs.filter(status__in=SUCCEEDED_RUN_STATUSES).order_by("-started_at")
    last_success_started = (
        FetchRun.objects.filter(source=OuterRef(OuterRef("pk")), status__in=SUCCEEDED_RUN_STATUSES)
        .order_by("-started_at")
        .values("started_at")[:1]
    )
    failures_since_success = (
        FetchRun.objects.filter(
            source=OuterRef("pk"),
            status__in=FAILED_RUN_STATUSES,
            started_at__gt=Coalesce(Subquery(last_success_started), Value(_EPOCH)),
        )
        .values("source")
        .annotate(n=Count("pk"))
        .values("n")
    )
    later_check = FetchRun.objects.filter(
        source=OuterRef("source"),
        trigger=MAILBOX_TRIGGER,
        scope=OuterRef("scope"),
        started_at__gt=OuterRef("started_at"),
    ).exclude(status=FetchRunStatus.RUNNING)
    checked_tenants = get_tenant_model().objects.filter(is_active=True).values("schema_name")
    failing_mailboxes = (
        FetchRun.objects.filter(
            source=OuterRef("pk"), trigger=MAILBOX_TRIGGER, status__in=FAILED_RUN_STATUSES, scope__in=checked_tenants
        )
        .exclude(Exists(later_check))
        .order_by("scope")
        .values("scope")
    )
    return Source.objects.annotate(
        last_run_status=Subquery(last.values("status")[:1]),
        last_run_at=Subquery(last.values("started_at")[:1]),
        last_run_error=Subquery(last.values("error")[:1]),
        last_run_error_reason=Subquery(last.values("error_reason")[:1]),
        last_run_low_yield=Subquery(last.values("low_yield")[:1]),
        last_success_at=Subquery(last_success.values("finished_at")[:1]),
        last_fetched=Subquery(last_success.values("fetched")[:1]),
        last_new=Subquery(last_success.values("new")[:1]),
        last_changed=Subquery(last_success.values("changed")[:1]),
        failures_in_row=Coalesce(Subquery(failures_since_success, output_field=IntegerField()), Value(0)),
        last_layout=Subquery(last.exclude(layout="").values("layout")[:1]),
        failing_mailboxes=ArraySubquery(failing_mailboxes),
        recent_yields=ArraySubquery(
            last.values(json=JSONObject(status="status", fetched="fetched", layout="layout", pages="yield_report"))[
                :RECENT_RUNS
            ]
        ),
    ).order_by(F("key"))


def run_yield(run: dict) -> dict:
    """One entry of ``recent_yields`` as {status, fetched, layout, rows_seen, parsed, rejected}.

    ``rows_seen``/``parsed``/``rejected`` sum the run's list-page reports (None for runs
    without any, e.g. feeds and exports, where ``fetched`` is the yield).
    """
    pages = run.get("pages") or []
    seen = sum(int(page.get("rows_seen") or 0) for page in pages) if pages else None
    parsed = sum(int(page.get("parsed") or 0) for page in pages) if pages else None
    return {
        "status": run.get("status"),
        "fetched": run.get("fetched"),
        "layout": run.get("layout") or "",
        "rows_seen": seen,
        "parsed": parsed,
        "rejected": None if seen is None else seen - (parsed or 0),
    }


def fingerprint_rule_enabled() -> bool:
    """Cross-portal fingerprint merging only makes sense while at least two sources deliver.

    The ingest does not read source configuration: its callers ask here and pass the answer.
    """
    return Source.objects.filter(is_active=True).count() >= 2


def host_sources_current() -> dict[str, str]:
    """Bare host -> key of the Source that polls it, seeded defaults included (one query)."""
    rows = Source.objects.exclude(adapter="mail").order_by("key").values_list("key", "settings")
    return host_sources_from_rows(rows)


def portal_domains_current() -> dict[str, tuple[str, ...]]:
    """The portal families' domains for this installation, Sources' hosts added (one query)."""
    rows = Source.objects.filter(adapter__in=ADAPTER_FAMILIES).order_by("key").values_list("adapter", "settings")
    return portal_domains_from_rows(rows)


def source_by_key(*, key: str) -> Source | None:
    return Source.objects.filter(key=key).first()


def source_keys() -> list[str]:
    return list(Source.objects.order_by("key").values_list("key", flat=True))


SOURCE_NAMES_CACHE_SECONDS = 60


def source_names() -> dict[str, str]:
    """Display name of every source by key ("doe" → "DÖE …"); cached briefly, sources rarely change."""
    from django.core.cache import cache

    names = cache.get("source-names")
    if names is None:
        names = dict(Source.objects.values_list("key", "name"))
        cache.set("source-names", names, SOURCE_NAMES_CACHE_SECONDS)
    return names


def fetch_runs_by_ids(*, ids) -> list[FetchRun]:
    """The runs with these ids, oldest first, with their sources."""
    return list(FetchRun.objects.filter(pk__in=ids).select_related("source").order_by("pk"))


def heartbeat_at(*, name: str) -> datetime | None:
    """When the named scheduler last ticked (beat writes its heartbeat every minute), or None if never."""
    return Heartbeat.objects.filter(name=name).values_list("beat_at", flat=True).first()


def run_counts_since(*, since: datetime) -> dict[int, dict[str, Any]]:
    """Per source, the runs started since ``since``: how many, how many failed, were blocked, partial or low,
    and the failure reasons with their counts (for the operator digest). Mailbox checks are left out:
    they are each tenant's, named through ``source_health_list().failing_mailboxes``. Two queries."""
    runs = FetchRun.objects.filter(started_at__gte=since).exclude(trigger=MAILBOX_TRIGGER).order_by()
    counts = runs.values("source_id").annotate(
        runs=Count("pk"),
        failed=Count("pk", filter=Q(status=FetchRunStatus.FAILED)),
        blocked=Count("pk", filter=Q(status=FetchRunStatus.BLOCKED)),
        partial=Count("pk", filter=Q(status=FetchRunStatus.PARTIAL)),
        low_yield=Count("pk", filter=Q(low_yield=True)),
    )
    result = {row.pop("source_id"): {**row, "reasons": {}} for row in counts}
    reasons = (
        runs.filter(status__in=FAILED_RUN_STATUSES)
        .values("source_id", "error_reason")
        .annotate(n=Count("pk"))
        .order_by("source_id", "-n", "error_reason")
    )
    for row in reasons:
        result[row["source_id"]]["reasons"][row["error_reason"]] = row["n"]
    return result
