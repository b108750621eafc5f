"""Reading the demo receiver's files back, for the portal's "Webhook-Empfang (lokal)" page.

Only local settings name the folder (``LOCAL_WEBHOOK_DIR``); production sets none, so the page
does not exist there. A tenant sees only requests sent to one of its own webhooks' URLs, each
checked with that webhook's secret exactly as a partner checks it (``verify_signature`` over the
raw bytes received, with the time they arrived as "now").
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from notifications.models import Webhook
from notifications.webhooks.signing import DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, verify_signature

MAX_SHOWN = 200


@dataclass(frozen=True)
class ReceivedWebhook:
    key: str
    received_at: datetime
    url: str
    headers: tuple[tuple[str, str], ...]
    body: str
    event: str
    delivery: str
    signature_valid: bool


def local_webhook_dir() -> Path | None:
    value = getattr(settings, "LOCAL_WEBHOOK_DIR", None)
    return Path(value) if value else None


def _read(path: Path) -> dict | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        record["raw"] = base64.b64decode(record["body"], validate=True)
        record["received_at"] = float(record["received_at"])
    except (OSError, ValueError, KeyError, TypeError, binascii.Error):
        return None  # removed meanwhile, or not the receiver's
    return record if isinstance(record.get("headers"), list) and isinstance(record.get("url"), str) else None


def received_webhook_list() -> list[ReceivedWebhook]:
    """Requests the receiver filed for this tenant's webhooks, newest first ([] without a local receiver)."""
    folder = local_webhook_dir()
    if folder is None or not folder.exists():
        return []
    secrets = {webhook.url: webhook.secret for webhook in Webhook.objects.only("url", "secret")}
    shown = []
    for path in sorted(folder.glob("[0-9]*.json"), reverse=True):
        record = _read(path)
        if record is None or record["url"] not in secrets:
            continue
        headers = tuple((str(name), str(value)) for name, value in record["headers"])
        found = {name.lower(): value for name, value in headers}
        secret = secrets[record["url"]]
        shown.append(
            ReceivedWebhook(
                key=path.stem,
                received_at=datetime.fromtimestamp(record["received_at"], tz=UTC),
                url=record["url"],
                headers=headers,
                body=record["raw"].decode("utf-8", "replace"),
                event=found.get(EVENT_HEADER.lower(), ""),
                delivery=found.get(DELIVERY_HEADER.lower(), ""),
                signature_valid=bool(secret)
                and verify_signature(
                    secret=str(secret),
                    body=record["raw"],
                    header=found.get(SIGNATURE_HEADER.lower(), ""),
                    now=int(record["received_at"]),
                ),
            )
        )
        if len(shown) >= MAX_SHOWN:
            break
    return shown
