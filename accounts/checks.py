"""System checks of this app: the keys that encrypt stored secrets must exist and be valid Fernet keys."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, register

from config.local_keys import HOW_TO_MAKE_A_KEY


@register()
def secrets_keys_check(app_configs=None, **kwargs) -> list[Error]:
    """Runs with every command (migrate, runserver, check --deploy): a bad key should stop a start, not a save."""
    from cryptography.fernet import Fernet

    keys = list(getattr(settings, "SECRETS_ENCRYPTION_KEYS", []) or [])
    if not keys:
        return [Error(HOW_TO_MAKE_A_KEY, id="accounts.E001")]
    errors = []
    for position, key in enumerate(keys, start=1):
        try:
            Fernet(key.encode())
        except (ValueError, TypeError):
            errors.append(
                Error(
                    f"SECRETS_ENCRYPTION_KEYS: key number {position} is no valid Fernet key "
                    "(32 url-safe base64-encoded bytes).",
                    hint=HOW_TO_MAKE_A_KEY,
                    id="accounts.E002",
                )
            )
    return errors
