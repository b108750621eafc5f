"""The platform's own periodic task: the health snapshot the operators' readiness view reads.

It lives in config, not in an app's tasks module, because the report reads every app (the tenant
outboxes included) and only config's top layer may import them all. Thin: the work is
``config.health_checks.health_snapshot_refresh``. Registered through ``CELERY_IMPORTS`` (config is
no installed app, so autodiscovery does not see it); scheduled by ``PLATFORM_PERIODIC_TASKS``.
"""

from __future__ import annotations

from config.task_policy import public_task

HEALTH_SNAPSHOT_TASK = "config.health_snapshot"


@public_task(name=HEALTH_SNAPSHOT_TASK)
def health_snapshot_task() -> None:
    from config.health_checks import health_snapshot_refresh

    health_snapshot_refresh()
