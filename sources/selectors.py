"""Reads about sources: health for the operator console and digests."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db.models import Count, F, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from sources.models import FetchRun, FetchRunStatus, Source

_FAILED = (FetchRunStatus.FAILED, FetchRunStatus.BLOCKED)
_OK = (FetchRunStatus.SUCCEEDED, FetchRunStatus.PARTIAL)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def source_health_list() -> QuerySet[Source]:
    """Sources annotated with their last run, last success and failures in a row (3 subqueries, no N+1)."""
    runs = FetchRun.objects.filter(source=OuterRef("pk")).exclude(status=FetchRunStatus.RUNNING)
    last = runs.order_by("-started_at")
    last_success = runs.filter(status__in=_OK).order_by("-started_at")
    last_success_started = (
        FetchRun.objects.filter(source=OuterRef(OuterRef("pk")), status__in=_OK)
        .order_by("-started_at")
        .values("started_at")[:1]
    )
    failures_since_success = (
        FetchRun.objects.filter(
            source=OuterRef("pk"),
            status__in=_FAILED,
            started_at__gt=Coalesce(Subquery(last_success_started), Value(_EPOCH)),
        )
        .values("source")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Source.objects.annotate(
        last_run_status=Subquery(last.values("status")[:1]),
        last_run_at=Subquery(last.values("started_at")[:1]),
        last_run_error=Subquery(last.values("error")[:1]),
        last_run_low_yield=Subquery(last.values("low_yield")[:1]),
        last_success_at=Subquery(last_success.values("finished_at")[:1]),
        last_fetched=Subquery(last_success.values("fetched")[:1]),
        last_new=Subquery(last_success.values("new")[:1]),
        last_changed=Subquery(last_success.values("changed")[:1]),
        failures_in_row=Coalesce(Subquery(failures_since_success, output_field=IntegerField()), Value(0)),
    ).order_by(F("key"))


SOURCE_NAMES_CACHE_SECONDS = 60


def source_names() -> dict[str, str]:
    """Display name of every source by key ("doe" → "DÖE …"); cached briefly, sources rarely change."""
    from django.core.cache import cache

    names = cache.get("source-names")
    if names is None:
        names = dict(Source.objects.values_list("key", "name"))
        cache.set("source-names", names, SOURCE_NAMES_CACHE_SECONDS)
    return names
