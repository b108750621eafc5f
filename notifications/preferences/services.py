"""Writes for the settings pages: a user's alert preferences, the tenant's SMTP and mailbox settings.

Passwords are write-only: an empty value keeps the stored one (the forms never
show it), and they are stored encrypted (``EncryptedTextField``).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils.translation import gettext as _

from accounts.selectors import internal_relay_grants
from kernel.errors import ApplicationError
from notifications.mail_route import mailbox_settings_get, smtp_settings_get
from notifications.models import (
    DigestInterval,
    MailboxSettings,
    SavedSearch,
    SmtpSettings,
    TlsMode,
    UserPreference,
    calendar_token_hash,
    new_calendar_token,
)
from notifications.preferences.hosts import mail_host_check
from sources.models import ApprovedForwarder

_LANGUAGES = {code for code, _name in settings.LANGUAGES}


def user_preference_ensure(*, user: AbstractBaseUser) -> UserPreference:
    """The user's preferences, created with the defaults on first use (race-safe: unique user)."""
    preference, _created = UserPreference.objects.get_or_create(user=user)
    return preference


@transaction.atomic
def user_preference_update(
    *,
    user: AbstractBaseUser,
    language: str | None = None,
    digest_interval: str | None = None,
    digest_hour: int | None = None,
) -> UserPreference:
    """Language of the UI and e-mails; digest interval and hour (Europe/Berlin). Omitted values stay."""
    user_preference_ensure(user=user)
    preference = UserPreference.objects.select_for_update().get(user=user)
    if language is not None:
        if language not in _LANGUAGES:
            raise ApplicationError(fields={"language": _("Diese Sprache wird nicht unterstützt.")})
        preference.language = language
    if digest_interval is not None:
        if digest_interval not in DigestInterval.values:
            raise ApplicationError(fields={"digest_interval": _("Unbekanntes Intervall.")})
        preference.digest_interval = digest_interval
    if digest_hour is not None:
        if not 0 <= digest_hour <= 23:
            raise ApplicationError(fields={"digest_hour": _("Stunde von 0 bis 23 angeben.")})
        preference.digest_hour = digest_hour
    preference.save(update_fields=["language", "digest_interval", "digest_hour"])
    return preference


@transaction.atomic
def user_preference_calendar_token_rotate(*, user: AbstractBaseUser) -> str:
    """A new secret calendar token, returned once (only its hash is kept); the old link stops working at once."""
    user_preference_ensure(user=user)
    preference = UserPreference.objects.select_for_update().get(user=user)
    token = new_calendar_token()
    preference.calendar_token_hash = calendar_token_hash(token)
    preference.save(update_fields=["calendar_token_hash"])
    return token


def user_preference_calendar_token_revoke(*, user: AbstractBaseUser) -> int:
    """No calendar link at all (a deactivated user): the feed answers 404 until a new link is made."""
    return UserPreference.objects.filter(user=user).update(calendar_token_hash=None)


def saved_search_instant_alerts_set(*, user: AbstractBaseUser, enabled_ids: Iterable[int]) -> int:
    """Instant alerts on for exactly ``enabled_ids`` among the user's own profiles, off for the rest.

    Ids of other people's profiles are ignored. Returns how many profiles changed.
    """
    enabled = {int(pk) for pk in enabled_ids}
    own = SavedSearch.objects.filter(owner=user)
    with transaction.atomic():
        switched_on = own.filter(pk__in=enabled, instant_alert=False).update(instant_alert=True)
        switched_off = own.exclude(pk__in=enabled).filter(instant_alert=True).update(instant_alert=False)
    return switched_on + switched_off


def _lock_singleton(model) -> None:
    """One settings row per tenant: serialise writers so two first saves cannot both insert."""
    with connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {connection.ops.quote_name(model._meta.db_table)} IN SHARE ROW EXCLUSIVE MODE")


def smtp_settings_save(
    *,
    host: str,
    port: int,
    tls_mode: str,
    username: str,
    password: str,
    from_email: str,
    clear_password: bool = False,
) -> SmtpSettings:
    """Create or update the tenant's SMTP server. ``password`` empty keeps the stored one."""
    if tls_mode not in TlsMode.values:
        raise ApplicationError(fields={"tls_mode": _("Unbekannter TLS-Modus %(mode)r.") % {"mode": tls_mode}})
    host = mail_host_check(
        host,
        port,
        allow_loopback=settings.MAIL_ALLOW_LOOPBACK,
        protocol="smtp",
        grants=internal_relay_grants(protocol="smtp"),
    )
    with transaction.atomic():
        _lock_singleton(SmtpSettings)
        row = smtp_settings_get() or SmtpSettings()
        row.host, row.port, row.tls_mode = host, port, tls_mode
        row.username, row.from_email = username.strip(), from_email.strip()
        if clear_password:
            row.password = ""
        elif password:
            row.password = password
        if tls_mode == TlsMode.NONE and (row.username or row.password):
            # A login over an unencrypted connection hands the password to everyone on the way.
            message = _(
                "Mit Benutzername oder Passwort ist eine verschlüsselte Verbindung (STARTTLS oder SSL/TLS) nötig."
            )
            raise ApplicationError(fields={"tls_mode": message}, code="tls_mode")
        row.save()
    return row


def mailbox_settings_save(
    *,
    host: str,
    port: int,
    use_ssl: bool,
    username: str,
    password: str,
    folder: str,
    is_active: bool,
    authserv_id: str = "",
    forwarders: Iterable[str] = (),
    several_authentication_results: bool = False,
) -> MailboxSettings:
    """Create or update the IMAP mailbox for portal alert e-mails. ``password`` empty keeps the stored one.

    ``forwarders`` are keys of operator-approved forwarding senders (``sources.models.ApprovedForwarder``):
    a rule waives the sender authentication of that domain's alerts, so a tenant can only pick what an
    operator approved, never name a domain of its own.
    """
    host = mail_host_check(
        host,
        port,
        allow_loopback=settings.SOURCES_ALLOW_LOOPBACK,
        protocol="imap",
        grants=internal_relay_grants(protocol="imap"),
    )
    picked = list(dict.fromkeys(str(key) for key in forwarders))
    approved = {entry.key for entry in ApprovedForwarder.objects.all()} if picked else set()
    unknown = [key for key in picked if key not in approved]
    if unknown:
        message = _("Kein vom Betreiber freigegebener Weiterleitungsabsender: %(keys)s") % {"keys": ", ".join(unknown)}
        raise ApplicationError(fields={"forwarders": message}, code="forwarders")
    with transaction.atomic():
        _lock_singleton(MailboxSettings)
        row = mailbox_settings_get() or MailboxSettings()
        if not password and not row.password:
            raise ApplicationError(
                fields={"password": _("Für ein neues Postfach ist ein Passwort nötig.")}, code="password"
            )
        row.host, row.port, row.use_ssl = host, port, use_ssl
        row.username, row.folder, row.is_active = username.strip(), folder.strip() or "INBOX", is_active
        row.authserv_id, row.forwarders = authserv_id.strip(), picked
        row.several_authentication_results = several_authentication_results
        if password:
            row.password = password
            row.last_error = ""  # the old error was about the old credentials
        row.save()
    return row
