"""Webhook signatures: HMAC-SHA256 over "<unix time>.<body>", sent as ``t=<unix>,v1=<hex>``.

Why the timestamp is signed too: a receiver that checks it (``tolerance_seconds``)
cannot be fed a captured request again later. Receivers should also remember the
``X-TenderRadar-Delivery`` id: retries of one event carry the same id.

Pure functions, no Django: partners can copy ``verify_signature`` as reference code.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SIGNATURE_HEADER = "X-TenderRadar-Signature"
EVENT_HEADER = "X-TenderRadar-Event"
DELIVERY_HEADER = "X-TenderRadar-Delivery"
SECRET_PREFIX = "whsec_"  # noqa: S105 - a marker, not a secret
DEFAULT_TOLERANCE_SECONDS = 300


def new_signing_secret() -> str:
    """256 bits from the OS random source, URL-safe; the prefix makes leaked secrets easy to spot."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def _digest(secret: str, body: bytes, timestamp: int) -> str:
    message = f"{timestamp}.".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(*, secret: str, body: bytes, timestamp: int) -> str:
    """The value of ``X-TenderRadar-Signature`` for ``body`` sent at ``timestamp`` (unix seconds)."""
    return f"t={timestamp},v1={_digest(secret, body, timestamp)}"


def parse_signature_header(header: str) -> tuple[int | None, list[str]]:
    """(timestamp, v1 signatures); unknown schemes are ignored so new ones can be added alongside."""
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep:
            continue
        if key == "t" and value.isascii() and value.isdigit():
            timestamp = int(value)
        elif key == "v1" and value:
            signatures.append(value.lower())
    return timestamp, signatures


def verify_signature(
    *, secret: str, body: bytes, header: str, now: int, tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS
) -> bool:
    """True if ``header`` carries a valid v1 signature of ``body`` made within ``tolerance_seconds`` of ``now``.

    ``body`` must be the raw request bytes (re-serialised JSON will not match).
    """
    timestamp, signatures = parse_signature_header(header or "")
    if timestamp is None or not signatures or abs(now - timestamp) > tolerance_seconds:
        return False
    expected = _digest(secret, body, timestamp)
    return any(hmac.compare_digest(expected, candidate) for candidate in signatures)
