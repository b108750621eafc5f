"""Running sources: one FetchRun per run, batches into the tender ingest, failures recorded.

A run never raises into its caller for a source-level problem (network, wall,
bad export): the FetchRun is marked failed/blocked with its reason and the
next source goes on. Programming errors still propagate after being recorded.
"""

from __future__ import annotations

import dataclasses
import logging
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from config.enqueue import enqueue_on_commit
from kernel.links import records_links_checked
from kernel.network import BackoffPolicy, Blocked, Fetcher, FetchError, FetchPolicy
from sources.adapters.base import AdapterError, FetchedBatch, SourceConfig
from sources.adapters.yields import (
    UNINFORMATIVE_LAYOUTS,
    LayoutChanged,
    PageYield,
    SamplePage,
    run_rejected_too_much,
)
from sources.conditional import ConditionalFetcher
from sources.conditional_store import conditional_cache_load, conditional_cache_save
from sources.denylist import SourceDenied, ensure_not_denied
from sources.models import MAILBOX_TRIGGER, FetchRun, FetchRunStatus, Heartbeat, Source
from sources.parallel import parse_workers_scope
from sources.registry import get_adapter
from sources.selectors import fingerprint_rule_enabled, host_sources_current
from tenders.handoff import delta_hand_off
from tenders.services import IngestDelta, notices_ingest, raw_hashes_store, raw_versions_known, raw_versions_seen

logger = logging.getLogger(__name__)

POLL_NOW_TASK_NAME = "sources.poll_source_now"  # sources.tasks.source_poll_now_task

# A run that yields less than this share of its recent median is flagged (breakage alarm).
LOW_YIELD_SHARE = 0.2
LOW_YIELD_HISTORY = 10
# Triggers whose runs are judged by the alarm: periodic polls and periodic mailbox checks.
LOW_YIELD_TRIGGERS = ("schedule", MAILBOX_TRIGGER)
YIELD_REPORT_PAGES = 200  # per run; a run reads at most max_pages per category


@dataclass
class RunOutcome:
    run: FetchRun
    delta: IngestDelta = field(default_factory=IngestDelta)


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


def _start_run(source: Source, *, trigger: str, scope: str = "") -> FetchRun:
    """A new running run, or a ``skipped`` one when this source is already running (one run per source)."""
    now = timezone.now()
    try:
        with transaction.atomic():
            return FetchRun.objects.create(source=source, started_at=now, trigger=trigger, scope=scope)
    except IntegrityError:  # fetchrun_one_running_per_source: another run holds the cursor
        running = FetchRun.objects.filter(source=source, status=FetchRunStatus.RUNNING)
        if trigger == MAILBOX_TRIGGER:
            running = running.filter(trigger=trigger, scope=scope)
        else:
            running = running.exclude(trigger=MAILBOX_TRIGGER)
        running = running.values_list("pk", flat=True)
        return FetchRun.objects.create(
            source=source,
            started_at=now,
            finished_at=now,
            trigger=trigger,
            scope=scope,
            status=FetchRunStatus.SKIPPED,
            error_reason="overlap",
            error=f"Lauf {running.first()} dieser Quelle läuft noch; dieser Lauf wurde nicht gestartet.",
        )


def _apply_batch(run: FetchRun, batch: FetchedBatch, delta: IngestDelta) -> None:
    run.fetched += len(batch.records) + len(batch.unchanged_raw)
    run.new += len(delta.created)
    run.changed += len(delta.changed) + len(delta.updated)
    run.unchanged += delta.unchanged
    run.failed += len(batch.problems)
    run.refused += batch.refused + sum(page.rejected_count for page in batch.yields)
    if batch.field_problems:
        counts = dict(run.field_problems or {})
        for problem in batch.field_problems:
            counts[problem.field] = counts.get(problem.field, 0) + 1
        run.field_problems = counts
    run.bytes += batch.bytes
    run.requests += batch.requests
    run.not_modified += batch.not_modified
    run.missing = [*run.missing, *batch.missing][:500]
    run.problems = [*run.problems, *batch.problems, *(problem.text for problem in batch.field_problems)][:500]
    if batch.scope and not run.scope:
        run.scope = batch.scope[:200]
    _apply_yields(run, batch.yields, batch.sample)


def _apply_yields(run: FetchRun, yields: tuple[PageYield, ...], sample: SamplePage | None) -> None:
    """The list pages' yield reports, the layout last seen, and the first sample page of the run."""
    if yields:
        run.yield_report = [*run.yield_report, *(y.as_json() for y in yields)][:YIELD_REPORT_PAGES]
        informative = [y.layout for y in yields if y.layout not in UNINFORMATIVE_LAYOUTS]
        if informative or not run.layout:
            run.layout = (informative or [yields[-1].layout])[-1][:40]
    if sample is not None and run.sample_page is None:
        run.sample_page = sample.body
        run.sample_page_url = sample.url


def _low_yield(source: Source, run: FetchRun) -> bool:
    """Breakage alarm: far fewer notices than the recent median of the same kind of run.

    A run with pages answered "not modified" re-read only what changed, and a mailbox check without
    new mail read nothing: their counts say nothing about the portal, so they are not judged and do
    not count in the median. Each tenant's mailbox (the run's scope) is judged against its own checks.
    """
    if run.trigger not in LOW_YIELD_TRIGGERS or run.not_modified:
        return False
    history = FetchRun.objects.filter(
        source=source, status=FetchRunStatus.SUCCEEDED, trigger=run.trigger, not_modified=0
    )
    if run.trigger == MAILBOX_TRIGGER:
        if not run.requests:
            return False
        history = history.filter(scope=run.scope, requests__gt=0)
    fetched = list(history.order_by("-started_at").values_list("fetched", flat=True)[:LOW_YIELD_HISTORY])
    if len(fetched) < 3:
        return False
    median = statistics.median(fetched)
    return median > 0 and run.fetched < median * LOW_YIELD_SHARE


