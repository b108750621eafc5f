"""Reads for the settings pages."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet

from notifications.models import Delivery, DeliveryStatus, SavedSearch, TenderMatch, WebhookEvent
from notifications.visibility import saved_search_name_visible
from sources.models import ApprovedForwarder
from tenders.models import Tender


def approved_forwarder_choices() -> list[tuple[str, str]]:
    """The forwarding senders an operator approved, as (key, label) for the mailbox form."""
    return [
        (entry.key, f"{entry.sender_domain} ({entry.get_family_display()})")
        for entry in ApprovedForwarder.objects.order_by("sender_domain", "family")
    ]


def saved_search_list_own(*, user: AbstractBaseUser) -> QuerySet[SavedSearch]:
    return SavedSearch.objects.filter(owner=user).order_by("name", "id")


def delivery_list(*, status: str = "", kind: str = "") -> QuerySet[Delivery]:
    """The outbox, newest first, with recipient user and profile joined; bodies are not loaded."""
    rows = (
        Delivery.objects.select_related("user", "saved_search")
        .defer("text_body", "html_body", "headers", "change_ids")
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


@dataclass(frozen=True)
class CarriedMatches:
    """What an alert mail carried, as the viewer may see it: tenders of visible profiles, the rest counted."""

    tenders: tuple[tuple[int, str], ...]  # (tender id, title), in the order the mail listed them
    hidden: int  # matches of someone else's private profile
    gone: int  # matches deleted since (their profile was deleted)


def delivery_rows_with_carried(
    *, deliveries: Iterable[Delivery], viewer: AbstractBaseUser
) -> list[tuple[Delivery, CarriedMatches | None]]:
    """Each row of the delivery log with the matches it carried (None for rows that need no look: sent,
    waiting or carrying nothing). A mail that failed or is uncertain says which tenders did not (surely)
    arrive, since its matches count as told and no later mail repeats them. Two queries for a page."""
    rows = list(deliveries)
    open_rows = [d for d in rows if d.status in (DeliveryStatus.FAILED, DeliveryStatus.UNCERTAIN) and d.match_ids]
    match_ids = {int(i) for d in open_rows for i in d.match_ids}
    matches = {
        pk: (tender_id, owner_id == viewer.pk or shared)
        for pk, tender_id, owner_id, shared in TenderMatch.objects.filter(pk__in=match_ids).values_list(
            "pk", "tender_id", "saved_search__owner_id", "saved_search__is_shared"
        )
    }
    titles = dict(
        Tender.objects.filter(pk__in={t for t, visible in matches.values() if visible}).values_list("pk", "title")
    )
    carried: dict[int, CarriedMatches] = {}
    for delivery in open_rows:
        found = [matches[int(i)] for i in delivery.match_ids if int(i) in matches]
        carried[delivery.pk] = CarriedMatches(
            tenders=tuple((t, titles.get(t, "")) for t, visible in found if visible),
            hidden=sum(1 for _t, visible in found if not visible),
            gone=len(delivery.match_ids) - len(found),
        )
    return [(delivery, carried.get(delivery.pk)) for delivery in rows]
