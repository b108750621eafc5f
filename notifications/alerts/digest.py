"""The digest: one mail per user per day (or per week, on Mondays) at the user's hour, Berlin time.

Who gets what (kept simple on purpose): a user's digest has one section per saved search
they OWN (active, e-mail on) with its matches not yet told by any mail and the pending
changes of tenders already told. Shared searches appear in other users' portals, but
their mails go to the owner only: whether a match was told is stored per search, not per
reader, so a second reader's digest could not honour "never twice".

A digest speaks to the customer: matches, changes and deadlines, never the health of the
platform's sources (that goes to the operators, ``sources.operator_digest``). The one exception
is the tenant's own mailbox for portal alert e-mails: its IMAP settings are the tenant's, so a
digest names what it brought and, when it could not be read, asks to check the settings. A
digest without matches or changes is not sent, unless that mailbox failed.

Due-ness is computed from the wall clock: the latest slot (today's hour, or this
Monday's for weekly) at or before now, due while the last digest is older than that
slot. The fan-out runs every 15 minutes, so a missed tick only delays a digest.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from kernel.vocabulary.time_zone import BERLIN
from notifications.alerts.composing import (
    by_search,
    claim_changes,
    claim_matches_limited,
    mailable,
    search_section,
    unsubscribe_link,
    user_language,
)
from notifications.alerts.deliveries import deliveries_send_soon, delivery_create
from notifications.alerts.rendering import digest_subject, mailbox_lines, render_mail
from notifications.alerts.selectors import mailbox_coverage, tenant_base_url, tenders_for_mail
from notifications.alerts.unsubscribe import SCOPE_DIGEST, SCOPE_SEARCH
from notifications.models import Delivery, DeliveryKind, DigestInterval, SavedSearch, UserPreference

logger = logging.getLogger(__name__)

PERIODS = {DigestInterval.DAILY: timedelta(days=1), DigestInterval.WEEKLY: timedelta(days=7)}


def digest_slot(*, interval: str, hour: int, now: datetime) -> datetime | None:
    """The latest scheduled digest moment at or before ``now``; None when digests are off."""
    if interval not in PERIODS:
        return None
    local = now.astimezone(BERLIN)
    day = local.date()
    if interval == DigestInterval.WEEKLY:
        day -= timedelta(days=local.weekday())  # Monday
    slot = datetime.combine(day, time(min(max(hour, 0), 23)), tzinfo=BERLIN)
    if slot > local:
        slot = datetime.combine(day - PERIODS[interval], time(min(max(hour, 0), 23)), tzinfo=BERLIN)
    return slot


def digest_due(*, interval: str, hour: int, last_digest_at: datetime | None, now: datetime) -> datetime | None:
    """The slot this user is due for, or None."""
    slot = digest_slot(interval=interval, hour=hour, now=now)
    if slot is None or (last_digest_at is not None and last_digest_at >= slot):
        return None
    return slot


def digest_key(*, user_id: int, interval: str, slot: datetime) -> str:
    if interval == DigestInterval.WEEKLY:
        year, week, _ = slot.isocalendar()
        return f"digest:{user_id}:{year}-W{week:02d}"
    return f"digest:{user_id}:{slot.date().isoformat()}"


@dataclass
class DigestRun:
    due: int = 0
    sent: int = 0
    quiet: int = 0
    errors: int = 0


def preferences_ensure() -> None:
    """Every active user gets a preference row with the defaults (daily at 7)."""
    users = get_user_model().objects.filter(is_active=True, preference__isnull=True).values_list("pk", flat=True)
    UserPreference.objects.bulk_create([UserPreference(user_id=pk) for pk in users], ignore_conflicts=True)


def digests_create_due(*, now: datetime | None = None) -> DigestRun:
    """Create the digest of every user of this tenant who is due; one user's failure never stops the others."""
    now = now or timezone.now()
    preferences_ensure()
    run = DigestRun()
    candidates = (
        UserPreference.objects.filter(user__is_active=True)
        .exclude(digest_interval=DigestInterval.OFF)
        .values_list("pk", "digest_interval", "digest_hour", "last_digest_at")
    )
    due = [
        pk
        for pk, interval, hour, last in candidates
        if digest_due(interval=interval, hour=hour, last_digest_at=last, now=now)
    ]
    if not due:
        return run
    base_url = tenant_base_url()
    for preference_id in due:
        run.due += 1
        try:
            delivery = digest_create(preference_id=preference_id, now=now, base_url=base_url)
        except Exception:
            run.errors += 1
            logger.exception("digest for preference %s failed; the next tick tries again", preference_id)
            continue
        if delivery is None:
            run.quiet += 1
        else:
            run.sent += 1
    if run.sent:
        deliveries_send_soon()
    return run


