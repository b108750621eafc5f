"""The one way a service hands work to a worker: by task *name*, after commit, with its schema.

Services never import a tasks module (the tasks import the services, so the other direction would be
a cycle, and shared apps must not import the tenant app at all). They call ``enqueue_on_commit`` with
the task's name; the message is sent once the current transaction commits and never when it rolls
back. The schema the task must run in travels in the message headers (``SCHEMA_HEADER``, read by
tenant-schemas-celery on the worker): the one given, or else the schema the caller was in when it
asked, so a commit that happens after a schema switch still sends the task to the right tenant.

A broker that cannot take the message is logged with the task's name and otherwise ignored: nothing
is raised into the request or the commit. That is safe because every hand-off leaves a durable row
first (a delta, a delivery, a webhook event, a fetch run) and a beat sweep finds it.

This module is the platform layer: it imports no app (accounts, sources, tenders, notifications).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction

__all__ = ["SCHEMA_HEADER", "enqueue_on_commit", "send_now"]

logger = logging.getLogger(__name__)

SCHEMA_HEADER = "_schema_name"  # read by tenant-schemas-celery on the worker


def send_now(
    task_name: str,
    *,
    args: Sequence[Any] | None = None,
    kwargs: Mapping[str, Any] | None = None,
    schema: str | None = None,
    countdown: float | None = None,
) -> bool:
    """Send ``task_name`` at once; False (logged) when the broker refused or could not be reached.

    For callers outside a transaction that must know the outcome (the tenant fan-out); everything
    else uses ``enqueue_on_commit``.
    """
    from config.celery import app

    headers = {SCHEMA_HEADER: schema} if schema is not None else None
    try:
        app.send_task(
            task_name,
            args=list(args) if args is not None else None,
            kwargs=dict(kwargs) if kwargs is not None else {},
            countdown=countdown,
            headers=headers,
        )
    except Exception:  # any broker or connection error: the durable row is swept up later
        logger.warning(
            "could not enqueue %s (schema %s); the periodic sweep will pick its work up",
            task_name,
            schema or "-",
            exc_info=True,
        )
        return False
    return True


def enqueue_on_commit(
    task_name: str,
    *,
    args: Sequence[Any] | None = None,
    kwargs: Mapping[str, Any] | None = None,
    schema: str | None = None,
    countdown: float | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> None:
    """Send ``task_name`` once the current transaction commits (at once outside one); never on rollback.

    ``schema``: where the task runs; by default the schema of the connection now. Arguments are
    copied now, so later changes by the caller do not reach the message.
    """
    send = partial(
        send_now,
        task_name,
        args=tuple(args) if args is not None else None,
        kwargs=dict(kwargs) if kwargs is not None else None,
        schema=schema if schema is not None else getattr(connections[using], "schema_name", None),
        countdown=countdown,
    )
    transaction.on_commit(send, using=using)
