"""Outbox rows in a given state, for tests of what people and operators do with them."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import Delivery, SavedSearch, Webhook, WebhookEvent

LONG_AGO = timezone.now() - timezone.timedelta(days=3)


def delivery_in(schema: str, *, status: str, email: str, key: str = "", last_error: str = "") -> Delivery:
    with schema_context(schema):
        user = get_user_model().objects.get(username=email)
        return Delivery.objects.create(
            kind="instant",
            user=user,
            dedupe_key=key or f"{status}-{schema}-{Delivery.objects.count()}",
            recipient=user.email,
            subject=f"Neue Ausschreibung ({status})",
            text_body="…",
            status=status,
            attempts=1,
            last_error=last_error,
            next_attempt_at=LONG_AGO,
            claimed_at=LONG_AGO if status in ("sending", "uncertain") else None,
        )


def webhook_event_in(schema: str, *, status: str, email: str, last_error: str = "") -> WebhookEvent:
    with schema_context(schema):
        owner = get_user_model().objects.get(username=email)
        search, _ = SavedSearch.objects.get_or_create(
            owner=owner, name="Webhook-Profil", defaults={"filters": {"q": "Dach"}, "active_since": LONG_AGO}
        )
        webhook, _ = Webhook.objects.get_or_create(
            saved_search=search,
            defaults={"url": "https://partner.example/hook", "secret": "whsec_test", "created_by": owner},
        )
        number = WebhookEvent.objects.count()
        return WebhookEvent.objects.create(
            webhook=webhook,
            event="tender.matched",
            event_key=f"matched:{number}",
            payload={"id": f"evt-{number}", "event": "tender.matched", "occurred_at": LONG_AGO.isoformat()},
            status=status,
            attempts=1,
            last_error=last_error,
            next_attempt_at=LONG_AGO,
            claimed_at=LONG_AGO if status in ("sending", "uncertain") else None,
        )
