"""Running sources: what a poll, a backfill or an import of files reads, each as one FetchRun.

The run itself (one per source, batches into the tender ingest, failures recorded) is ``sources.fetch_runs``: a
run never raises into its caller for a source-level problem (network, wall, bad export), so the next source goes on.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from config.enqueue import enqueue_on_commit
from kernel.network import BackoffPolicy, Fetcher, FetchPolicy
from sources.adapters.base import FetchedBatch, SourceConfig
from sources.conditional import ConditionalFetcher
from sources.conditional_store import conditional_cache_load, conditional_cache_save
from sources.fetch_runs import RunOutcome, fetch_run_execute, fetch_run_finish, fetch_run_start
from sources.models import MAILBOX_TRIGGER, FetchRun, FetchRunStatus, Heartbeat, Source
from sources.parallel import parse_workers_scope
from sources.registry import get_adapter
from sources.selectors import host_sources_current
from tenders.services import raw_versions_known

logger = logging.getLogger(__name__)

POLL_NOW_TASK_NAME = "sources.poll_source_now"  # sources.tasks.source_poll_now_task


def source_config(*, source: Source, cursor: Mapping[str, Any] | None = None, **overrides) -> SourceConfig:
    return SourceConfig(
        key=source.key,
        adapter=source.adapter,
        settings={**source.settings, **overrides},
        cursor=dict(source.cursor if cursor is None else cursor),
        raw_versions=_raw_versions,
    )


def _raw_versions(source: str, keys) -> dict:
    return raw_versions_known(source=source, keys=keys)


def fetch_policy_for(*, source: Source, adapter_class) -> FetchPolicy:
    return FetchPolicy(
        user_agent=settings.SOURCES_USER_AGENT,
        allowed_hosts=adapter_class.allowed_hosts(source_config(source=source)),
        min_delay_seconds=source.politeness_seconds,
        jitter_seconds=min(1.0, source.politeness_seconds / 2),
        allow_loopback=settings.SOURCES_ALLOW_LOOPBACK,
        max_body_bytes=adapter_class.max_body_bytes,
        backoff=BackoffPolicy.from_setting(settings.SOURCES_FETCH_BACKOFF),
    )


def source_poll(
    *,
    source_id: int,
    trigger: str = "schedule",
    cursor: Mapping[str, Any] | None = None,
    settings_overrides: Mapping[str, Any] | None = None,
    now: datetime | None = None,
    fetcher_factory: Callable[[FetchPolicy], Fetcher] = Fetcher,
    on_batch: Callable[[FetchedBatch], None] | None = None,
    run_id: int | None = None,
    scope: str = "",
) -> RunOutcome:
    """Poll one source now. ``cursor`` replaces the stored cursor for this run only (backfills).

    ``scope`` labels the run from its start (a backfill's day), so a run that fails before its
    first batch still says what it was for; otherwise the first batch names it.

    ``on_batch`` is called after each batch is ingested (progress bars, the demo's list of notices).
    ``run_id`` names a run already recorded as queued (``source_poll_now_enqueue``); a run that has
    finished is not run again (a redelivered task is harmless).
    """
    source = Source.objects.get(pk=source_id)
    if run_id is not None:
        run = FetchRun.objects.get(pk=run_id, source=source)
        if run.finished_at is not None:
            return RunOutcome(run=run)
        run.started_at = timezone.now()
        run.save(update_fields=["started_at"])
    else:
        run = fetch_run_start(source, trigger=trigger, scope=scope)
        if run.status == FetchRunStatus.SKIPPED:
            return RunOutcome(run=run)
    persist_cursor = cursor is None

    def produce():
        # Set up inside the run (a generator runs in _execute): a broken setup ends it as failed, never "running".
        adapter_class = get_adapter(source.adapter)
        config = source_config(source=source, cursor=cursor, **(settings_overrides or {}))
        cache = conditional_cache_load(source=source) if adapter_class.conditional_requests else None
        with fetcher_factory(fetch_policy_for(source=source, adapter_class=adapter_class)) as fetcher:
            client = fetcher if cache is None else ConditionalFetcher(fetcher, cache)
            yield from adapter_class().fetch(config=config, fetcher=client, now=now or timezone.now())
        if cache is not None:
            # Reached only after the last batch was ingested: a failed run remembers no validators.
            conditional_cache_save(source=source, cache=cache)

    return fetch_run_execute(source, run, produce, persist_cursor=persist_cursor, on_batch=on_batch)


def source_backfill(
    *,
    source_id: int,
    days: Iterable[date],
    now: datetime | None = None,
    fetcher_factory: Callable[[FetchPolicy], Fetcher] = Fetcher,
    on_batch: Callable[[FetchedBatch], None] | None = None,
    on_run: Callable[[RunOutcome], None] | None = None,
) -> list[RunOutcome]:
    """One run per day (each from the day before's cursor, so a failed day stands alone in the runs).

    The days share one set of parse workers: their fork server imports the parsers once for the
    whole backfill, not once a day. ``on_run`` is called after each day's run (progress, reports).
    """
    outcomes = []
    with parse_workers_scope():
        for day in days:
            outcome = source_poll(
                source_id=source_id,
                trigger="backfill",
                scope=day.isoformat(),
                cursor={"last_day": (day - timedelta(days=1)).isoformat()},
                settings_overrides={"max_days_per_run": 1},
                now=now,
                fetcher_factory=fetcher_factory,
                on_batch=on_batch,
            )
            outcomes.append(outcome)
            if on_run:
                on_run(outcome)
    return outcomes


def source_ingest_files(*, source_key: str, paths: list[Path], on_batch=None) -> RunOutcome:
    """Import downloaded or saved material through exactly the polling path (no network)."""
    source = Source.objects.get(key=source_key)
    run = fetch_run_start(source, trigger="file", scope=", ".join(p.name for p in paths)[:200])
    if run.status == FetchRunStatus.SKIPPED:
        return RunOutcome(run=run)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        fetch_run_finish(
            run, status=FetchRunStatus.FAILED, reason="file_missing", error="Not found: " + ", ".join(missing)
        )
        return RunOutcome(run=run)
    return fetch_run_execute(
        source,
        run,
        lambda: get_adapter(source.adapter)().parse_files(
            config=dataclasses.replace(source_config(source=source), host_sources=host_sources_current()), paths=paths
        ),
        persist_cursor=False,
        on_batch=on_batch,
    )


def source_poll_now_enqueue(*, source_ids: list[int]) -> list[FetchRun]:
    """Poll these sources now (the active ones); returns their runs, recorded at once so the console can link them.

    Each run is written in this transaction and its task is sent after commit with the run's id,
    so a rolled-back request never starts a run. A source already running gets a ``skipped`` run
    (the console links it, it says why) and no task.
    """
    from django_tenants.utils import get_public_schema_name

    runs = []
    for source in Source.objects.filter(pk__in=source_ids, is_active=True).order_by("pk"):
        run = fetch_run_start(source, trigger="manual")
        runs.append(run)
        if run.status == FetchRunStatus.SKIPPED:
            continue
        # By task name: sources.tasks is the edge that calls this module, never the other way round.
        enqueue_on_commit(
            POLL_NOW_TASK_NAME, args=[source.pk], kwargs={"run_id": run.pk}, schema=get_public_schema_name()
        )
    return runs


def fetch_runs_fail_stuck(*, now: datetime | None = None) -> int:
    """Runs still "running" beyond their limit died with their process: record them as failed.

    Source runs get ``SOURCES_RUN_STUCK_SECONDS``; mailbox checks, which run on the notify queue with
    its much shorter time limit, ``SOURCES_MAILBOX_RUN_STUCK_SECONDS`` - until then the tenant's next
    checks are skipped (one running run per mailbox).
    """
    now = now or timezone.now()
    source_run_stuck = ~Q(trigger=MAILBOX_TRIGGER) & Q(
        started_at__lt=now - timedelta(seconds=settings.SOURCES_RUN_STUCK_SECONDS)
    )
    mailbox_run_stuck = Q(trigger=MAILBOX_TRIGGER) & Q(
        started_at__lt=now - timedelta(seconds=settings.SOURCES_MAILBOX_RUN_STUCK_SECONDS)
    )
    count = FetchRun.objects.filter(source_run_stuck | mailbox_run_stuck, status=FetchRunStatus.RUNNING).update(
        status=FetchRunStatus.FAILED,
        finished_at=now,
        error_reason="stuck",
        error="Lauf ohne Abschluss (Prozess beendet oder Zeitlimit erreicht); als fehlgeschlagen erfasst.",
    )
    if count:
        logger.warning("%d fetch runs were stuck in 'running' and are now failed", count)
    return count


def heartbeat_record(*, name: str, now: datetime | None = None) -> None:
    """A platform process (beat) says it is alive."""
    Heartbeat.objects.update_or_create(name=name, defaults={"beat_at": now or timezone.now()})
