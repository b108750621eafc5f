"""Sending webhook events: at most once per event, retried with backoff, every step recorded.

Bookkeeping (the claim protocol is shared with the e-mail outbox, ``notifications.outbox``):

1. An event is claimed alone, in its own short transaction (``SELECT … FOR UPDATE SKIP
   LOCKED``; status ``sending``, ``attempts`` + 1), committed *before* the request goes out.
2. Only a 2xx answer marks it ``sent``; retryable failures put it back to
   ``pending`` with a later ``next_attempt_at``; final ones mark it ``failed``.
3. A row still ``sending`` long after every timeout expired means the worker died
   mid-request: we cannot know whether the partner got it, so it becomes
   ``uncertain`` and is shown to the admin instead of being sent again.

Network errors after the request left (e.g. a read timeout) are retried as the
brief for partners says; they de-duplicate by ``X-TenderRadar-Delivery``.

The request: httpx directly (not ``kernel.network.Fetcher``, which is for
read-only sources and retries on its own), through the SSRF-guarded transport,
no redirects, short timeouts, response body read only up to a small cap.

Limit: httpx timeouts apply per socket operation, so a receiver trickling its
response headers can hold one attempt longer than the timeouts suggest; if that
outlasts ``SENDING_STALE_AFTER`` the event ends ``uncertain``, never sent twice.
"""

from __future__ import annotations

import json
import logging
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from django.conf import settings
from django.utils import timezone

from accounts.secrets import SecretUnreadable
from kernel.network import (
    BackoffPolicy,
    decode_bytes,
    guarded_transport,
    parse_retry_after,
    read_limited,
    system_resolver,
)
from notifications.models import DeliveryStatus, Webhook, WebhookEvent
from notifications.outbox import outbox_claim_next, outbox_release_stale
from notifications.webhooks.outcomes import (
    Outcome,
    RetryRule,
    outcome_for_network_error,
    outcome_for_response,
    outcome_refused,
)
from notifications.webhooks.signing import DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signature_header
from notifications.webhooks.targets import WebhookTargetRefused, webhook_loopback_allowed, webhook_url_check

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 5.0
READ_TIMEOUT_SECONDS = 10.0
# Wall-clock budget for the answer body; together with the timeouts it bounds one attempt (< 30 s).
TOTAL_DEADLINE_SECONDS = 15.0
RESPONSE_EXCERPT_BYTES = 2048
# Far above the longest possible attempt: a row this old in ``sending`` belongs to a dead worker.
SENDING_STALE_AFTER = timedelta(minutes=10)
DEFAULT_BATCH_LIMIT = 200


@dataclass(frozen=True)
class SendSummary:
    sent: int = 0
    retrying: int = 0
    failed: int = 0
    uncertain: int = 0  # rows found stuck in ``sending``, or broken off by an unexpected error


@dataclass(frozen=True)
class _Claimed:
    event_id: int
    event: str
    delivery_id: str
    payload: dict
    url: str
    secret: str | None
    attempts: int
    claimed_at: datetime


def webhook_events_release_stuck(*, now: datetime | None = None) -> int:
    """Mark events whose worker died mid-request as ``uncertain`` (never re-sent automatically)."""
    now = now or timezone.now()
    return outbox_release_stale(
        WebhookEvent.objects.all(),
        claimed_before=now - SENDING_STALE_AFTER,
        reason="Zustellung wurde unterbrochen; ob der Empfänger das Ereignis erhalten hat, ist unbekannt. "
        "Es wird nicht erneut gesendet.",
    )


def _claim_next(*, now: datetime) -> _Claimed | None:
    due = WebhookEvent.objects.select_related("webhook").defer("webhook__secret").filter(webhook__is_active=True)
    event = outbox_claim_next(due, now=now)
    if event is None:
        return None
    try:
        secret: str | None = str(Webhook.objects.values_list("secret", flat=True).get(pk=event.webhook_id))
    except SecretUnreadable:
        secret = None  # recorded as a failure of this event instead of blocking the queue
    return _Claimed(
        event_id=event.pk,
        event=event.event,
        delivery_id=str(event.payload.get("id") or event.pk),
        payload=event.payload,
        url=event.webhook.url,
        secret=secret,
        attempts=event.attempts,
        claimed_at=now,
    )


def _request_headers(claimed: _Claimed, body: bytes) -> dict[str, str]:
    return {
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": f"TenderRadar-Webhooks/1.0 (+mailto:{settings.TENDER_RADAR_CONTACT})",
        SIGNATURE_HEADER: signature_header(secret=claimed.secret, body=body, timestamp=int(time.time())),
        EVENT_HEADER: claimed.event,
        DELIVERY_HEADER: claimed.delivery_id,
    }


def _excerpt(response: httpx.Response, url: str) -> str:
    """The start of the answer, for the log; a slow or huge body is not waited for."""
    try:
        raw = read_limited(
            response,
            url,
            limit=RESPONSE_EXCERPT_BYTES,
            truncate=True,
            deadline=time.monotonic() + TOTAL_DEADLINE_SECONDS,
            clock=time.monotonic,
        )
    except httpx.HTTPError:
        return ""
    return decode_bytes(raw, content_type=response.headers.get("content-type")).text


