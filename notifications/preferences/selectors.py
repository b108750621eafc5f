"""Reads for the settings pages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet

from notifications.models import Delivery, DeliveryStatus, SavedSearch, WebhookEvent
from notifications.visibility import saved_search_name_visible


def saved_search_list_own(*, user: AbstractBaseUser) -> QuerySet[SavedSearch]:
    return SavedSearch.objects.filter(owner=user).order_by("name", "id")


def delivery_list(*, status: str = "", kind: str = "") -> QuerySet[Delivery]:
    """The outbox, newest first, with recipient user and profile joined; bodies are not loaded."""
    rows = (
        Delivery.objects.select_related("user", "saved_search")
        .defer("text_body", "html_body", "headers", "match_ids", "change_ids")
        .order_by("-created_at", "-id")
    )
    if status:
        rows = rows.filter(status=status)
    if kind:
        rows = rows.filter(kind=kind)
    return rows


def delivery_status_counts() -> dict[str, int]:
    """How many deliveries are in each status (one grouped query)."""
    return dict(Delivery.objects.order_by().values_list("status").annotate(n=Count("id")).values_list("status", "n"))


def webhook_event_list_open_decisions(*, limit: int = 100) -> QuerySet[WebhookEvent]:
    """Webhook events in the uncertain state (a person must decide), oldest first, without payloads."""
    return (
        WebhookEvent.objects.filter(status=DeliveryStatus.UNCERTAIN)
        .select_related("webhook", "webhook__saved_search")
        .defer("payload", "webhook__secret")
        .order_by("claimed_at", "id")[:limit]
    )


@dataclass(frozen=True)
class FailingProfile:
    """A saved search matching skips, as the tenant admin may see it (private names stay private)."""

    saved_search_id: int
    name: str  # empty for another person's private profile
    owner_email: str
    reason: str
    failing_since: datetime


def saved_search_list_failing(*, viewer: AbstractBaseUser) -> list[FailingProfile]:
    """Every failing saved search of the company; names of other people's private profiles are hidden."""
    rows = (
        SavedSearch.objects.filter(failing_since__isnull=False)
        .select_related("owner")
        .only("id", "name", "is_shared", "owner__email", "failing_since", "failing_reason")
        .order_by("failing_since", "id")
    )
    return [
        FailingProfile(
            saved_search_id=row.pk,
            name=row.name if saved_search_name_visible(saved_search=row, viewer=viewer) else "",
            owner_email=row.owner.email,
            reason=row.failing_reason,
            failing_since=row.failing_since,
        )
        for row in rows
    ]
