"""Demo-only writes: three saved searches, the demo's initial matches, mails and webhook events, a local mail route.

Why an initial matching at all: a saved search sees only tenders first seen after it was
saved, so searches made for the demo after its notices were loaded would never match, and
a newcomer would see no alert. ``demo_initial_alerts_deliver`` therefore counts the demo's
searches as saved when the load began and runs the product's own matching (``delta_process``)
once over the loaded tenders, then makes the digest (``digest_create``) and sends everything
through the real outbox to the local mail catcher; the first search's webhook events go, signed,
to the local webhook receiver. It refuses any schema but the demo's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.utils import timezone

from notifications.alerts.deliveries import deliveries_send_due
from notifications.alerts.digest import digest_create
from notifications.alerts.selectors import tenant_base_url
from notifications.alerts.services import delta_process
from notifications.models import Delivery, DeliveryKind, SavedSearch, TlsMode, TriageStatus, Webhook
from notifications.portal.services import saved_search_create, triage_set
from notifications.preferences.services import smtp_settings_save, user_preference_ensure
from notifications.webhooks.delivery import webhook_events_send_due
from notifications.webhooks.services import webhook_create
from tenders.filters import TenderFilters
from tenders.models import Tender

DEMO_SCHEMA = "demo"
# Every status, so the sample (whose deadlines may be over) still matches once a default filter hides old tenders.
ALL_STATUSES = ("active", "expired", "awarded", "cancelled")


@dataclass(frozen=True)
class DemoSearch:
    name: str
    filters: TenderFilters
    instant_alert: bool


# Chosen to match the shipped sample and, live, a typical week of German tenders.
DEMO_SEARCHES = (
    DemoSearch(
        name="IT-Dienstleistungen und Software",
        filters=TenderFilters(cpv=("72",), status=ALL_STATUSES),
        instant_alert=True,
    ),
    DemoSearch(
        name="Bewachung und Sicherheitsdienste",
        filters=TenderFilters(q="Bewachung OR Sicherheitspersonal OR Sicherheitsdienst", status=ALL_STATUSES),
        instant_alert=True,
    ),
    DemoSearch(
        name="Feuerwehr und Fahrzeuge",
        filters=TenderFilters(cpv=("34",), status=ALL_STATUSES),
        instant_alert=False,  # digest only: the demo's digest has something of its own to tell
    ),
)


@dataclass(frozen=True)
class DemoAlerts:
    match_ids: tuple[int, ...]
    delivery_ids: tuple[int, ...]
    sent: int
    failed: int
    webhook_events_sent: int = 0


def _require_demo_tenant() -> None:
    if not getattr(settings, "DEMO_ENABLED", False):
        raise ImproperlyConfigured("the demo is switched off in these settings (DEMO_ENABLED)")
    if connection.schema_name != DEMO_SCHEMA:
        raise ImproperlyConfigured(f"demo services run only in the demo tenant, not in {connection.schema_name!r}")


def _demo_user(email: str):
    return get_user_model().objects.get(username=email)


def demo_searches_ensure(*, owner_email: str, active_since: datetime) -> list[SavedSearch]:
    """The three demo searches (by name, idempotent), active since ``active_since`` (the load's start)."""
    _require_demo_tenant()
    owner = _demo_user(owner_email)
    searches = []
    for spec in DEMO_SEARCHES:
        existing = SavedSearch.objects.filter(owner=owner, name=spec.name).first()
        if existing is None:
            existing = saved_search_create(
                owner=owner,
                name=spec.name,
                filters=spec.filters,
                instant_alert=spec.instant_alert,
                now=active_since,
            )
        searches.append(existing)
    return searches


def demo_mail_route_save(*, port: int, from_email: str) -> None:
    """The demo tenant mails through the local catcher on 127.0.0.1 (allowed by MAIL_ALLOW_LOOPBACK only)."""
    _require_demo_tenant()
    smtp_settings_save(
        host="127.0.0.1",
        port=port,
        tls_mode=TlsMode.NONE,
        username="",
        password="",
        from_email=from_email,
    )


def demo_webhook_ensure(*, owner_email: str, url: str) -> Webhook:
    """The first demo search's webhook, pointing at the local receiver (idempotent by URL).

    Plain http to 127.0.0.1 passes the target check only where local settings allow loopback
    webhooks (``WEBHOOKS_ALLOW_LOOPBACK``); production refuses it as before.
    """
    _require_demo_tenant()
    existing = Webhook.objects.filter(url=url).first()
    if existing is not None:
        return existing
    owner = _demo_user(owner_email)
    search = SavedSearch.objects.get(owner=owner, name=DEMO_SEARCHES[0].name)
    return webhook_create(saved_search=search, url=url, created_by=owner).webhook


def demo_initial_alerts_deliver(
    *, owner_email: str, tender_ids: Sequence[int], now: datetime | None = None
) -> DemoAlerts:
    """Match the demo load once, make the instant alerts and one digest, send them to the catcher."""
    _require_demo_tenant()
    now = now or timezone.now()
    user = _demo_user(owner_email)
    outcome = delta_process(created=list(tender_ids), changed={}, now=now)
    preference = user_preference_ensure(user=user)
    already = Delivery.objects.filter(user=user, kind=DeliveryKind.DIGEST).exists()
    if not already:  # one digest for the demo; the regular schedule makes the next ones
        digest_create(preference_id=preference.pk, now=now, base_url=tenant_base_url())
    summary = deliveries_send_due()
    hooks = webhook_events_send_due()  # to the local receiver, when the demo has its webhook
    return DemoAlerts(
        match_ids=outcome.match_ids,
        delivery_ids=tuple(Delivery.objects.filter(user=user).order_by("pk").values_list("pk", flat=True)),
        sent=summary.sent,
        failed=summary.failed + summary.retrying,
        webhook_events_sent=hooks.sent,
    )


@transaction.atomic
def demo_pipeline_seed(*, owner_email: str, tender_ids: Sequence[int]) -> int:
    """Put up to three of the demo's tenders (those with a deadline first) on the demo user's pipeline."""
    _require_demo_tenant()
    user = _demo_user(owner_email)
    picks = list(
        Tender.objects.filter(pk__in=list(tender_ids), submission_deadline__isnull=False)
        .order_by("-submission_deadline")
        .values_list("pk", flat=True)[:3]
    )
    statuses = (TriageStatus.INTERESTING, TriageStatus.REVIEWING, TriageStatus.APPLIED)
    for tender_id, status in zip(picks, statuses, strict=False):
        triage_set(user=user, tender_id=tender_id, status=status)
    return len(picks)
