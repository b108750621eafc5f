"""Team changes that reach into the tenant's own data: deactivating a person ends everything they could use.

``accounts`` (a shared app) owns users, roles and sessions; it cannot see API keys,
calendar links or the outbox, which live here. So the tenant app composes the
whole change in one transaction: either the person is out with every credential
revoked, their unsent mail dropped and their webhooks off, or nothing changed. Reactivating and
changing a role touch nothing here and are the accounts services themselves.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.services import user_deactivate
from notifications.alerts.deliveries import deliveries_drop_for_inactive_recipients
from notifications.models import ApiKey
from notifications.preferences.services import user_preference_calendar_token_revoke
from notifications.webhooks.services import webhooks_switch_off_created_by


def team_member_deactivate(*, user_id: int) -> AbstractBaseUser:
    """Sign-in and sessions end (accounts), the person's API keys and calendar link are revoked, mails
    still waiting for them are dropped (kept in the delivery log as failed, with the reason), and the
    webhooks they connected are switched off for good (a current admin connects them anew)."""
    now = timezone.now()
    with transaction.atomic():
        user = user_deactivate(user_id=user_id)
        ApiKey.objects.filter(created_by_id=user.pk, revoked_at__isnull=True).update(revoked_at=now)
        user_preference_calendar_token_revoke(user=user)
        deliveries_drop_for_inactive_recipients(user_id=user.pk)
        webhooks_switch_off_created_by(user_id=user.pk)
    return user
