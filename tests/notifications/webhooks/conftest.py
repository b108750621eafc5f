"""Tenders, profiles, matches and webhooks in tenant alpha, pointing at a real local HTTP server."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from kernel.vocabulary.time_zone import BERLIN
from notifications.models import MatchChange, SavedSearch, TenderMatch, Webhook, WebhookEvent
from notifications.webhooks.services import webhook_create, webhook_events_for_matches
from tenders.models import Tender
from tenders.services import notices_ingest
from tests.factories.records import NoticeRecordFactory

MATCHED_AT = datetime(2026, 9, 2, 8, 30, tzinfo=BERLIN)


def ingest_tenders(count: int = 1, **overrides) -> list[Tender]:
    """Real ingest into the public schema (tenders are shared facts)."""
    delta = notices_ingest(records=[NoticeRecordFactory(**overrides) for _ in range(count)], use_fingerprint=False)
    return list(Tender.objects.filter(pk__in=delta.created).order_by("pk"))


@dataclass
class Scene:
    """Alpha's admin with one profile, a webhook to the local server, and helpers to add matches."""

    search: SavedSearch
    webhook: Webhook
    secret: str

    def match(self, tender: Tender, search: SavedSearch | None = None) -> TenderMatch:
        return TenderMatch.objects.create(saved_search=search or self.search, tender=tender, matched_at=MATCHED_AT)

    def change(self, match: TenderMatch, *, kind: str, key: str, old: str = "", new: str = "") -> MatchChange:
        return MatchChange.objects.create(
            match=match, kind=kind, change_key=key, old_value=old, new_value=new, detected_at=timezone.now()
        )

    def matched_event(self, tender: Tender) -> WebhookEvent:
        """One tender.matched event, created through the service, as matching would."""
        match = self.match(tender)
        assert webhook_events_for_matches(match_ids=[match.pk]) == 1
        return WebhookEvent.objects.get(webhook=self.webhook, event_key=f"matched:{tender.pk}")


def build_scene(test_tenant, url: str) -> Scene:
    connection.set_tenant(test_tenant.tenant)
    admin = get_user_model().objects.get(username=test_tenant.admin_email)
    search = SavedSearch.objects.create(
        owner=admin, name="Dachsanierung Bayern", filters={"q": "Dach"}, active_since=timezone.now()
    )
    created = webhook_create(saved_search=search, url=url, created_by=admin)
    return Scene(search=search, webhook=created.webhook, secret=created.secret)


@pytest.fixture
def scene(alpha, httpserver) -> Scene:
    """In alpha's schema (connection switched), webhook URL on the local pytest-httpserver."""
    return build_scene(alpha, httpserver.url_for("/hook"))
