"""System checks of this app: the keys that encrypt stored secrets, and the mail that carries first logins."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

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


@register(Tags.compatibility)
def mail_backend_check(app_configs=None, **kwargs) -> list[Error]:
    """The platform's mail backend must load: an ESP whose library is missing (django-anymail's Amazon SES
    without boto3) would otherwise only fail when the first operator's link is mailed."""
    from django.utils.module_loading import import_string

    try:
        import_string(settings.EMAIL_BACKEND)
    except Exception as exc:  # ImportError, or anymail's AnymailImproperlyInstalled naming the missing package
        return [
            Error(
                f"The mail backend {settings.EMAIL_BACKEND} (from EMAIL_URL) cannot be loaded: "
                f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
                hint="Install what it needs, or choose another EMAIL_URL (smtp://…, smtps://…; see .env.example).",
                id="accounts.E003",
            )
        ]
    return []


@register(Tags.security, deploy=True)
def console_mail_check(app_configs=None, **kwargs) -> list[Warning]:
    """The console backend writes every mail, first-login links included, into the process's log."""
    from accounts.platform import mail_prints_messages  # the commands' own rule: one list of printing backends

    if mail_prints_messages():
        return [
            Warning(
                "EMAIL_URL is console://: invitations and password links would be written to the logs, "
                "and platform_init and tenant_create refuse to send them.",
                hint="Set EMAIL_URL to smtp://… or smtps://… (see .env.example).",
                id="accounts.W001",
            )
        ]
    return []
