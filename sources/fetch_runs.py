"""A FetchRun's life: started once per source, its batches ingested each in its own transaction, its outcome recorded.

A run never raises into its caller for a source-level problem (network, wall, bad export): the FetchRun is marked
failed or blocked with its reason. Programming errors still propagate after being recorded. The entry points that
choose what a run reads (a poll, a backfill, files, a mailbox, a tender's portal page) call ``fetch_run_start`` and
``fetch_run_execute``.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from celery.exceptions import SoftTimeLimitExceeded
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from kernel.links import records_links_checked
from kernel.network import Blocked, FetchError
from sources.adapters.base import AdapterError, FetchedBatch
from sources.adapters.yields import (
    UNINFORMATIVE_LAYOUTS,
    LayoutChanged,
    PageYield,
    SamplePage,
    run_rejected_too_much,
)
from sources.denylist import SourceDenied, ensure_not_denied
from sources.models import MAILBOX_TRIGGER, FetchRun, FetchRunStatus, Source
from sources.parallel import parse_workers_scope
from sources.selectors import fingerprint_rule_enabled
from tenders.handoff import delta_hand_off
from tenders.services import IngestDelta, notices_ingest, raw_hashes_store, raw_versions_seen

# A run that yields less than this share of its recent median is flagged (breakage alarm).
LOW_YIELD_SHARE = 0.2
LOW_YIELD_HISTORY = 10
# Triggers whose runs are judged by the alarm: periodic polls and periodic mailbox checks.
LOW_YIELD_TRIGGERS = ("schedule", MAILBOX_TRIGGER)
YIELD_REPORT_PAGES = 200  # per run; a run reads at most max_pages per category


@dataclass
class RunOutcome:
    """A run as it ended, with what its batches changed among tenders (for the caller's summary)."""

    run: FetchRun
    delta: IngestDelta = field(default_factory=IngestDelta)


def fetch_run_start(source: Source, *, trigger: str, scope: str = "") -> FetchRun:
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


def fetch_run_finish(run: FetchRun, *, status: str, reason: str = "", error: str = "") -> None:
    """The run's end: its status, when, and why (the reason a code of ``sources.run_words``, the error for people)."""
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


def fetch_run_execute(
    source: Source, run: FetchRun, produce: Callable[[], Iterable[FetchedBatch]], **kwargs
) -> RunOutcome:
    """Ingest what ``produce`` yields into ``run`` and record how the run ended (``_run_batches`` takes ``kwargs``)."""
    try:
        ensure_not_denied(what=f"Run of {source.key!r}", key=source.key, urls=source._denylist_urls())
        with parse_workers_scope():  # the run's parse workers end with it
            delta = _run_batches(source, run, produce(), **kwargs)
    except SourceDenied as exc:
        fetch_run_finish(run, status=FetchRunStatus.FAILED, reason="denylist", error=str(exc))
        return RunOutcome(run=run)
    except ValidationError as exc:  # unknown adapter type or settings it refuses: the operator must fix the Source
        fetch_run_finish(run, status=FetchRunStatus.FAILED, reason="configuration", error="; ".join(exc.messages))
        return RunOutcome(run=run)
    except LayoutChanged as exc:
        # The breakage alarm: the portal answered, but its list can no longer be read.
        _apply_yields(run, (exc.page_yield,), exc.sample)
        run.low_yield = True
        fetch_run_finish(run, status=FetchRunStatus.BLOCKED, reason=exc.reason, error=str(exc))
        return RunOutcome(run=run)
    except Blocked as exc:
        fetch_run_finish(run, status=FetchRunStatus.BLOCKED, reason=exc.reason or "blocked", error=str(exc))
        return RunOutcome(run=run)
    except (FetchError, AdapterError) as exc:
        fetch_run_finish(
            run, status=FetchRunStatus.FAILED, reason=getattr(exc, "reason", "") or "fetch", error=str(exc)
        )
        return RunOutcome(run=run)
    except SoftTimeLimitExceeded:
        # The batch in progress rolled back with its cursor; committed batches (and their deltas) stay.
        fetch_run_finish(
            run, status=FetchRunStatus.FAILED, reason="time_limit", error="Zeitlimit der Warteschlange erreicht."
        )
        return RunOutcome(run=run)
    except Exception as exc:
        fetch_run_finish(run, status=FetchRunStatus.FAILED, reason="internal", error=f"{type(exc).__name__}: {exc}")
        raise
    drift = run_rejected_too_much(run.yield_report)
    if drift:
        # What could be read was ingested; the run still must not look healthy.
        run.low_yield = True
        fetch_run_finish(run, status=FetchRunStatus.BLOCKED, reason=LayoutChanged.reason, error=drift)
        return RunOutcome(run=run, delta=delta)
    incomplete = run.missing or run.failed or run.refused or run.field_problems
    status = FetchRunStatus.PARTIAL if incomplete else FetchRunStatus.SUCCEEDED
    if _low_yield(source, run):
        run.low_yield = True
    fetch_run_finish(run, status=status)
    return RunOutcome(run=run, delta=delta)
