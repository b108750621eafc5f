"""Helpers for alert tests: tenders through the real ingest, saved searches, SMTP settings, waiting."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django_tenants.utils import schema_context

from notifications.models import Delivery, DeliveryStatus, SavedSearch, SmtpSettings, TlsMode, UserPreference
from tenders.filters import TenderFilters
from tenders.handoff import delta_hand_off
from tenders.services import IngestDelta, notices_ingest
from tests.factories.records import NoticeRecordFactory

LONG_AGO = datetime(2020, 1, 1, tzinfo=timezone.get_fixed_timezone(0))


def ingest(*records, now: datetime | None = None, hand_off: bool = False) -> IngestDelta:
    """Tenders through the real ingest; ``hand_off`` also sends the delta to matching like a source run does."""
    with schema_context("public"), transaction.atomic():
        delta = notices_ingest(records=list(records), now=now, use_fingerprint=False)
        if hand_off:
            delta_hand_off(delta)  # exactly what a source run does after its batch
    return delta


def notice(**overrides):
    return NoticeRecordFactory(**overrides)


def changed_notice(record, **changes):
    """The next version of the same notice with some fields changed."""
    from dataclasses import replace

    return replace(record, version=f"{int(record.version) + 1:02d}", **changes)


def user(email: str):
    return get_user_model().objects.get(username=email)


def saved_search(owner, *, name: str = "Dach Bayern", active_since: datetime = LONG_AGO, **filters) -> SavedSearch:
    instant = filters.pop("instant_alert", False)
    email = filters.pop("email_enabled", True)
    return SavedSearch.objects.create(
        owner=owner,
        name=name,
        filters=TenderFilters(**filters).to_json(),
        instant_alert=instant,
        email_enabled=email,
        active_since=active_since,
    )


def preference(owner, **fields) -> UserPreference:
    pref, _ = UserPreference.objects.update_or_create(user=owner, defaults=fields)
    return pref


def smtp_to(server) -> SmtpSettings:
    return SmtpSettings.objects.create(
        host=server.host, port=server.port, tls_mode=TlsMode.NONE, from_email="radar@alpha.example"
    )


def wait_for(predicate, *, timeout: float = 20.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def outbox_settled(*schemas: str) -> bool:
    """No row of these tenants is waiting to be sent now (pending-and-due, or being sent)."""
    now = timezone.now()
    for schema in schemas:
        with schema_context(schema):
            busy = (
                Delivery.objects.filter(status=DeliveryStatus.SENDING).exists()
                or Delivery.objects.filter(
                    status=DeliveryStatus.PENDING, next_attempt_at__lte=now + timedelta(seconds=1)
                ).exists()
            )
            if busy:
                return False
    return True


def settle(*schemas: str, quiet_seconds: float = 1.0) -> None:
    """Wait until the worker has nothing left to send for these tenants, then a little longer."""
    wait_for(lambda: outbox_settled(*schemas), what="outbox to settle")
    time.sleep(quiet_seconds)
    wait_for(lambda: outbox_settled(*schemas), what="outbox to settle")
