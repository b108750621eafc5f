"""The operator console's page of open deliveries across tenants (read-only; staff only, via the admin site)."""

from __future__ import annotations

from django.contrib import admin
from django.template.response import TemplateResponse
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import DeliveryKind, DeliveryStatus
from notifications.operator.selectors import (
    OPEN_STATUSES,
    deliveries_across_tenants,
    delivery_counts_across_tenants,
    tenant_names_by_schema,
)

STATUS_LABELS = dict(DeliveryStatus.choices)
KIND_LABELS = dict(DeliveryKind.choices)  # a webhook row's kind is its event name, shown as it is


def operator_deliveries(request):
    """Mails and webhook events not sent yet, oldest first: state, tenant, age and the last error."""
    wanted = request.GET.get("status", "")
    statuses = (wanted,) if wanted in OPEN_STATUSES else OPEN_STATUSES
    now = timezone.now()
    with schema_context("public"):
        names = tenant_names_by_schema()
        rows = deliveries_across_tenants(statuses=statuses, tenants=names)
        counts = delivery_counts_across_tenants(schemas=names)
    context = {
        **admin.site.each_context(request),
        "title": "Zustellungen aller Mandanten",
        "rows": [
            (
                row,
                STATUS_LABELS.get(row.status, row.status),
                KIND_LABELS.get(row.kind, row.kind) if row.channel == "mail" else row.kind,
            )
            for row in rows
        ],
        "counts": sorted(
            (names.get(schema, schema), schema, [per_status.get(status, 0) for status in OPEN_STATUSES])
            for schema, per_status in counts.items()
        ),
        "statuses": [(status, STATUS_LABELS[status]) for status in OPEN_STATUSES],
        "selected": wanted if wanted in OPEN_STATUSES else "",
        "now": now,
    }
    return TemplateResponse(request, "admin/notifications/operator_deliveries.html", context)
