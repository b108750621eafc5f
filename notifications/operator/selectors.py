"""Reads across tenants for the operator console: mails and webhook events that are not (yet) sent.

Tenant outboxes live in each tenant's schema. One ``UNION ALL`` statement per chunk of
schemas reads them all (schema names come from the tenant table, quoted), each branch
already filtered, ordered and limited, so the cost grows with the rows shown, not with
the rows stored. Nothing here writes: deciding about a row is the tenant admin's job.
"""

# ruff: noqa: S608  (identifiers are quoted schema and table names from our own catalogue; values are parameters)

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection

from accounts.selectors import tenant_list_active, tenant_schema_chunks
from notifications.models import Delivery, DeliveryStatus, WebhookEvent

OPEN_STATUSES = (DeliveryStatus.PENDING, DeliveryStatus.SENDING, DeliveryStatus.FAILED, DeliveryStatus.UNCERTAIN)
DEFAULT_LIMIT = 500


@dataclass(frozen=True)
class OperatorDeliveryRow:
    tenant_schema: str
    tenant_name: str
    channel: str  # "mail" | "webhook"
    row_id: int
    kind: str  # mail kind (instant, digest, …) or webhook event name
    status: str
    created_at: datetime
    attempts: int
    last_error: str

    def age(self, now: datetime) -> timedelta:
        return now - self.created_at


def _branches(schema: str, statuses: Sequence[str], limit: int, params: list) -> list[str]:
    quoted = connection.ops.quote_name(schema)
    mail, event = Delivery._meta.db_table, WebhookEvent._meta.db_table
    params.extend([schema, list(statuses), limit, schema, list(statuses), limit])
    return [
        f"(SELECT %s::text AS tenant_schema, 'mail' AS channel, id, kind, status, created_at, attempts, last_error "
        f"FROM {quoted}.{connection.ops.quote_name(mail)} WHERE status = ANY(%s) "
        "ORDER BY created_at, id LIMIT %s)",
        # An event has no creation column; the moment it happened is in its payload.
        f"(SELECT %s::text, 'webhook', id, event, status, "
        "coalesce((payload->>'occurred_at')::timestamptz, next_attempt_at), attempts, last_error "
        f"FROM {quoted}.{connection.ops.quote_name(event)} WHERE status = ANY(%s) "
        "ORDER BY id LIMIT %s)",
    ]


def tenant_names_by_schema() -> dict[str, str]:
    """Company name of every active tenant by its schema (what the operator reads; schemas are internal)."""
    return dict(tenant_list_active().values_list("schema_name", "name"))


def deliveries_across_tenants(
    *,
    statuses: Sequence[str] = OPEN_STATUSES,
    limit: int = DEFAULT_LIMIT,
    tenants: Mapping[str, str] | None = None,
) -> list[OperatorDeliveryRow]:
    """The oldest ``limit`` mails and webhook events in ``statuses`` over every active tenant, oldest first.

    ``tenants`` (``tenant_names_by_schema()``) spares the tenant table a second read when the caller has it.
    """
    tenants = tenant_names_by_schema() if tenants is None else tenants
    rows: list[tuple] = []
    for chunk in tenant_schema_chunks(schemas=sorted(tenants)):
        params: list = []
        branches = [branch for schema in chunk for branch in _branches(schema, statuses, limit, params)]
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(branches), params)
            rows = heapq.nsmallest(limit, [*rows, *cursor.fetchall()], key=lambda row: (row[5], row[0], row[2]))
    return [
        OperatorDeliveryRow(
            tenant_schema=schema,
            tenant_name=tenants[schema],
            channel=channel,
            row_id=row_id,
            kind=kind,
            status=status,
            created_at=created_at,
            attempts=attempts,
            last_error=last_error,
        )
        for schema, channel, row_id, kind, status, created_at, attempts, last_error in rows
    ]


def delivery_counts_across_tenants(
    *, statuses: Sequence[str] = OPEN_STATUSES, schemas: Iterable[str] | None = None
) -> dict[str, dict[str, int]]:
    """Per tenant schema: how many mails and webhook events are in each of ``statuses`` (``schemas``: the
    active tenants' schemas, read here unless given)."""
    counts: dict[str, dict[str, int]] = {}
    for chunk in tenant_schema_chunks(schemas=schemas):
        params: list = []
        branches = []
        for schema in chunk:
            quoted = connection.ops.quote_name(schema)
            for model in (Delivery, WebhookEvent):
                table = connection.ops.quote_name(model._meta.db_table)
                params.extend([schema, list(statuses)])
                branches.append(
                    f"SELECT %s::text, status, count(*) FROM {quoted}.{table} WHERE status = ANY(%s) GROUP BY status"
                )
        with connection.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(branches), params)
            for schema, status, count in cursor.fetchall():
                per_status = counts.setdefault(schema, {})
                per_status[status] = per_status.get(status, 0) + count
    return counts
