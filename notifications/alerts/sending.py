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

Where a failure happens decides what it means. Until the end of data (CRLF "." CRLF) has been
handed over, the server cannot have delivered anything: a dropped connection or a timeout is
temporary. After it, the server may have taken responsibility for the message before the
connection broke (RFC 5321 §4.1.1.4: the 250 reply to the end of data is the acceptance;
§4.5.3.2.6 and §6.1: a client that loses that reply must expect the message to be delivered,
and sending it again makes duplicates). So no reply to the end of data is ``UncertainSendError``:
the outbox records "unklar" and never sends it again by itself. A well-formed 4xx/5xx reply to
the end of data is an answer and is classified as usual.

The SMTP host is checked against private, loopback and metadata addresses (an internal relay
the operator approved excepted) before connecting, and again by the connection itself, which
connects to the address it checked (``SmtpAddressGuard``): a DNS answer that changes in between
cannot lead it elsewhere.
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
from accounts.selectors import internal_relay_grants
from kernel.errors import ApplicationError
from kernel.network import FetchError, relay_exemption, resolve_and_check, system_resolver
from notifications.mail_route import SmtpAddressGuard, smtp_settings_get
from notifications.models import TlsMode

NO_SMTP_SETTINGS = "keine SMTP-Einstellungen"


class SendError(ApplicationError):
    """A message was not accepted; ``temporary`` says whether trying again later can help."""

    default_code = "send_failed"
    temporary = True
    uncertain = False


class TemporarySendError(SendError):
    temporary = True


class PermanentSendError(SendError):
    temporary = False


class UncertainSendError(SendError):
    """The whole message was handed over and no answer came: the server may have delivered it."""

    temporary = False
    uncertain = True


UNCERTAIN_REASON = (
    "Verbindung nach der Übergabe der Nachricht ohne Antwort des Servers beendet ({detail}): "
    "unklar, ob der Server die Nachricht angenommen hat. Bitte prüfen."
)


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


def classify_sent(exc: BaseException, *, end_of_data_sent: bool) -> SendError:
    """``classify``, knowing whether the end of data had already been handed to the server."""
    if end_of_data_sent and not _is_reply(exc):
        detail = f"{type(exc).__name__}: {exc}"[:500]
        return UncertainSendError(UNCERTAIN_REASON.format(detail=detail))
    return classify(exc)


def _is_reply(exc: BaseException) -> bool:
    # smtplib reports a garbled reply line as code -1: no answer a client could rely on.
    return isinstance(exc, smtplib.SMTPResponseException) and 400 <= exc.smtp_code < 600


class _EndOfDataTracking:
    """An ``smtplib`` connection that knows whether the current message's end of data left it.

    ``smtplib.SMTP.data`` sends the DATA command, reads 354, then sends the quoted message with
    its end of data (CRLF "." CRLF) in one ``send`` call and reads the reply; ``send`` returns
    only once every byte is with the operating system. A ``send`` that fails has not handed over
    the end of data, so the server cannot have a complete message.
    """

    end_of_data_sent = False
    _in_data = False

    def sendmail(self, *args, **kwargs):
        self.end_of_data_sent = False  # one connection carries many messages
        return super().sendmail(*args, **kwargs)

    def data(self, msg):
        self._in_data = True
        try:
            return super().data(msg)
        finally:
            self._in_data = False

    def send(self, s):
        super().send(s)
        if self._in_data and isinstance(s, bytes) and s.endswith(b"\r\n.\r\n"):
            self.end_of_data_sent = True


class _TrackingSMTP(_EndOfDataTracking, SmtpAddressGuard, smtplib.SMTP):
    pass


class _TrackingSMTPSSL(_EndOfDataTracking, SmtpAddressGuard, smtplib.SMTP_SSL):
    pass


class _TrackingSmtpBackend(SmtpBackend):
    @property
    def connection_class(self):
        return _TrackingSMTPSSL if self.use_ssl else _TrackingSMTP

    def send_messages(self, email_messages):
        # A failure before the next sendmail (building the message) must not inherit the last one's flag.
        if self.connection is not None:
            self.connection.end_of_data_sent = False
        return super().send_messages(email_messages)


def _end_of_data_sent(backend: BaseEmailBackend | None) -> bool:
    return bool(getattr(getattr(backend, "connection", None), "end_of_data_sent", False))


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
            exempt=relay_exemption(internal_relay_grants(protocol="smtp"), protocol="smtp", host=host, port=port),
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
                backend = _TrackingSmtpBackend(fail_silently=False, **self.route.smtp)
            else:
                backend = get_connection(self.route.esp_backend, fail_silently=False)
            backend.open()
            self._backend = backend
        return self._backend

    def send(self, message: EmailMultiAlternatives) -> None:
        """Return only once the server accepted the message; raise SendError otherwise.

        UncertainSendError when the connection broke after the end of data went out (see above).
        The platform ESP's HTTP API gives no such phase: its errors are classified as before.
        """
        try:
            backend = self._open()
            message.connection = backend
            accepted = backend.send_messages([message])
        except Exception as exc:
            handed_over = _end_of_data_sent(self._backend)
            self.close()
            raise classify_sent(exc, end_of_data_sent=handed_over) from exc
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
