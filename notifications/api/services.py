"""Writes behind the partner API: API keys and saved searches of the current tenant's schema."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from kernel.errors import ApplicationError
from notifications.models import ApiKey

KEY_PREFIX = "tr_"
PREFIX_LENGTH = 12  # "tr_" + 9 random characters: enough to tell keys apart in lists, useless for guessing
# last_used_at is informational; writing it on every request would turn each read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def api_key_hash(*, plaintext: str) -> str:
    """SHA-256 of the key. Keys are 256 random bits, so a fast unsalted hash is enough to make a leaked
    table useless (there is nothing to brute-force), and it allows lookup by hash."""
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CreatedApiKey:
    api_key: ApiKey
    plaintext: str  # shown to the creator exactly once, never stored


def api_key_create(*, name: str, created_by: AbstractBaseUser) -> CreatedApiKey:
    name = name.strip()
    if not name:
        raise ApplicationError(fields={"name": _("Bitte einen Namen für den Schlüssel angeben.")})
    if len(name) > ApiKey._meta.get_field("name").max_length:
        raise ApplicationError(fields={"name": _("Der Name ist zu lang (höchstens 100 Zeichen).")})
    with transaction.atomic():
        while True:
            plaintext = KEY_PREFIX + secrets.token_urlsafe(32)
            prefix = plaintext[:PREFIX_LENGTH]
            # A prefix collision (54 random bits) is practically impossible; the unique index would
            # refuse it anyway, this keeps the transaction clean instead of failing.
            if not ApiKey.objects.filter(prefix=prefix).exists():
                break
        api_key = ApiKey.objects.create(
            name=name, prefix=prefix, key_hash=api_key_hash(plaintext=plaintext), created_by=created_by
        )
    return CreatedApiKey(api_key=api_key, plaintext=plaintext)


def api_key_revoke(*, api_key_id: int, now: datetime | None = None) -> ApiKey:
    """Revoke a key (idempotent: the first revocation time is kept). Raises ApiKey.DoesNotExist."""
    now = now or timezone.now()
    with transaction.atomic():
        api_key = ApiKey.objects.select_for_update().get(pk=api_key_id)
        if api_key.revoked_at is None:
            api_key.revoked_at = now
            api_key.save(update_fields=["revoked_at"])
    return api_key


def api_key_touch(*, api_key: ApiKey, now: datetime | None = None) -> bool:
    """Record use at minute resolution: at most one UPDATE per key and minute, however many requests."""
    now = now or timezone.now()
    if api_key.last_used_at is not None and now - api_key.last_used_at < LAST_USED_RESOLUTION:
        return False
    stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION)
    # The condition in the UPDATE keeps concurrent requests from writing the same minute twice.
    updated = ApiKey.objects.filter(stale, pk=api_key.pk).update(last_used_at=now)
    if updated:
        api_key.last_used_at = now
    return bool(updated)
