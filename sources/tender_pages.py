"""A mail is a pointer, the portal is the source: requests of a tender's page, and their fetch.

An alert mail - however well authenticated - never writes shared tender data: its sender, its
receiving server and its text are all the mailbox owner's to forge (a tenant can point its
mailbox at its own IMAP server and stamp its own ``Authentication-Results``). What it may do is
name a tender. ``portal_page_requests_record`` turns each portal reference of a mail's notices
whose link host is an allowed host of a configured portal Source of that family into a
``PortalPageRequest`` for the page of that tender on that Source (URL built from the Source's
``base_url``, not taken from the mail), written in the mail run's transaction. The fetch task
(``sources.fetch_portal_page``, enqueued after commit, and swept by beat for what was missed)
calls ``portal_page_request_fetch``: one ``FetchRun`` of the portal Source (trigger
``portal_page``, scope: the reference) through the platform's ``Fetcher`` with that Source's
allowed hosts, politeness, robots.txt and SSRF guard, the page parsed by the portal's own
adapter code (``sources.adapters.portal_pages``) and ingested through the run loop exactly as a
crawl would (hand-off to matching included). What cannot be fetched (wall, robots, failure) is
recorded on the request with its reason.

A Source that is crawling already (one running run per Source) is not disturbed: the request
stays pending for the sweep.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.db import transaction
from django.utils import timezone
from django_tenants.utils import get_public_schema_name

from config.enqueue import enqueue_on_commit
from kernel.network import Fetcher, FetchPolicy
from kernel.records import NoticeRecord
from sources.adapters.base import FetchedBatch
from sources.adapters.mail.portals import bare_host
from sources.adapters.portal_pages import PAGE_FAMILIES, page_record, page_url
from sources.fetch_runs import fetch_run_execute, fetch_run_start
from sources.models import (
    MAILBOX_TRIGGER,
    PORTAL_PAGE_TRIGGER,
    FetchRun,
    FetchRunStatus,
    PortalPageRequest,
    PortalPageRequestStatus,
    Source,
)
from sources.registry import get_adapter
from sources.services import fetch_policy_for, source_config

logger = logging.getLogger(__name__)

__all__ = [
    "FETCH_TASK_NAME",
    "SWEEP_TASK_NAME",
    "portal_page_request_fetch",
    "portal_page_requests_record",
    "portal_page_requests_sweep",
]

FETCH_TASK_NAME = "sources.fetch_portal_page"  # sources.tasks.portal_page_request_fetch_task
SWEEP_TASK_NAME = "sources.sweep_portal_page_requests"
SWEEP_AFTER_SECONDS = 120  # younger pending requests still have their own task on the way
SWEEP_LIMIT = 200


def portal_page_requests_record(*, records: Iterable[NoticeRecord], now: datetime) -> list[PortalPageRequest]:
    """A pending request per fetchable portal reference of ``records`` (one per page however often named).

    Runs in the caller's transaction (the mail rows' one); the fetch tasks are sent after its commit.
    Returns the pending requests for the references found (new or already pending).
    """
    portals = _portal_sources()
    wanted: dict[tuple[int, str], PortalPageRequest] = {}
    for record in records:
        for reference in record.portal_references:
            request = _request_for(reference, link=record.url, portals=portals, now=now)
            if request is not None:
                wanted.setdefault((request.source_id, request.url), request)
    if not wanted:
        return []
    with transaction.atomic():
        # ON CONFLICT DO NOTHING: a page already pending (another tenant's mail) stays one request.
        PortalPageRequest.objects.bulk_create(wanted.values(), ignore_conflicts=True)
        pending = list(
            PortalPageRequest.objects.filter(
                status=PortalPageRequestStatus.PENDING,
                source_id__in={source for source, _ in wanted},
                url__in={url for _, url in wanted},
            )
        )
    pending = [request for request in pending if (request.source_id, request.url) in wanted]
    for request in pending:
        enqueue_on_commit(FETCH_TASK_NAME, args=[request.pk], schema=get_public_schema_name())
    return pending


def portal_page_request_fetch(
    *,
    request_id: int,
    now: datetime | None = None,
    fetcher_factory: Callable[[FetchPolicy], Fetcher] = Fetcher,
) -> PortalPageRequest | None:
    """Fetch and ingest the requested page once; a request no longer pending is left as it is (redelivery)."""
    request = (
        PortalPageRequest.objects.select_related("source")
        .filter(pk=request_id, status=PortalPageRequestStatus.PENDING)
        .first()
    )
    if request is None:
        return None
    source = request.source
    crawling = FetchRun.objects.filter(source=source, status=FetchRunStatus.RUNNING).exclude(trigger=MAILBOX_TRIGGER)
    if crawling.exists():
        return request  # pending: the sweep comes back when the Source's run is over
    run = fetch_run_start(source, trigger=PORTAL_PAGE_TRIGGER, scope=request.portal_reference[:200])
    if run.status == FetchRunStatus.SKIPPED:
        return request
    family, _, portal_id = request.portal_reference.partition(":")

    def produce():
        # Set up inside the run: a broken setup fails the run (and so the request), never leaves it running.
        adapter_class = get_adapter(source.adapter)
        settings = adapter_class.settings_for(source_config(source=source))
        with fetcher_factory(fetch_policy_for(source=source, adapter_class=adapter_class)) as fetcher:
            result = fetcher.get(request.url)
        record = page_record(
            family=family, source=source.key, base_url=settings["base_url"], portal_id=portal_id, result=result
        )
        yield FetchedBatch(records=(record,), bytes=len(result.body), requests=1, scope=request.portal_reference)

    try:
        outcome = fetch_run_execute(source, run, produce, persist_cursor=False)
    except Exception as exc:  # recorded on the run by fetch_run_execute; the request must not stay pending forever
        _done(request, status=PortalPageRequestStatus.FAILED, reason=f"internal: {type(exc).__name__}", run=run)
        raise
    status = {
        FetchRunStatus.SUCCEEDED: PortalPageRequestStatus.FETCHED,
        FetchRunStatus.PARTIAL: PortalPageRequestStatus.FETCHED,
        FetchRunStatus.BLOCKED: PortalPageRequestStatus.BLOCKED,
    }.get(outcome.run.status, PortalPageRequestStatus.FAILED)
    reason = "" if status == PortalPageRequestStatus.FETCHED else _reason(outcome.run)
    _done(request, status=status, reason=reason, run=outcome.run, now=now)
    return request


def portal_page_requests_sweep(*, now: datetime | None = None) -> int:
    """Send a fetch task for every request pending longer than its own task should have taken (beat)."""
    now = now or timezone.now()
    ids = list(
        PortalPageRequest.objects.filter(
            status=PortalPageRequestStatus.PENDING, requested_at__lt=now - timedelta(seconds=SWEEP_AFTER_SECONDS)
        )
        .order_by("requested_at")
        .values_list("pk", flat=True)[:SWEEP_LIMIT]
    )
    for request_id in ids:
        enqueue_on_commit(FETCH_TASK_NAME, args=[request_id], schema=get_public_schema_name())
    return len(ids)


# --- helpers --------------------------------------------------------------------------------------


def _portal_sources() -> list[tuple[Source, str, frozenset[str]]]:
    """Active portal Sources with their adapter family and bare allowed hosts (one query)."""
    portals = []
    families = {adapter: family for family, adapter in PAGE_FAMILIES.items()}
    for source in Source.objects.filter(is_active=True, adapter__in=families).order_by("key"):
        adapter_class = get_adapter(source.adapter)
        hosts = frozenset(bare_host(host) for host in adapter_class.allowed_hosts(source_config(source=source)))
        if hosts and isinstance(source.settings.get("base_url"), str):
            portals.append((source, families[source.adapter], hosts))
    return portals


def _request_for(reference: str, *, link: str, portals, now: datetime) -> PortalPageRequest | None:
    family, _, portal_id = reference.partition(":")
    if family not in PAGE_FAMILIES or not portal_id:
        return None
    try:
        host = bare_host(urlsplit(link).hostname or "")
    except ValueError:
        return None
    for source, source_family, hosts in portals:
        if source_family == family and host and host in hosts:
            settings = get_adapter(source.adapter).validate_settings(source.settings)
            url = page_url(family=family, portal_id=portal_id, base_url=settings["base_url"], link=link)
            if url:
                return PortalPageRequest(
                    source=source, url=url[:2000], portal_reference=reference[:250], requested_at=now
                )
    return None


def _reason(run: FetchRun) -> str:
    return f"{run.error_reason}: {run.error}" if run.error_reason else run.error


def _done(request: PortalPageRequest, *, status: str, reason: str, run: FetchRun, now: datetime | None = None) -> None:
    request.status = status
    request.reason = reason[:4000]
    request.done_at = now or timezone.now()
    request.run = run
    request.save(update_fields=["status", "reason", "done_at", "run"])
    logger.info("portal page %s of %s: %s %s", request.url, request.source_id, status, reason[:200])