def digest_create(*, preference_id: int, now: datetime, base_url: str) -> Delivery | None:
    """One user's digest (None when there is nothing to tell); claims and the outbox row share one transaction."""
    with transaction.atomic():
        preference = UserPreference.objects.select_for_update(of=("self",)).select_related("user").get(pk=preference_id)
        slot = digest_due(
            interval=preference.digest_interval,
            hour=preference.digest_hour,
            last_digest_at=preference.last_digest_at,
            now=now,
        )
        if slot is None:
            return None  # another worker was faster
        user = preference.user
        key = digest_key(user_id=user.pk, interval=preference.digest_interval, slot=slot)
        since = preference.last_digest_at or slot - PERIODS[preference.digest_interval]
        preference.last_digest_at = now
        preference.save(update_fields=["last_digest_at"])
        searches = {s.pk: s for s in SavedSearch.objects.filter(owner=user, is_active=True, email_enabled=True)}
        if not searches or not mailable(user) or Delivery.objects.filter(dedupe_key=key).exists():
            return None
        # Changes of tenders already told come first, before this digest's own claims count as "told".
        changes = claim_changes(change_filter={"match__saved_search_id__in": list(searches)}, now=now)
        # Only what the digest lists is told; matches beyond each section's limit stay new and are counted.
        claim = claim_matches_limited(
            match_filter={"saved_search_id__in": list(searches)}, now=now, via=DeliveryKind.DIGEST
        )
        matches = claim.claimed
        language = user_language(user)
        mailbox = mailbox_lines(mailbox_coverage(since=since), language=language)
        if not matches and not changes and not any(line.problem for line in mailbox):
            return None
        tenders = tenders_for_mail({m.tender_id for m in matches} | {c.tender_id for c in changes})
        matches_by, changes_by = by_search(matches), by_search(changes)
        sections = [
            search_section(
                search=search,
                matches=matches_by.get(search.pk, []),
                changes=changes_by.get(search.pk, []),
                tenders=tenders,
                base_url=base_url,
                language=language,
                unsubscribe_url=unsubscribe_link(base_url=base_url, scope=SCOPE_SEARCH, object_id=search.pk),
                more=claim.left_over.get(search.pk, 0),
            )
            for search in sorted(searches.values(), key=lambda s: (s.name.lower(), s.pk))
            if search.pk in matches_by or search.pk in changes_by
        ]
        unsubscribe_url = unsubscribe_link(base_url=base_url, scope=SCOPE_DIGEST, object_id=user.pk)
        mail = render_mail(
            kind=DeliveryKind.DIGEST,
            language=language,
            subject=digest_subject(language=language, new=len(matches), changed=len(changes)),
            sections=sections,
            unsubscribe_url=unsubscribe_url,
            portal_url=base_url + "/",
            mailbox=mailbox,
            period_start=since,
        )
        return delivery_create(
            kind=DeliveryKind.DIGEST,
            user=user,
            recipient=user.email,
            subject=mail.subject,
            text_body=mail.text_body,
            html_body=mail.html_body,
            headers=mail.headers,
            dedupe_key=key,
            match_ids=[m.match_id for m in matches],
            change_ids=[c.change_id for c in changes],
            send_soon=False,  # digests_create_due asks once after all users
        )
