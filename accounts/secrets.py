"""Secrets at rest (SMTP and IMAP passwords, webhook secrets): Fernet with key rotation.

``SECRETS_ENCRYPTION_KEYS`` lists Fernet keys, newest first. New values are
encrypted with the first key; any listed key decrypts. To rotate: put a new key
in front, run ``manage.py rotate_secrets`` (re-encrypts every stored value with
the new key), then drop the old key. Values never appear in logs or reprs.
"""

from __future__ import annotations

from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models

from config.local_keys import HOW_TO_MAKE_A_KEY


class SecretUnreadable(Exception):
    """A stored secret no configured key can decrypt (key removed too early, or data tampered with)."""


@lru_cache(maxsize=8)
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    if not keys:
        raise ImproperlyConfigured(HOW_TO_MAKE_A_KEY)
    return MultiFernet([Fernet(key.encode()) for key in keys])


def _current() -> MultiFernet:
    return _fernet(tuple(settings.SECRETS_ENCRYPTION_KEYS))


def encrypt_secret(plaintext: str) -> str:
    return _current().encrypt(plaintext.encode()).decode()


def decrypt_secret(token: str) -> str:
    try:
        return _current().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise SecretUnreadable("stored secret cannot be decrypted with the configured keys") from exc


def rotate_secret(token: str) -> str:
    """Re-encrypt with the newest key (no-op for the plaintext)."""
    try:
        return _current().rotate(token.encode()).decode()
    except InvalidToken as exc:
        raise SecretUnreadable("stored secret cannot be decrypted with the configured keys") from exc


class Secret(str):
    """A decrypted value that does not print itself."""

    def __repr__(self) -> str:
        return "Secret('***')"


class EncryptedTextField(models.TextField):
    """Stores Fernet ciphertext; Python code sees the plaintext (as ``Secret``). Empty stays empty."""

    def from_db_value(self, value, expression, connection):
        if not value:
            return value
        return Secret(decrypt_secret(value))

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if not value:
            return value
        return encrypt_secret(str(value))


def models_with_secrets() -> list[tuple[type[models.Model], list[str]]]:
    from django.apps import apps

    found = []
    for model in apps.get_models():
        names = [f.name for f in model._meta.concrete_fields if isinstance(f, EncryptedTextField)]
        if names:
            found.append((model, names))
    return found
