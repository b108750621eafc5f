"""Reading one mailbox over IMAP (imapclient): connect safely, list candidates, fetch raw mails.

Connection: implicit TLS (``use_ssl``, usually port 993) or STARTTLS on a plain port; the
password is never sent unencrypted (a server without STARTTLS is an error). Certificates
are verified (``ssl.create_default_context``; a mail server with a private CA needs that CA
in the worker's trust store, e.g. via OpenSSL's ``SSL_CERT_FILE``). Before connecting, the host is resolved and
every address must be public (the SSRF rule of ``kernel.network``; loopback only where
``SOURCES_ALLOW_LOOPBACK`` is on, i.e. in tests) - a tenant must not make the worker probe
the internal network - unless the operator approved that internal server (``grants``). The
connection then goes to the checked addresses, not to a new resolution of the name (a DNS
answer that changed in between cannot lead elsewhere); TLS still verifies the host name.

The folder is opened read-only and bodies are fetched with ``BODY.PEEK``: checking never
changes the user's mailbox (no \\Seen flags, nothing moved or deleted).

Candidates are the messages that arrived ``SINCE`` a day (IMAP has day precision only); the
caller reads them all (a Message-ID alone does not prove a mail was processed: anyone can reuse
one) and the mail source's run drops the copies it has recorded, by Message-ID and content. A
message without Message-ID is keyed by the SHA-256 of its header block.

Every failure is a ``MailboxError`` whose message is German (it is shown to the tenant's
admins as ``last_error``) and names what to fix.
"""

from __future__ import annotations

import contextlib
import hashlib
import imaplib
import re
import socket
import ssl
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from email.parser import BytesHeaderParser

from imapclient import IMAPClient, imap4, tls
from imapclient.exceptions import LoginError

from kernel.network import (
    RelayGrant,
    ResolutionFailed,
    SsrfRefused,
    connect_checked,
    relay_exemption,
    resolve_and_check,
    system_resolver,
)
from sources.adapters.mail.verdict import MailboxUnavailable

__all__ = ["Candidate", "FetchedMail", "MailboxAddress", "MailboxError", "MailboxReader", "message_key"]

HEADER_CHUNK = 200  # messages per header FETCH
BODY_CHUNK = 20  # messages per body FETCH (bounded memory)
_MESSAGE_ID = re.compile(r"<[^<>\s]+>")


class MailboxError(MailboxUnavailable):
    """A mailbox-level failure; the message is meant for the tenant's admin (and ends the mail source's run)."""

    default_code = "mailbox_failed"


@dataclass(frozen=True)
class MailboxAddress:
    host: str
    port: int
    use_ssl: bool
    username: str
    password: str
    folder: str

    def __repr__(self) -> str:  # never print the password
        return f"MailboxAddress({self.username}@{self.host}:{self.port}, folder={self.folder!r})"


@dataclass(frozen=True)
class Candidate:
    key: str  # Message-ID, or a stand-in derived from the headers
    size: int


@dataclass(frozen=True)
class FetchedMail:
    uid: int
    key: str
    raw: bytes  # the whole message, or only its first ``max_bytes`` when ``truncated``
    size: int
    received_at: datetime | None
    truncated: bool = False


def message_key(header_bytes: bytes) -> str:
    """The Message-ID (``<…>``) of a header block, else ``<sha256:…@no-message-id>`` of the headers."""
    headers = BytesHeaderParser().parsebytes(header_bytes)
    raw = str(headers.get("message-id") or "").strip()
    match = _MESSAGE_ID.search(raw)
    if match:
        return match.group(0)[:998]
    if raw:
        return raw[:998]
    return f"<sha256:{hashlib.sha256(header_bytes).hexdigest()}@no-message-id>"


class _PinnedIMAPClient(IMAPClient):
    """An ``IMAPClient`` that connects to addresses already checked, never to a new resolution of the name.

    imapclient builds its imaplib connection in ``_create_IMAP4``; the subclasses below open the socket
    to a checked address and leave ``host`` for TLS (SNI and certificate check), as before.
    """

    def __init__(self, addresses: Sequence[str], host: str, **kwargs) -> None:
        self._checked_addresses = tuple(addresses)
        super().__init__(host, **kwargs)

    def _create_IMAP4(self):
        timeout = getattr(self._timeout, "connect", None)
        if self.ssl:
            return _PinnedTLS(self._checked_addresses, self.host, self.port, self.ssl_context, timeout)
        return _PinnedPlain(self._checked_addresses, self.host, self.port, timeout)


