"""Polling schedules are data: one django-celery-beat PeriodicTask per Source, written here only."""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from sources.models import Source

TASK_PREFIX = "poll source "
# Jobs of this app are written here rather than declared in settings. The sweep of portal page requests
# an alert mail left pending (a lost task, a Source that was crawling):
PAGE_REQUEST_SWEEP = {
    "name": "sources: fetch requested portal pages",
    "task": "sources.sweep_portal_page_requests",
    "minutes": 5,
    "queue": "ingest",
    "description": "Fetches the portal pages alert mails pointed at whose own task did not finish them",
}

# The operators' daily mail about source health (sources.operator_digest): hourly, sent once per Berlin
# day from its hour on, so a beat that was down at that hour still sends it at the next tick.
OPERATOR_DIGEST = {
    "name": "sources: operator digest",
    "task": "sources.send_operator_digest",
    "minutes": 60,
    "queue": "notify",
    "description": "Mails the operators (staff accounts) once a day which sources failed, read little or went stale",
}
APP_JOBS = {job["name"]: job for job in (PAGE_REQUEST_SWEEP, OPERATOR_DIGEST)}


def schedules_sync() -> dict[str, int]:
    """Create or update one periodic task per source; disable those of inactive or deleted sources. Idempotent."""
    written = disabled = 0
    with transaction.atomic():
        wanted = set()
        for source in Source.objects.order_by("key"):
            interval, _ = IntervalSchedule.objects.get_or_create(
                every=max(1, source.schedule_minutes), period=IntervalSchedule.MINUTES
            )
            name = f"{TASK_PREFIX}{source.key}"
            wanted.add(name)
            PeriodicTask.objects.update_or_create(
                name=name,
                defaults={
                    "task": "sources.poll_source",
                    "interval": interval,
                    "crontab": None,
                    "args": json.dumps([source.pk]),
                    "enabled": source.is_active,
                    "queue": "ingest",
                    "description": f"Polls {source.name}",
                },
            )
            written += 1
        stale = PeriodicTask.objects.filter(name__startswith=TASK_PREFIX).exclude(name__in=wanted)
        disabled = stale.update(enabled=False)
        # Platform jobs (digest fan-out, expiry …) are declared in settings by name, so this shared
        # module needs no import of the apps that implement them.
        platform = {**settings.PLATFORM_PERIODIC_TASKS, **APP_JOBS}
        for name, spec in platform.items():
            interval, _ = IntervalSchedule.objects.get_or_create(every=spec["minutes"], period=IntervalSchedule.MINUTES)
            PeriodicTask.objects.update_or_create(
                name=name,
                defaults={
                    "task": spec["task"],
                    "interval": interval,
                    "crontab": None,
                    "args": "[]",
                    "enabled": True,
                    "queue": spec.get("queue", "ingest"),
                    "description": spec.get("description", ""),
                },
            )
            written += 1
    return {"written": written, "disabled": disabled}
