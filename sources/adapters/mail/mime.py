"""Raw RFC 5322 bytes -> ``MailContent``: headers and readable text, whatever the mail's shape.

Parsed with the stdlib ``email`` package (``policy.default``). Body text comes from the
best text/plain and text/html parts (``get_body``: multipart/alternative, related and
mixed, HTML-only mails), plus the same parts of forwarded mails (``message/rfc822``
attachments), so a user forwarding an alert to the mailbox works too. Transfer encodings
(quoted-printable, base64) are undone by ``email``; the bytes are decoded by us: the
declared charset first, and when it does not fit (replacement characters) the document's
own declaration / UTF-8 / windows-1252 via :func:`kernel.network.decode_bytes`.

Broken mail: header values ``email`` cannot parse are read raw; MIME defects are listed
in ``defects``; a multipart whose boundary never appears is read as one text body so its
links are not lost. Nothing here raises for bad input.
"""

from __future__ import annotations

import base64
import binascii
import email
import email.policy
import quopri
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage, Message
from email.utils import parseaddr, parsedate_to_datetime

from kernel.network import decode_bytes
from kernel.normalise import clean_text
from sources.adapters.mail.fields import html_to_text

__all__ = ["MailContent", "read_message"]

MAX_FORWARDED = 5  # forwarded mails read per message


@dataclass(frozen=True)
class MailContent:
    message_id: str
    subject: str
    sender: str  # display form, e.g. "tender24 <noreply@tender24.de>"
    sender_address: str  # lower case
    date: datetime | None
    text: str  # the plain-text body, or the HTML body as text when there is no plain part
    html_text: str  # the HTML body as text with links kept as <url> ("" without HTML part)
    content_type: str
    auto_submitted: str  # RFC 3834 header ("auto-replied" for vacation replies)
    defects: tuple[str, ...]
    decoding_problems: tuple[str, ...]
    return_path: str = ""  # the envelope sender the receiving server recorded (lower case, without <>)
    authentication_results: tuple[str, ...] = ()  # every Authentication-Results header value, top first
    # (name, value) of the top-level Received and Authentication-Results fields in header order, top first:
    # RFC 8601 §5 trusts a field by where it stands, so the order is kept (lower-case names, unfolded values).
    trace_fields: tuple[tuple[str, str], ...] = ()

    @property
    def best_text(self) -> str:
        """The body to extract notices from: HTML keeps the link targets behind link texts."""
        return self.html_text or self.text


def read_message(raw: bytes) -> MailContent:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    problems: list[str] = []
    plain_parts: list[str] = []
    html_parts: list[str] = []
    defects = [_defect_name(d) for d in message.defects]
    for part_message in _messages(message):
        defects.extend(_defect_name(d) for part in part_message.walk() for d in part.defects)
        _collect_bodies(part_message, plain_parts, html_parts, problems)
    if not plain_parts and not html_parts and message.get_content_maintype() == "multipart":
        # A boundary that never appears leaves the whole body unsplit: read it as text, links and all.
        payload = message.get_payload()
        if isinstance(payload, str) and payload.strip():
            plain_parts.append(decode_bytes(payload.encode("utf-8", "surrogateescape")).text)
    sender = _header(message, "from")
    _name, address = parseaddr(sender)
    html_text = "\n\n".join(html_to_text(html, links=True) for html in html_parts)
    text = "\n\n".join(plain_parts) or "\n\n".join(html_to_text(html) for html in html_parts)
    return MailContent(
        message_id=_header(message, "message-id").strip(),
        subject=clean_text(_header(message, "subject"), limit=998),
        sender=clean_text(sender, limit=998),
        sender_address=address.strip().lower(),
        date=_date(_header(message, "date")),
        text=text,
        html_text=html_text,
        content_type=message.get_content_type(),
        auto_submitted=_header(message, "auto-submitted").strip().lower(),
        defects=tuple(dict.fromkeys(defects)),
        decoding_problems=tuple(dict.fromkeys(problems)),
        return_path=parseaddr(_header(message, "return-path"))[1].strip().lower(),
        authentication_results=_headers(message, "authentication-results"),
        trace_fields=_fields_in_order(message, ("received", "authentication-results")),
    )


