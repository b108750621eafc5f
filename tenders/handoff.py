"""Handing an ingest's delta to matching, which lives on the tenant side.

Shared code never imports a tenant app: the match task is addressed by its name and
sent from the public schema (it fans out to every tenant itself). Sent after commit,
so matching never sees tenders the batch then rolled back.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django_tenants.utils import get_public_schema_name

from tenders.services import IngestDelta

logger = logging.getLogger(__name__)

MATCH_TASK_NAME = "notifications.match_delta"


def delta_payload(delta: IngestDelta) -> dict:
    """What the match task takes: ``{"created": [ids], "changed": {"<id>": {field: [old, new]}}}``."""
    return {"created": list(delta.created), "changed": {str(k): v for k, v in delta.changed.items()}}


def delta_hand_off(delta: IngestDelta) -> None:
    """After the current transaction commits, send new and changed tenders to matching."""
    if not delta.touched:
        return
    from config.celery import app

    if MATCH_TASK_NAME not in app.tasks:  # a deployment without the tenant side: say so, never drop silently
        logger.error("matching task %s is not registered; %d tenders not matched", MATCH_TASK_NAME, len(delta.touched))
        return
    payload = delta_payload(delta)
    headers = {"_schema_name": get_public_schema_name()}
    transaction.on_commit(lambda: app.send_task(MATCH_TASK_NAME, kwargs={"delta": payload}, headers=headers))
