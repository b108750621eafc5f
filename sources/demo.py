"""Notices for the local demo: today's market when DÖE answers, the shipped real sample when not.

Both paths go through the product's own runs (``source_poll`` / ``source_ingest_files``), so
each leaves its FetchRun in the operator console and hands its delta to matching like any
other run. What the demo tells the user about its data (live window or sample date) is kept
in a small JSON file in the local data directory; the dashboard reads it (``demo_state``).

Live: the most recent closed days (default 7) of DÖE, one backfill run per day, and TED for
the same window in one run. Reachability is decided by one quick request to the DÖE host
before anything is fetched; a day that then fails is recorded as a failed run and the others
go on. Offline: the files in ``sources/demo_data`` (origin in its README), loaded in the
order they were published, so a change notice arrives after the notice it changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from kernel.network import Fetcher, FetchError, HttpStatusError
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import FetchedBatch
from sources.adapters.doe.options import DEFAULT_BASE_URL
from sources.models import FetchRun, Source
from sources.parallel import parse_workers_scope
from sources.registry import get_adapter
from sources.services import fetch_policy_for, source_backfill, source_ingest_files, source_poll
from tenders.models import TenderSource
from tenders.suggestions import search_vocabulary_refresh

DEMO_DATA = Path(__file__).resolve().parent / "demo_data"
# (source key, files loaded in one run), in publication order.
DEMO_FILES: tuple[tuple[str, tuple[str, ...]], ...] = (
    # A real German change notice (DÖE, 2023): the corrected prior information of a cleaning contract.
    ("doe", ("3e5ce20f-3f3e-4c9d-adad-abcc431581db-02.xml",)),
    ("ted", ("ted_eforms-sdk_cn_24_minimal.xml",)),
    ("ted", ("ted_eforms-sdk_change-cn_24_void.xml",)),
    # One German procedure as DÖE and TED published it (2026-06-01): one tender with both sources.
    ("doe", ("ebb72363-832d-4cea-8db6-04999414ea8c-01.xml",)),
    ("ted", ("ted_00373130-2026.xml",)),
    ("ted", ("ted_search_2026-07.json",)),
    ("doe", ("2026-09-14_ocds.zip", "2026-09-14_eforms.zip")),
)
STATE_FILE_NAME = "demo.json"
DEFAULT_DAYS = 7
PROBE_TIMEOUT_SECONDS = 5.0

Progress = Callable[..., object]  # tqdm-like: progress(total=…, desc=…, unit=…) -> object with update()/close()


@dataclass(frozen=True)
class DemoLoad:
    mode: str  # "live" | "offline"
    tender_ids: tuple[int, ...]
    run_ids: tuple[int, ...]
    first_day: date | None = None  # live: the fetched window
    last_day: date | None = None
    sample_day: date | None = None  # offline: publication day of the newest sample notice
    offline_reason: str = ""
    problems: tuple[str, ...] = field(default=())

    def as_state(self) -> dict:
        return {
            "mode": self.mode,
            "first_day": self.first_day.isoformat() if self.first_day else None,
            "last_day": self.last_day.isoformat() if self.last_day else None,
            "sample_day": self.sample_day.isoformat() if self.sample_day else None,
            "offline_reason": self.offline_reason,
            "loaded_at": timezone.now().isoformat(),
        }


def _tender_ids_of(keys: Iterable[tuple[str, str]]) -> tuple[int, ...]:
    """Tenders of the given (source, notice id) pairs, in one query per source."""
    by_source: dict[str, set[str]] = {}
    for source, notice_id in keys:
        by_source.setdefault(source, set()).add(notice_id)
    ids: set[int] = set()
    for source, notice_ids in by_source.items():
        ids.update(
            TenderSource.objects.filter(source=source, source_notice_id__in=notice_ids).values_list(
                "tender_id", flat=True
            )
        )
    return tuple(sorted(ids))


class _Collector:
    """Remembers the notices of every batch a run ingested (the delta alone misses unchanged ones)."""

    def __init__(self, progress=None):
        self.keys: list[tuple[str, str]] = []
        self.progress = progress

    def __call__(self, batch: FetchedBatch) -> None:
        self.keys.extend((r.source, r.source_notice_id) for r in batch.records)
        self.keys.extend((batch.raw_source, notice_id) for notice_id, _ in batch.unchanged_raw)
        if self.progress is not None:
            self.progress.update(1)


def demo_sample_load() -> DemoLoad:
    """Load the shipped real sample (idempotent: a second load finds every notice unchanged)."""
    collector = _Collector()
    runs: list[FetchRun] = []
    with parse_workers_scope():  # one set of parse workers for all the sample's runs
        for source_key, names in DEMO_FILES:
            outcome = source_ingest_files(
                source_key=source_key, paths=[DEMO_DATA / name for name in names], on_batch=collector
            )
            runs.append(outcome.run)
    tender_ids = _tender_ids_of(collector.keys)
    # "Meinten Sie …" reads a daily word list of titles: the demo's tenders are in it at once, not tomorrow.
    search_vocabulary_refresh()
    newest = (
        TenderSource.objects.filter(tender_id__in=tender_ids, tender__published_at__isnull=False)
        .order_by("-tender__published_at")
        .values_list("tender__published_at", flat=True)
        .first()
    )
    return DemoLoad(
        mode="offline",
        tender_ids=tender_ids,
        run_ids=tuple(run.pk for run in runs),
        sample_day=newest.astimezone(BERLIN).date() if newest else None,
        problems=tuple(f"{run.source.key}: {run.error}" for run in runs if run.error),
    )


def doe_unreachable_reason(*, timeout_seconds: float = PROBE_TIMEOUT_SECONDS) -> str:
    """ "" when the DÖE host answers at all (any HTTP status), else why not (DNS, refused, timeout, …).

    One request to the configured host's robots.txt with the source's own fetch policy (allowed
    hosts, SSRF guard, User-Agent), no retries and a short timeout: a machine without internet
    must fall back in seconds, not after the fetcher's full retry budget.
    """
    source = Source.objects.get(key="doe")
    adapter_class = get_adapter(source.adapter)
    base = str((source.settings or {}).get("base_url") or DEFAULT_BASE_URL).rstrip("/")
    policy = fetch_policy_for(source=source, adapter_class=adapter_class)
    policy = replace(
        policy,
        timeout_seconds=timeout_seconds,
        total_timeout_seconds=timeout_seconds * 2,
        backoff=replace(policy.backoff, max_attempts=1),
        respect_robots=False,
        min_delay_seconds=0,
        jitter_seconds=0,
    )
    try:
        with Fetcher(policy) as fetcher:
            fetcher.get(f"{base}/robots.txt")
    except HttpStatusError:
        return ""  # the server answered; a missing robots.txt is no network problem
    except FetchError as exc:
        return f"{exc.reason}: {exc}"
    return ""


def demo_window(*, days: int, now: datetime) -> tuple[date, date]:
    """The ``days`` most recent closed days in Europe/Berlin (yesterday is the last)."""
    last = now.astimezone(BERLIN).date() - timedelta(days=1)
    return last - timedelta(days=days - 1), last


def demo_live_load(
    *,
    days: int = DEFAULT_DAYS,
    now: datetime | None = None,
    progress: Progress | None = None,
    fetcher_factory=Fetcher,
) -> DemoLoad:
    """Fetch the window from DÖE (one run per day) and TED (one run, one batch per page)."""
    now = now or timezone.now()
    first, last = demo_window(days=days, now=now)
    collector = _Collector()
    runs: list[FetchRun] = []
    doe = Source.objects.get(key="doe")
    day_bar = progress(total=days, desc="DÖE", unit="Tag") if progress else None
    with parse_workers_scope():  # one set of parse workers for DÖE's days and TED
        outcomes = source_backfill(
            source_id=doe.pk,
            days=[first + timedelta(days=offset) for offset in range(days)],
            now=now,
            fetcher_factory=fetcher_factory,
            on_batch=collector,
            on_run=(lambda outcome: day_bar.update(1)) if day_bar is not None else None,
        )
        runs.extend(outcome.run for outcome in outcomes)
        if day_bar is not None:
            day_bar.close()
        ted = Source.objects.filter(key="ted", is_active=True).first()
        if ted is not None:
            page_bar = progress(total=None, desc="TED", unit="Seite") if progress else None
            collector.progress = page_bar
            outcome = source_poll(
                source_id=ted.pk,
                trigger="backfill",
                cursor={"last_day": (first - timedelta(days=1)).isoformat()},
                now=now,
                fetcher_factory=fetcher_factory,
                on_batch=collector,
            )
            runs.append(outcome.run)
            if page_bar is not None:
                page_bar.close()
    search_vocabulary_refresh()  # as after the sample load
    return DemoLoad(
        mode="live",
        tender_ids=_tender_ids_of(collector.keys),
        run_ids=tuple(run.pk for run in runs),
        first_day=first,
        last_day=last,
        problems=tuple(f"{run.source.key} {run.scope}: {run.error}" for run in runs if run.error),
    )


def demo_state_path() -> Path:
    return Path(settings.LOCAL_DATA_DIR) / STATE_FILE_NAME


def demo_state_save(load: DemoLoad) -> None:
    path = demo_state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(load.as_state(), indent=1))


def demo_state() -> dict | None:
    """What the last demo load was (mode, window or sample day), or None outside a demo."""
    try:
        data = json.loads(demo_state_path().read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("mode") in ("live", "offline") else None