def _messages(message: EmailMessage) -> list[Message]:
    """The message itself and up to MAX_FORWARDED forwarded messages attached to it."""
    found: list[Message] = [message]
    for part in message.walk():
        if part.get_content_type() == "message/rfc822" and len(found) <= MAX_FORWARDED:
            payload = part.get_payload()
            inner = payload[0] if isinstance(payload, list) and payload else None
            if isinstance(inner, Message):
                found.append(_reparsed(part, inner))
    return found


def _reparsed(part: Message, inner: Message) -> Message:
    """Some clients base64- or QP-encode a forwarded message (RFC 2046 forbids it); undo that."""
    encoding = str(part.get("content-transfer-encoding", "")).strip().lower()
    body = inner.get_payload()
    if encoding not in ("base64", "quoted-printable") or not isinstance(body, str):
        return inner
    data = body.encode("ascii", "surrogateescape")
    try:
        decoded = base64.b64decode(data) if encoding == "base64" else quopri.decodestring(data)
    except (binascii.Error, ValueError):
        return inner
    return email.message_from_bytes(decoded, policy=email.policy.default)


def _collect_bodies(message: Message, plain: list[str], html: list[str], problems: list[str]) -> None:
    get_body = getattr(message, "get_body", None)
    if get_body is None:
        return
    for subtype, target in (("plain", plain), ("html", html)):
        try:
            part = get_body(preferencelist=(subtype,))
        except Exception as exc:  # a broken structure must not stop the other part or the rest of the mail
            problems.append(f"text/{subtype} part unreadable: {type(exc).__name__}: {exc}")
            continue
        if part is not None:
            text = _part_text(part, problems)
            if text.strip():
                target.append(text)


def _part_text(part: Message, problems: list[str]) -> str:
    try:
        payload = part.get_payload(decode=True)
    except Exception as exc:  # e.g. a transfer encoding email cannot undo
        problems.append(f"{part.get_content_type()} body cannot be decoded: {type(exc).__name__}: {exc}")
        return ""
    if not isinstance(payload, bytes):
        return ""
    charset = _charset(part)
    content_type = f"{part.get_content_type()}; charset={charset}" if charset else None
    decoded = decode_bytes(payload, content_type=content_type)
    if decoded.garbled and charset:
        fallback = decode_bytes(payload)
        if not fallback.garbled:
            problems.append(f"declared charset {charset!r} does not fit the body; read as {fallback.encoding}")
            decoded = fallback
    if decoded.garbled:
        problems.append(f"{part.get_content_type()} body is not valid {decoded.encoding}; some characters are lost")
    return decoded.text


def _charset(part: Message) -> str:
    try:
        return part.get_content_charset() or ""
    except Exception:  # a malformed Content-Type parameter: fall back to sniffing
        return ""


def _header(message: Message, name: str) -> str:
    """A header as text; values ``policy.default`` cannot parse are decoded from their raw form."""
    try:
        value = message.get(name)
    except Exception:  # policy.default refused the value; read it raw below
        value = None
    else:
        return "" if value is None else str(value)
    for key, raw in message.raw_items():
        if key.lower() == name:
            data = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else bytes(raw)
            return decode_bytes(data).text
    return ""


def _headers(message: Message, name: str) -> tuple[str, ...]:
    """Every value of a header that may occur more than once, in message order, read raw (unfolded)."""
    return tuple(value for _name, value in _fields_in_order(message, (name,)))


def _fields_in_order(message: Message, names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(lower-case name, raw unfolded value) of the fields named ``names``, in the order the header holds them."""
    fields = []
    for key, raw in message.raw_items():
        name = str(key).strip().lower()
        if name in names:
            text = raw if isinstance(raw, str) else bytes(raw).decode("ascii", "replace")
            fields.append((name, " ".join(text.encode("ascii", "replace").decode("ascii").split())))
    return tuple(fields)


def _date(value: str) -> datetime | None:
    if not value.strip():
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return parsed if parsed.tzinfo is not None else None


def _defect_name(defect: object) -> str:
    detail = str(defect)
    name = type(defect).__name__
    return f"{name}: {detail}" if detail and detail != name else name
