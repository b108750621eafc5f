"""Fan-out from a platform (public-schema) task to one task per active tenant.

Each tenant task carries its schema (tenant-schemas-celery reads it from the
connection when the message is sent). A tenant whose task cannot be enqueued is
logged and skipped: one broken tenant never stops the others.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field

from django_tenants.utils import schema_context

from accounts.selectors import tenant_list_active

logger = logging.getLogger(__name__)


@dataclass
class FanOut:
    sent: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def tenants_fan_out(task, *, kwargs: dict | None = None, jitter_seconds: float = 0.0) -> FanOut:
    """Enqueue ``task`` once per active tenant, each start spread over ``jitter_seconds``."""
    result = FanOut()
    for schema_name in tenant_list_active().values_list("schema_name", flat=True):
        try:
            countdown = random.uniform(0, jitter_seconds) if jitter_seconds > 0 else None  # noqa: S311
            with schema_context(schema_name):
                task.apply_async(kwargs=kwargs or {}, countdown=countdown)
        except Exception:
            logger.exception("could not enqueue %s for tenant %s", task.name, schema_name)
            result.failed.append(schema_name)
        else:
            result.sent.append(schema_name)
    return result
