"""Handing one message to the tenant's mail server (or the platform's ESP) and classifying what went wrong.

Which way a tenant's mail goes:

* its own ``SmtpSettings`` (host, port, STARTTLS / SSL / none, login; password decrypted
  by the field) through Django's SMTP backend with explicit parameters and a timeout;
* otherwise the platform's ESP through django-anymail, but only where the platform allows
  it (``ALERTS_PLATFORM_ESP_ENABLED``); otherwise nothing is sent and the outbox records
  "keine SMTP-Einstellungen" as a temporary failure, so mails go out once settings exist.

Every failure becomes a ``SendError``: temporary ones (4xx replies, timeouts, refused or
dropped connections, configuration that can still be fixed) are retried by the outbox,
permanent ones (5xx for this message) are recorded as failed.

Limit: the SMTP host is checked against private, loopback and metadata addresses before
connecting, but the backend resolves the name again when it connects (a DNS answer that
changes in between is not caught); the tenant admin, not an outsider, chooses the host.
"""

from __future__ import annotations

import contextlib
import smtplib
from dataclasses import dataclass, field

from anymail.exceptions import AnymailError, AnymailInvalidAddress, AnymailRecipientsRefused
from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.smtp import EmailBackend as SmtpBackend

from accounts.secrets import SecretUnreadable
from kernel.errors import ApplicationError
from kernel.network import FetchError, resolve_and_check, system_resolver
from notifications.mail_route import smtp_settings_get
from notifications.models import TlsMode

NO_SMTP_SETTINGS = "keine SMTP-Einstellungen"


class SendError(ApplicationError):
    """A message was not accepted; ``temporary`` says whether trying again later can help."""

    default_code = "send_failed"
    temporary = True


class TemporarySendError(SendError):
    temporary = True


class PermanentSendError(SendError):
    temporary = False


def _reply_error(code: int, text: str, *, what: str) -> SendError:
    detail = f"{what}: {code} {text}".strip()[:1000]
    return PermanentSendError(detail) if 500 <= code < 600 else TemporarySendError(detail)


def _decode(reply) -> str:
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)


def classify(exc: BaseException) -> SendError:
    """The outbox's view of an exception raised while connecting or sending."""
    if isinstance(exc, SendError):
        return exc
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        replies = list(exc.recipients.values())
        codes = [code for code, _text in replies]
        text = "; ".join(f"{code} {_decode(msg)}" for code, msg in replies)
        if codes and all(500 <= code < 600 for code in codes):
            return PermanentSendError(f"Empfänger abgelehnt: {text}"[:1000])
        return TemporarySendError(f"Empfänger vorläufig abgelehnt: {text}"[:1000])
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        # A wrong password is fixed in the settings; the waiting mails must survive until then.
        return TemporarySendError(f"Anmeldung am SMTP-Server fehlgeschlagen: {exc.smtp_code} {_decode(exc.smtp_error)}")
    if isinstance(exc, smtplib.SMTPResponseException):
        return _reply_error(exc.smtp_code, _decode(exc.smtp_error), what="SMTP-Server antwortet")
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return TemporarySendError(f"SMTP-Server unterstützt das nicht: {exc}")
    if isinstance(exc, (smtplib.SMTPServerDisconnected, TimeoutError, ConnectionError)):
        return TemporarySendError(f"Verbindung zum Mailserver: {type(exc).__name__}: {exc}"[:1000])
    if isinstance(exc, OSError):
        return TemporarySendError(f"Netzwerkfehler: {type(exc).__name__}: {exc}"[:1000])
    if isinstance(exc, (AnymailRecipientsRefused, AnymailInvalidAddress)):
        return PermanentSendError(f"Versanddienst lehnt Empfänger ab: {exc}"[:1000])
    if isinstance(exc, AnymailError):
        return TemporarySendError(f"Versanddienst: {exc}"[:1000])
    return TemporarySendError(f"{type(exc).__name__}: {exc}"[:1000])


@dataclass(frozen=True)
class Route:
    """Where this tenant's mail goes: a backend factory's parameters and the sender address."""

    from_email: str
    smtp: dict | None = None  # SMTP backend parameters (tenant's own server)
    esp_backend: str = ""  # anymail backend path (platform ESP)
    description: str = field(default="", compare=False)


def mail_route() -> Route:
    """The current tenant's route; raises TemporarySendError when there is none (yet)."""
    try:
        row = smtp_settings_get()
    except SecretUnreadable as exc:
        raise TemporarySendError(
            "SMTP-Passwort nicht entschlüsselbar (Schlüssel gewechselt?) – bitte in den Einstellungen neu speichern"
        ) from exc
    if row is not None:
        return Route(
            from_email=row.from_email,
            smtp={
                "host": row.host,
                "port": row.port,
                "username": row.username or None,
                "password": str(row.password or "") or None,
                "use_tls": row.tls_mode == TlsMode.STARTTLS,
                "use_ssl": row.tls_mode == TlsMode.SSL,
                "timeout": settings.ALERTS_SMTP_TIMEOUT,
            },
            description=f"SMTP {row.host}:{row.port}",
        )
    if settings.ALERTS_PLATFORM_ESP_ENABLED and settings.ALERTS_PLATFORM_ESP_BACKEND:
        return Route(
            from_email=settings.ALERTS_PLATFORM_FROM_EMAIL,
            esp_backend=settings.ALERTS_PLATFORM_ESP_BACKEND,
            description="Plattform-Versanddienst",
        )
    raise TemporarySendError(NO_SMTP_SETTINGS)


def _check_smtp_host(host: str, port: int) -> None:
    try:
        resolve_and_check(
            f"smtp://{host}:{port}",
            host,
            port,
            resolver=system_resolver,
            # Loopback only where a setting says so explicitly: tests and a local mail catcher.
            allow_loopback=settings.MAIL_ALLOW_LOOPBACK,
        )
    except FetchError as exc:
        raise TemporarySendError(f"SMTP-Server {host!r} nicht erlaubt oder nicht auflösbar: {exc}") from exc


class MailTransport:
    """One open connection for a run of sends; reopened after any error, closed at the end."""

    def __init__(self, route: Route):
        self.route = route
        self._backend: BaseEmailBackend | None = None

    def _open(self) -> BaseEmailBackend:
        if self._backend is None:
            if self.route.smtp is not None:
                _check_smtp_host(self.route.smtp["host"], self.route.smtp["port"])
                backend = SmtpBackend(fail_silently=False, **self.route.smtp)
            else:
                backend = get_connection(self.route.esp_backend, fail_silently=False)
            backend.open()
            self._backend = backend
        return self._backend

    def send(self, message: EmailMultiAlternatives) -> None:
        """Return only once the server accepted the message; raise SendError otherwise."""
        try:
            backend = self._open()
            message.connection = backend
            accepted = backend.send_messages([message])
        except Exception as exc:
            self.close()
            raise classify(exc) from exc
        if accepted != 1:
            raise PermanentSendError("Nachricht ohne gültigen Empfänger")

    def close(self) -> None:
        backend, self._backend = self._backend, None
        if backend is not None:
            # A connection that is already broken needs no clean goodbye.
            with contextlib.suppress(Exception):
                backend.close()

    def __enter__(self) -> MailTransport:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
