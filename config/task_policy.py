"""What every task of the project shares: the schema it declares, and the one retry policy.

Every task is declared with ``tenant_task`` or ``public_task`` (instead of ``shared_task``):

- ``tenant_task``: runs in the schema of one tenant (sent with that schema in its headers). Run in
  the public schema (headers lost, or sent from a platform process by mistake) it is refused.
- ``public_task``: a platform job (ingest, sweeps, fan-outs) that runs in the public schema. Run in
  a tenant's schema it is refused: its reads would see that tenant's tables instead.

The check is made in one place, ``ProjectTask.__call__``, after tenant-schemas-celery switched
the connection to the schema of the message: a refused task logs an error with its name and the
schema, does no work and returns its ``refused_result`` (``None`` unless declared).

Retries: a task names what it retries on (``autoretry_for``) and nothing else. How long it waits
and how often it tries come from ``TASKS_RETRY_BACKOFF`` (a ``kernel.network.BackoffPolicy``), for
every task alike: ``retry_backoff``, ``retry_backoff_max``, ``retry_jitter``, ``max_retries`` and
``default_retry_delay`` are refused by the decorators. Time limits stay per queue
(``CELERY_QUEUE_TIME_LIMITS``, ``config.celery.QueueTimeLimits``).

Platform layer: imports ``kernel`` and Celery, no app.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Any, Literal

from celery import shared_task
from django.conf import settings
from django.db import connection
from tenant_schemas_celery.task import TenantTask

from kernel.network import BackoffPolicy

__all__ = ["TENANT", "PUBLIC", "ProjectTask", "public_task", "task_retry_policy", "tenant_task"]

logger = logging.getLogger(__name__)

TENANT: Literal["tenant"] = "tenant"
PUBLIC: Literal["public"] = "public"
SchemaNeed = Literal["tenant", "public"]

# Options the one policy decides; a task that sets them would have a retry behaviour of its own.
POLICY_OPTIONS = frozenset({"retry_backoff", "retry_backoff_max", "retry_jitter", "max_retries", "default_retry_delay"})


def task_retry_policy() -> BackoffPolicy:
    """The retry policy of every task (``TASKS_RETRY_BACKOFF``)."""
    return BackoffPolicy.from_setting(settings.TASKS_RETRY_BACKOFF)


def _public_schema_name() -> str:
    from django_tenants.utils import get_public_schema_name

    return get_public_schema_name()


class ProjectTask(TenantTask):
    """Base of every project task: the schema check before the body runs; waits from the one policy."""

    abstract = True
    needs_schema: SchemaNeed | None = None  # set by tenant_task / public_task
    refused_result: Any = None
    # Autoretry must not compute a wait of its own: ``retry`` below takes it from the policy.
    retry_backoff = False

    def schema_refusal(self) -> str | None:
        """Why this task must not run in the current schema, or None."""
        schema = getattr(connection, "schema_name", None)
        public = _public_schema_name()
        if self.needs_schema == TENANT and schema in (None, public):
            return f"{self.name} needs a tenant schema and was sent without one (runs in {schema!r}); ignored"
        if self.needs_schema == PUBLIC and schema != public:
            return f"{self.name} is a platform task for the public schema but runs in tenant schema {schema!r}; ignored"
        return None

    def __call__(self, *args, **kwargs):
        refusal = self.schema_refusal()
        if refusal is not None:
            logger.error(refusal)
            return copy.deepcopy(self.refused_result)
        return super().__call__(*args, **kwargs)

    def retry(
        self, args=None, kwargs=None, exc=None, throw=True, eta=None, countdown=None, max_retries=None, **options
    ):
        backoff = task_retry_policy()
        if countdown is None and eta is None:
            # retries so far + this failure = failed attempts
            countdown = backoff.wait_seconds(self.request.retries + 1)
        if max_retries is None:
            max_retries = backoff.max_attempts - 1
        return super().retry(
            args=args,
            kwargs=kwargs,
            exc=exc,
            throw=throw,
            eta=eta,
            countdown=countdown,
            max_retries=max_retries,
            **options,
        )


def _declare(needs_schema: SchemaNeed, name: str, refused: Any, options: dict[str, Any]) -> Callable:
    own = POLICY_OPTIONS.intersection(options)
    if own:
        raise TypeError(f"{name}: {', '.join(sorted(own))} come from TASKS_RETRY_BACKOFF, not from the task")
    if "base" in options:
        raise TypeError(f"{name}: every task is a ProjectTask")
    options.setdefault("acks_late", True)
    return shared_task(name=name, base=ProjectTask, needs_schema=needs_schema, refused_result=refused, **options)


def tenant_task(*, name: str, refused: Any = None, **options: Any) -> Callable:
    """Declare a task that runs in one tenant's schema (``refused``: what it returns when run elsewhere)."""
    return _declare(TENANT, name, refused, options)


def public_task(*, name: str, refused: Any = None, **options: Any) -> Callable:
    """Declare a platform task that runs in the public schema (``refused``: what it returns when run elsewhere)."""
    return _declare(PUBLIC, name, refused, options)
