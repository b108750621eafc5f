"""The tenant's end of the hand-off: every delta pending for this tenant, matched as one, completed once.

Runs in the tenant's schema (``notifications.match_pending_deltas``). One round, in ONE
transaction: take the tenant's matching lock, read the oldest pending deltas
(``tenders.handoff.deltas_pending``), coalesce them, run ``delta_process`` over the union and
write the completion rows. The completions commit with the matches or not at all, so a crash
before commit leaves the deltas pending (matched again later, creating nothing twice: matches
and change notices are unique, mails are made only for rows this round inserted) and a crash
after commit leaves nothing to repeat.

Coalescing: a burst of batches from many sources (twelve deltas within a minute) costs the
tenant one matching statement instead of twelve. The lock serialises rounds of one tenant:
the tasks that queued up behind a round find its deltas completed and return at once.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from notifications.alerts.services import delta_process
from tenders.handoff import deltas_coalesce, deltas_complete, deltas_pending

# A round reads at most this many deltas; more wait for the next round of the same task (bounded memory).
DELTAS_PER_ROUND = 50
_LOCK_NAMESPACE = 0x7464  # "td": tenant matching, one lock per schema


@dataclass
class PendingRun:
    rounds: int = 0
    deltas: int = 0
    matches: int = 0
    changes: int = 0
    mails: int = 0


def _lock_tenant_matching(schema_name: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, %s)",
            [_LOCK_NAMESPACE, zlib.crc32(schema_name.encode()) - 2**31],
        )


def deltas_match_pending(*, now: datetime | None = None, limit: int = DELTAS_PER_ROUND) -> PendingRun:
    """Match every delta this tenant has not completed yet, ``limit`` deltas per round and transaction."""
    tenant = connection.tenant
    run = PendingRun()
    while True:
        round_now = now or timezone.now()
        with transaction.atomic():
            _lock_tenant_matching(tenant.schema_name)
            deltas = deltas_pending(tenant_id=tenant.pk, tenant_created_at=tenant.created_at, limit=limit)
            if not deltas:
                return run
            created, changed = deltas_coalesce(deltas)
            outcome = delta_process(created=created, changed=changed, now=round_now)
            deltas_complete(tenant_id=tenant.pk, delta_ids=[d.id for d in deltas], now=round_now)
        run.rounds += 1
        run.deltas += len(deltas)
        run.matches += len(outcome.match_ids)
        run.changes += len(outcome.change_ids)
        run.mails += len(outcome.delivery_ids)
        if len(deltas) < limit:
            return run
