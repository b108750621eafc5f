"""Deadlines pass without a notice saying so: the status follows the clock."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from kernel.vocabulary.statuses import TenderStatus
from tenders.models import Tender


def tenders_expire(*, now: datetime | None = None) -> int:
    """Active tenders whose submission deadline passed become expired (one UPDATE)."""
    now = now or timezone.now()
    return Tender.objects.filter(status=TenderStatus.ACTIVE, submission_deadline__lt=now).update(
        status=TenderStatus.EXPIRED, changed_at=now
    )
