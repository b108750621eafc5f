"""Reads for the webhook settings pages."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Max, Q, QuerySet

from notifications.models import DeliveryStatus, SavedSearch, Webhook, WebhookEvent
from notifications.visibility import saved_search_visible

RECENT_EVENTS = 50


def webhook_saved_search_choices(*, user: AbstractBaseUser) -> QuerySet[SavedSearch]:
    """Profiles a tenant admin may connect: their own and shared ones.

    Another person's private profile is left out on purpose: a webhook would hand its
    matches to a third party without its owner knowing.
    """
    return saved_search_visible(user=user).order_by("name", "id")


def webhook_list() -> QuerySet[Webhook]:
    """Every webhook of the tenant with its profile and event counts, in one query."""
    return (
        Webhook.objects.select_related("saved_search", "saved_search__owner")
        .annotate(
            events_total=Count("events"),
            events_open=Count("events", filter=Q(events__status=DeliveryStatus.PENDING)),
            events_failed=Count(
                "events", filter=Q(events__status__in=[DeliveryStatus.FAILED, DeliveryStatus.UNCERTAIN])
            ),
            last_sent_at=Max("events__sent_at"),
        )
        .order_by("saved_search__name", "id")
    )


def webhook_event_list_recent(*, webhook: Webhook, limit: int = RECENT_EVENTS) -> list[WebhookEvent]:
    """The newest events of one webhook, without their (large) payloads."""
    return list(webhook.events.defer("payload").order_by("-id")[:limit])
