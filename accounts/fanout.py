"""The one fan-out from a platform (public-schema) job to one task per tenant.

Tasks are sent by *name* with the tenant's schema in the message headers (tenant-schemas-celery
runs the task in that schema), so shared code (``tenders.handoff``) and the tenant app use the
same path without importing each other's tasks. By default each tenant whose task cannot be
enqueued is logged and skipped, so one broken tenant never stops the others; a caller whose next
sends would only wait for the same dead broker stops at the first failure
(``stop_at_first_failure``) and leaves the rest to its next round.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from accounts.selectors import tenant_schemas_active
from config.enqueue import SCHEMA_HEADER, send_now

__all__ = ["SCHEMA_HEADER", "FanOut", "tenants_fan_out"]


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
    rng = rng or random.Random()  # noqa: S311 - spreading load, not security
    names = tenant_schemas_active() if schemas is None else list(schemas)
    result = FanOut()
    for index, schema_name in enumerate(names):
        countdown = rng.uniform(0, jitter_seconds) if jitter_seconds > 0 else None
        # Sent now, not on commit: a beat sweep runs outside any transaction and must know what failed.
        if send_now(task_name, kwargs=kwargs or {}, schema=schema_name, countdown=countdown):
            result.sent.append(schema_name)
            continue
        if stop_at_first_failure:
            result.not_sent.extend(names[index:])
            break
        result.not_sent.append(schema_name)
    return result
