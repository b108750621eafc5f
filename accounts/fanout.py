"""The one fan-out from a platform (public-schema) job to one task per tenant.

Tasks are sent by *name* with the tenant's schema in the message headers (tenant-schemas-celery
runs the task in that schema), so shared code (``tenders.handoff``) and the tenant app use the
same path without importing each other's tasks. By default each tenant whose task cannot be
enqueued is logged and skipped, so one broken tenant never stops the others; a caller whose next
sends would only wait for the same dead broker stops at the first failure
(``stop_at_first_failure``) and leaves the rest to its next round.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from accounts.selectors import tenant_list_active

__all__ = ["SCHEMA_HEADER", "FanOut", "tenants_fan_out"]

logger = logging.getLogger(__name__)

SCHEMA_HEADER = "_schema_name"  # read by tenant-schemas-celery on the worker


@dataclass
class FanOut:
    sent: list[str] = field(default_factory=list)
    not_sent: list[str] = field(default_factory=list)  # could not be enqueued, or not tried after a stop


def tenants_fan_out(
    *,
    task_name: str,
    schemas: Iterable[str] | None = None,
    kwargs: dict | None = None,
    jitter_seconds: float = 0.0,
    rng: random.Random | None = None,
    stop_at_first_failure: bool = False,
) -> FanOut:
    """Send ``task_name`` once per tenant schema (default: every active one), spread over ``jitter_seconds``."""
    from config.celery import app

    rng = rng or random.Random()  # noqa: S311 - spreading load, not security
    names = list(tenant_list_active().values_list("schema_name", flat=True) if schemas is None else schemas)
    result = FanOut()
    for index, schema_name in enumerate(names):
        countdown = rng.uniform(0, jitter_seconds) if jitter_seconds > 0 else None
        try:
            app.send_task(task_name, kwargs=kwargs or {}, countdown=countdown, headers={SCHEMA_HEADER: schema_name})
        except Exception:
            logger.warning("could not enqueue %s for tenant %s", task_name, schema_name, exc_info=True)
            if stop_at_first_failure:
                result.not_sent.extend(names[index:])
                break
            result.not_sent.append(schema_name)
        else:
            result.sent.append(schema_name)
    return result
