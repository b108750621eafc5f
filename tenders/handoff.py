"""The hand-off from the ingest to matching: a durable delta row, dispatched until every tenant matched it.

Protocol (see docs/architecture.md, "The hand-off"):

1. ``delta_hand_off`` writes the batch's delta (``TenderDelta``) in the batch's own transaction.
2. After commit it asks a worker, by task *name*, to dispatch (``tenders.dispatch_deltas``). That
   works from any process (worker, web, management command) because nothing is looked up in a
   task registry; a broker that is down at that moment costs nothing but a log line.
3. ``deltas_dispatch`` (that task, and the same task every minute from beat) sends one
   ``notifications.match_pending_deltas`` per tenant that still has a delta without its
   completion row. Shared code never imports the tenant side: it addresses the task by name and
   carries the schema in the message headers.
4. The tenant task takes every delta pending for it (``deltas_pending``), matches them as one
   (``deltas_coalesce``) and records its completions (``deltas_complete``) in the same transaction
   as the matches: a delta is matched at least once per tenant and its matches exist once.
5. A delta every tenant has completed gets ``completed_at``; completed deltas are deleted after
   ``HANDOFF_DELTA_RETENTION_DAYS``. A tenant created after a delta never receives it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django_tenants.utils import get_public_schema_name

from accounts.fanout import tenants_fan_out
from accounts.selectors import tenant_list_active
from config.enqueue import enqueue_on_commit
from tenders.models import TenderDelta, TenderDeltaCompletion
from tenders.services import IngestDelta

DISPATCH_TASK_NAME = "tenders.dispatch_deltas"
TENANT_TASK_NAME = "notifications.match_pending_deltas"


def delta_hand_off(delta: IngestDelta, *, now: datetime | None = None) -> TenderDelta | None:
    """Record the batch's delta in the current transaction; after commit, ask a worker to dispatch it."""
    if not delta.created and not delta.changed:
        return None  # "updated" rows (a new source attached, nothing tracked) change nothing a tenant matches
    row = TenderDelta.objects.create(
        created_at=now or timezone.now(),
        created_ids=sorted({int(i) for i in delta.created}),
        changed={str(k): v for k, v in delta.changed.items()},
    )
    # A broker that is down costs a log line: the delta is committed, the periodic dispatch finds it.
    enqueue_on_commit(DISPATCH_TASK_NAME, schema=get_public_schema_name())
    return row


def _pending_deltas(*, tenant, tenant_created_at):
    """Deltas written at or after the tenant was created that it has not completed (values or outer references)."""
    done = TenderDeltaCompletion.objects.filter(delta=OuterRef("pk"), tenant=tenant)
    return TenderDelta.objects.filter(completed_at__isnull=True, created_at__gte=tenant_created_at).exclude(
        Exists(done)
    )


def deltas_mark_completed(*, now: datetime) -> int:
    """Deltas every active tenant (existing when they were written) has completed; returns how many."""
    waiting_tenant = tenant_list_active().filter(created_at__lte=OuterRef("created_at"))
    waiting_tenant = waiting_tenant.exclude(
        Exists(TenderDeltaCompletion.objects.filter(delta=OuterRef(OuterRef("pk")), tenant=OuterRef("pk")))
    )
    return (
        TenderDelta.objects.filter(completed_at__isnull=True).exclude(Exists(waiting_tenant)).update(completed_at=now)
    )


def tenants_with_pending_deltas() -> list[str]:
    """Schemas of active tenants with at least one delta to match (one query)."""
    pending = _pending_deltas(tenant=OuterRef(OuterRef("pk")), tenant_created_at=OuterRef("created_at"))
    return list(tenant_list_active().filter(Exists(pending)).values_list("schema_name", flat=True))


@dataclass
class Dispatch:
    completed: int = 0
    purged: int = 0
    sent: list[str] = field(default_factory=list)
    not_sent: list[str] = field(default_factory=list)


def deltas_dispatch(*, now: datetime | None = None) -> Dispatch:
    """Close finished deltas, purge old ones, and send one matching task to every tenant with pending deltas.

    A broker failure stops the round (the next one, a minute later, starts over): with the broker
    down, every further send would only wait for its own timeout.
    """
    now = now or timezone.now()
    result = Dispatch(completed=deltas_mark_completed(now=now))
    retention = timedelta(days=settings.HANDOFF_DELTA_RETENTION_DAYS)
    result.purged, _ = TenderDelta.objects.filter(completed_at__lt=now - retention).delete()
    fan_out = tenants_fan_out(
        task_name=TENANT_TASK_NAME, schemas=tenants_with_pending_deltas(), stop_at_first_failure=True
    )
    result.sent, result.not_sent = fan_out.sent, fan_out.not_sent  # not sent: the next dispatch retries
    return result


@dataclass(frozen=True)
class PendingDelta:
    id: int
    created_ids: tuple[int, ...]
    changed: Mapping[str, Mapping[str, list]]


def deltas_pending(*, tenant_id: int, tenant_created_at: datetime, limit: int) -> list[PendingDelta]:
    """The oldest deltas this tenant has not completed, written at or after it was created."""
    rows = (
        _pending_deltas(tenant=tenant_id, tenant_created_at=tenant_created_at)
        .order_by("id")
        .values_list("id", "created_ids", "changed")[:limit]
    )
    return [PendingDelta(id=pk, created_ids=tuple(created), changed=changed or {}) for pk, created, changed in rows]


def deltas_coalesce(deltas: Iterable[PendingDelta]) -> tuple[tuple[int, ...], dict[int, dict[str, list]]]:
    """Several deltas as one: every created id once; per changed field the first old and the last new value.

    Deltas must come oldest first. A field changed A→B then B→C is one change A→C, which is what a
    reader of the result wants to hear about (a deadline moved twice is told once, with its final value).
    """
    created: dict[int, None] = {}
    changed: dict[int, dict[str, list]] = {}
    for delta in deltas:
        created.update(dict.fromkeys(int(i) for i in delta.created_ids))
        for key, fields in delta.changed.items():
            if not isinstance(fields, Mapping):
                continue
            tender = changed.setdefault(int(key), {})
            for name, pair in fields.items():
                if not isinstance(pair, Sequence) or isinstance(pair, str) or len(pair) != 2:
                    continue
                tender[str(name)] = [tender[str(name)][0] if str(name) in tender else pair[0], pair[1]]
    return tuple(created), changed


def deltas_complete(*, tenant_id: int, delta_ids: Sequence[int], now: datetime) -> None:
    """Record that this tenant matched these deltas (call inside the transaction that wrote the matches)."""
    TenderDeltaCompletion.objects.bulk_create(
        [TenderDeltaCompletion(delta_id=pk, tenant_id=tenant_id, processed_at=now) for pk in delta_ids],
        ignore_conflicts=True,
    )


def deltas_oldest_pending_age(*, now: datetime | None = None) -> timedelta | None:
    """How long the oldest delta has been waiting for some tenant (None: nothing pending)."""
    oldest = (
        TenderDelta.objects.filter(completed_at__isnull=True)
        .order_by("created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    return None if oldest is None else (now or timezone.now()) - oldest
