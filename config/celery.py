"""The Celery app. Every task message carries the schema it was sent from.

tenant-schemas-celery stores the current schema in the task headers and
switches the worker's connection to it before the task runs, so a task sent in
a tenant request works on that tenant's data and shared ingest tasks run in
the public schema.
"""

import os

from celery.signals import worker_process_init
from tenant_schemas_celery.app import CeleryApp

from config.loaded_objects import loaded_objects_freeze

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = CeleryApp("tender_radar")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _freeze_loaded_objects(**_kwargs) -> None:
    """Each worker process starts with the app and the tasks' modules loaded: the collector leaves them alone."""
    loaded_objects_freeze()


def queue_of(task_name: str) -> str:
    """The queue ``CELERY_TASK_ROUTES`` sends a task to (exact names first, then patterns in order, as Celery)."""
    from fnmatch import fnmatchcase

    from django.conf import settings

    routes = settings.CELERY_TASK_ROUTES
    if task_name in routes:
        return routes[task_name]["queue"]
    for pattern, route in routes.items():
        if fnmatchcase(task_name, pattern):
            return route["queue"]
    return settings.CELERY_TASK_DEFAULT_QUEUE


class QueueTimeLimits:
    """Task annotation: every task gets the soft and hard time limit of its queue (``CELERY_QUEUE_TIME_LIMITS``).

    A task that declares its own limits keeps them. The soft limit raises ``SoftTimeLimitExceeded``
    inside the task, so a source run can record itself as failed; the hard limit kills the worker
    child, which the sweep of stuck runs (``sources.fail_stuck_runs``) then records.
    """

    def annotate(self, task):
        from django.conf import settings

        if task.name is None or task.time_limit is not None or task.soft_time_limit is not None:
            return None
        limits = settings.CELERY_QUEUE_TIME_LIMITS.get(queue_of(task.name))
        if limits is None:
            return None
        soft, hard = limits
        return {"soft_time_limit": soft, "time_limit": hard}

    def annotate_any(self):
        return None