def _finish(run: FetchRun, *, status: str, reason: str = "", error: str = "") -> None:
    run.status = status
    run.finished_at = timezone.now()
    run.error_reason = reason[:40]
    run.error = error[:4000]
    run.save()


def _run_batches(
    source: Source,
    run: FetchRun,
    batches: Iterable[FetchedBatch],
    *,
    persist_cursor: bool,
    on_batch=None,
    within_batch: Callable[[FetchedBatch, IngestDelta], None] | None = None,
) -> IngestDelta:
    """Each batch in its own transaction; ``within_batch`` writes what must commit with its notices (mail rows)."""
    total = IngestDelta()
    use_fingerprint = fingerprint_rule_enabled()  # once per run, not once per page
    for batch in batches:
        batch = _links_checked(batch)
        with transaction.atomic():
            delta = notices_ingest(records=batch.records, use_fingerprint=use_fingerprint)
            delta = _raw_kept(batch, delta)
            _apply_batch(run, batch, delta)
            if within_batch:
                within_batch(batch, delta)
            if persist_cursor and batch.cursor is not None:
                source.cursor = dict(batch.cursor)
                Source.objects.filter(pk=source.pk).update(cursor=source.cursor)
            run.save()
            delta_hand_off(delta)
        total = total.merged_with(delta)
        if on_batch:
            on_batch(batch)
    return total


def _raw_kept(batch: FetchedBatch, delta: IngestDelta) -> IngestDelta:
    """The batch's raw digests kept with its versions, and the versions it skipped unparsed marked seen."""
    raw_hashes_store(source=batch.raw_source, hashes=batch.raw_hashes)
    skipped = raw_versions_seen(versions=batch.unchanged_raw, source=batch.raw_source, now=timezone.now())
    return dataclasses.replace(delta, unchanged=delta.unchanged + skipped) if skipped else delta


def _links_checked(batch: FetchedBatch) -> FetchedBatch:
    """The ingest boundary of every adapter: links that are not http(s) with a host are dropped, each a problem."""
    checked = records_links_checked(batch.records)
    if not checked.problems:
        return batch
    return dataclasses.replace(batch, records=checked.records, problems=(*batch.problems, *checked.problems))


def _execute(source: Source, run: FetchRun, produce: Callable[[], Iterable[FetchedBatch]], **kwargs) -> RunOutcome:
    try:
        ensure_not_denied(what=f"Run of {source.key!r}", key=source.key, urls=source._denylist_urls())
        with parse_workers_scope():  # the run's parse workers end with it
            delta = _run_batches(source, run, produce(), **kwargs)
    except SourceDenied as exc:
        _finish(run, status=FetchRunStatus.FAILED, reason="denylist", error=str(exc))
        return RunOutcome(run=run)
    except ValidationError as exc:  # unknown adapter type or settings it refuses: the operator must fix the Source
        _finish(run, status=FetchRunStatus.FAILED, reason="configuration", error="; ".join(exc.messages))
        return RunOutcome(run=run)
    except LayoutChanged as exc:
        # The breakage alarm: the portal answered, but its list can no longer be read.
        _apply_yields(run, (exc.page_yield,), exc.sample)
        run.low_yield = True
        _finish(run, status=FetchRunStatus.BLOCKED, reason=exc.reason, error=str(exc))
        return RunOutcome(run=run)
    except Blocked as exc:
        _finish(run, status=FetchRunStatus.BLOCKED, reason=exc.reason or "blocked", error=str(exc))
        return RunOutcome(run=run)
    except (FetchError, AdapterError) as exc:
        _finish(run, status=FetchRunStatus.FAILED, reason=getattr(exc, "reason", "") or "fetch", error=str(exc))
        return RunOutcome(run=run)
    except SoftTimeLimitExceeded:
        # The batch in progress rolled back with its cursor; committed batches (and their deltas) stay.
        _finish(run, status=FetchRunStatus.FAILED, reason="time_limit", error="Zeitlimit der Warteschlange erreicht.")
        return RunOutcome(run=run)
    except Exception as exc:
        _finish(run, status=FetchRunStatus.FAILED, reason="internal", error=f"{type(exc).__name__}: {exc}")
        raise
    drift = run_rejected_too_much(run.yield_report)
    if drift:
        # What could be read was ingested; the run still must not look healthy.
        run.low_yield = True
        _finish(run, status=FetchRunStatus.BLOCKED, reason=LayoutChanged.reason, error=drift)
        return RunOutcome(run=run, delta=delta)
    incomplete = run.missing or run.failed or run.refused or run.field_problems
    status = FetchRunStatus.PARTIAL if incomplete else FetchRunStatus.SUCCEEDED
    if _low_yield(source, run):
        run.low_yield = True
    _finish(run, status=status)
    return RunOutcome(run=run, delta=delta)


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
        run = _start_run(source, trigger=trigger, scope=scope)
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

    return _execute(source, run, produce, persist_cursor=persist_cursor, on_batch=on_batch)


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
    run = _start_run(source, trigger="file", scope=", ".join(p.name for p in paths)[:200])
    if run.status == FetchRunStatus.SKIPPED:
        return RunOutcome(run=run)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        _finish(run, status=FetchRunStatus.FAILED, reason="file_missing", error="Not found: " + ", ".join(missing))
        return RunOutcome(run=run)
    return _execute(
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
        run = _start_run(source, trigger="manual")
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