class _PinnedTLS(tls.IMAP4_TLS):
    def __init__(self, addresses: Sequence[str], *args) -> None:
        self._checked_addresses = addresses
        super().__init__(*args)

    def _create_socket(self, timeout: float | None = None) -> socket.socket:
        sock = connect_checked(self._checked_addresses, self.port, timeout=timeout or self._timeout)
        return tls.wrap_socket(sock, self.ssl_context, self.host)


class _PinnedPlain(imap4.IMAP4WithTimeout):
    def __init__(self, addresses: Sequence[str], *args) -> None:
        self._checked_addresses = addresses
        super().__init__(*args)

    def _create_socket(self, timeout: float | None = None) -> socket.socket:
        return connect_checked(self._checked_addresses, self.port, timeout=timeout or self._timeout)


class MailboxReader:
    """``with MailboxReader(address, …) as reader:`` - connected, logged in, folder selected read-only."""

    def __init__(
        self,
        address: MailboxAddress,
        *,
        ssl_context: ssl.SSLContext | None = None,
        timeout: float = 30.0,
        allow_loopback: bool = False,
        grants: Sequence[RelayGrant] = (),
        max_bytes: int = 10 * 2**20,
    ) -> None:
        self.address = address
        self._ssl_context = ssl_context or ssl.create_default_context()
        self._timeout = timeout
        self._allow_loopback = allow_loopback
        self._grants = tuple(grants)
        self.max_bytes = max_bytes
        self._client: IMAPClient | None = None
        self.message_count = 0  # messages in the selected folder (the server's EXISTS), once entered

    def __enter__(self) -> MailboxReader:
        checked = self._check_target()
        address = self.address
        where = f"{address.host}:{address.port}"
        try:
            client = _PinnedIMAPClient(
                checked,
                address.host,
                port=address.port,
                ssl=address.use_ssl,
                ssl_context=self._ssl_context,
                timeout=self._timeout,
            )
        except ssl.SSLError as exc:
            raise MailboxError(f"TLS-Fehler bei {where}: {exc}") from exc
        except (OSError, imaplib.IMAP4.error) as exc:
            raise MailboxError(f"Verbindung zu {where} fehlgeschlagen: {_describe(exc)}") from exc
        self._client = client
        client.normalise_times = False
        try:
            if not address.use_ssl:
                self._starttls(client, where)
            self._login(client)
            try:
                selected = client.select_folder(address.folder, readonly=True)
            except imaplib.IMAP4.error as exc:
                raise MailboxError(f"Ordner {address.folder!r} kann nicht geöffnet werden: {_describe(exc)}") from exc
            self.message_count = _int(selected.get(b"EXISTS"))
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._close()

    def candidates(self, *, since: date) -> dict[int, Candidate]:
        """UID -> key and size of every message that arrived on or after ``since``."""
        client = self._require()
        try:
            uids = sorted(client.search(["SINCE", since]))
            found: dict[int, Candidate] = {}
            for chunk in _chunks(uids, HEADER_CHUNK):
                for uid, data in client.fetch(chunk, [b"BODY.PEEK[HEADER]", b"RFC822.SIZE"]).items():
                    found[uid] = Candidate(
                        key=message_key(data.get(b"BODY[HEADER]") or b""), size=int(data.get(b"RFC822.SIZE") or 0)
                    )
            return found
        except (OSError, imaplib.IMAP4.error) as exc:
            raise MailboxError(f"Nachrichten konnten nicht gelesen werden: {_describe(exc)}") from exc

    def fetch(self, candidates: dict[int, Candidate]) -> Iterator[list[FetchedMail]]:
        """The given messages in chunks of ``BODY_CHUNK``; larger than ``max_bytes``: only their start."""
        uids = sorted(candidates)
        try:
            for chunk in _chunks(uids, BODY_CHUNK):
                small = [uid for uid in chunk if candidates[uid].size <= self.max_bytes]
                large = [uid for uid in chunk if candidates[uid].size > self.max_bytes]
                found = self._bodies(small, b"BODY.PEEK[]", b"BODY[]", candidates, truncated=False)
                partial = f"BODY.PEEK[]<0.{self.max_bytes}>".encode()
                found += self._bodies(large, partial, b"BODY[]<0>", candidates, truncated=True)
                yield sorted(found, key=lambda mail: mail.uid)
        except (OSError, imaplib.IMAP4.error) as exc:
            raise MailboxError(f"Nachrichten konnten nicht abgerufen werden: {_describe(exc)}") from exc

    # -- internals ---------------------------------------------------------------------------------

    def _bodies(self, uids, item: bytes, key: bytes, candidates, *, truncated: bool) -> list[FetchedMail]:
        if not uids:
            return []
        response = self._require().fetch(uids, [item, b"INTERNALDATE"])
        return [
            FetchedMail(
                uid=uid,
                key=candidates[uid].key,
                raw=data.get(key) or b"",
                size=candidates[uid].size,
                received_at=_aware(data.get(b"INTERNALDATE")),
                truncated=truncated,
            )
            for uid, data in response.items()
            if uid in candidates
        ]

    def _check_target(self) -> tuple[str, ...]:
        host, port = self.address.host, self.address.port
        exempt = relay_exemption(self._grants, protocol="imap", host=host, port=port)
        try:
            return resolve_and_check(
                f"imap://{host}:{port}",
                host,
                port,
                resolver=system_resolver,
                allow_loopback=self._allow_loopback,
                exempt=exempt,
            )
        except SsrfRefused as exc:
            raise MailboxError(
                f"Der IMAP-Server {host} zeigt auf eine nicht öffentliche Adresse ({exc.address}, {exc.category}); "
                "aus Sicherheitsgründen verbindet sich Tender Radar nur mit öffentlichen Servern "
                "und mit internen, die der Betreiber der Plattform freigegeben hat."
            ) from exc
        except ResolutionFailed as exc:
            raise MailboxError(f"Der IMAP-Server {host} ist nicht auflösbar: {exc.message}") from exc

    def _starttls(self, client: IMAPClient, where: str) -> None:
        try:
            capabilities = client.capabilities()
        except (OSError, imaplib.IMAP4.error) as exc:
            raise MailboxError(f"Verbindung zu {where} fehlgeschlagen: {_describe(exc)}") from exc
        if b"STARTTLS" not in capabilities:
            raise MailboxError(
                f"{where} bietet kein STARTTLS an; ohne Verschlüsselung wird das Passwort nicht gesendet. "
                "Bitte SSL/TLS (meist Port 993) einstellen."
            )
        try:
            client.starttls(self._ssl_context)
        except ssl.SSLError as exc:
            raise MailboxError(f"TLS-Fehler bei {where} (STARTTLS): {exc}") from exc
        except (OSError, imaplib.IMAP4.error) as exc:
            raise MailboxError(f"STARTTLS bei {where} fehlgeschlagen: {_describe(exc)}") from exc

    def _login(self, client: IMAPClient) -> None:
        try:
            client.login(self.address.username, self.address.password)
        except LoginError as exc:
            raise MailboxError(
                f"Anmeldung als {self.address.username!r} abgelehnt: {_describe(exc)}. "
                "Benutzername und Passwort prüfen."
            ) from exc
        except (OSError, imaplib.IMAP4.error) as exc:
            raise MailboxError(f"Anmeldung fehlgeschlagen: {_describe(exc)}") from exc

    def _require(self) -> IMAPClient:
        if self._client is None:
            raise RuntimeError("MailboxReader is used outside its with-block")
        return self._client

    def _close(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            client.logout()
        except (OSError, imaplib.IMAP4.error):
            with contextlib.suppress(OSError, imaplib.IMAP4.error):
                client.shutdown()


def _chunks(items: Sequence[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def _int(value: object) -> int:
    try:
        return max(0, int(value))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return 0


def _aware(value: object) -> datetime | None:
    return value if isinstance(value, datetime) and value.tzinfo is not None else None


_BYTES_REPR = re.compile(r"""^b(['"])(.*)\1$""", re.DOTALL)


def _describe(exc: BaseException) -> str:
    """A short text for ``last_error``; imaplib puts server replies in as ``b'…'`` reprs."""
    if isinstance(exc, socket.timeout | TimeoutError):
        return "Zeitüberschreitung"
    text = _BYTES_REPR.sub(r"\2", str(exc).strip())
    return text or type(exc).__name__