def webhook_retry_rule() -> RetryRule:
    """The webhooks' retry policy from settings (``WEBHOOKS_BACKOFF``, ``WEBHOOKS_RETRY_AFTER_CAP_SECONDS``)."""
    return RetryRule(
        backoff=BackoffPolicy.from_setting(settings.WEBHOOKS_BACKOFF),
        retry_after_cap_seconds=float(settings.WEBHOOKS_RETRY_AFTER_CAP_SECONDS),
    )


def _attempt(client: httpx.Client, claimed: _Claimed, rule: RetryRule, rng: random.Random) -> Outcome:
    if claimed.secret is None:
        return outcome_refused(error="Der Signaturschlüssel des Webhooks ist nicht lesbar (Schlüssel entfernt?).")
    allow_loopback = webhook_loopback_allowed()
    try:
        url = webhook_url_check(claimed.url, allow_loopback=allow_loopback, resolver=system_resolver)
    except WebhookTargetRefused as exc:
        if exc.retryable:
            return outcome_for_network_error(error=exc.message, attempts=claimed.attempts, rule=rule, rng=rng)
        return outcome_refused(error=exc.message)
    body = json.dumps(claimed.payload, ensure_ascii=False, separators=(",", ":")).encode()
    try:
        with client.stream("POST", url, content=body, headers=_request_headers(claimed, body)) as response:
            status = response.status_code
            retry_after = parse_retry_after(
                response.headers.get("retry-after"), date_header=response.headers.get("date")
            )
            excerpt = "" if 200 <= status <= 299 else _excerpt(response, url)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return outcome_for_network_error(error=detail, attempts=claimed.attempts, rule=rule, rng=rng)
    return outcome_for_response(
        status=status, attempts=claimed.attempts, retry_after=retry_after, body_excerpt=excerpt, rule=rule, rng=rng
    )


def _record(claimed: _Claimed, outcome: Outcome, *, now: datetime) -> None:
    """Write the outcome, but only onto our own claim (a row released meanwhile stays as it is)."""
    fields: dict = {"response_status": outcome.response_status, "last_error": outcome.error}
    if outcome.verdict == "sent":
        fields.update(status=DeliveryStatus.SENT, sent_at=now)
    elif outcome.verdict == "retry":
        fields.update(status=DeliveryStatus.PENDING, next_attempt_at=now + timedelta(seconds=outcome.retry_in_seconds))
    else:
        fields.update(status=DeliveryStatus.FAILED)
    updated = WebhookEvent.objects.filter(
        pk=claimed.event_id, status=DeliveryStatus.SENDING, claimed_at=claimed.claimed_at
    ).update(**fields)
    if not updated:
        logger.warning("webhook event %s changed while being sent; outcome %s not recorded", claimed.event_id, outcome)


def _record_uncertain(claimed: _Claimed) -> None:
    WebhookEvent.objects.filter(pk=claimed.event_id, status=DeliveryStatus.SENDING).update(
        status=DeliveryStatus.UNCERTAIN,
        last_error="Interner Fehler beim Senden; ob der Empfänger das Ereignis erhalten hat, ist unbekannt.",
    )


def _client() -> httpx.Client:
    return httpx.Client(
        transport=guarded_transport(resolver=system_resolver, allow_loopback=webhook_loopback_allowed()),
        follow_redirects=False,
        trust_env=False,
        timeout=httpx.Timeout(READ_TIMEOUT_SECONDS, connect=CONNECT_TIMEOUT_SECONDS),
    )


def webhook_events_send_due(*, now: datetime | None = None, limit: int = DEFAULT_BATCH_LIMIT) -> SendSummary:
    """Send up to ``limit`` due events of the current tenant, one claim at a time.

    ``now`` only decides what is due and when retries happen (tests move it forward);
    the signature always carries the real clock.
    """
    uncertain = webhook_events_release_stuck(now=now)
    counts = {"sent": 0, "retry": 0, "failed": 0}
    rng = random.Random()  # noqa: S311 - jitter, not security
    rule = webhook_retry_rule()
    with _client() as client:
        for _ in range(limit):
            claim_time = now or timezone.now()
            claimed = _claim_next(now=claim_time)
            if claimed is None:
                break
            try:
                outcome = _attempt(client, claimed, rule, rng)
            except Exception:
                # A bug must not stop the batch, and we cannot tell whether the request left: uncertain.
                logger.exception("webhook event %s: unexpected error while sending", claimed.event_id)
                _record_uncertain(claimed)
                uncertain += 1
                continue
            _record(claimed, outcome, now=now or timezone.now())
            counts[outcome.verdict] += 1
    return SendSummary(sent=counts["sent"], retrying=counts["retry"], failed=counts["failed"], uncertain=uncertain)
