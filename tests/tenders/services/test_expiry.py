"""Tenders whose deadline passed are marked expired; closed ones keep their status."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from tenders.models import Tender
from tenders.services import notices_ingest, tenders_expire
from tests.factories.records import NoticeRecordFactory

NOW = datetime(2026, 9, 20, 8, 0, tzinfo=BERLIN)


@pytest.mark.django_db
def test_only_active_tenders_past_their_deadline_expire():
    passed = NOW - timedelta(minutes=1)
    notices_ingest(
        records=[
            NoticeRecordFactory(title="Abgelaufen Dachdeckerarbeiten", submission_deadline=passed),
            NoticeRecordFactory(title="Noch offen Dachdeckerarbeiten", submission_deadline=NOW + timedelta(days=1)),
            NoticeRecordFactory(title="Vergeben Dachdeckerarbeiten", submission_deadline=passed, kind=NoticeKind.AWARD),
        ],
        now=NOW - timedelta(days=1),
        use_fingerprint=False,
    )
    assert tenders_expire(now=NOW) == 1
    assert dict(Tender.objects.values_list("title", "status")) == {
        "Abgelaufen Dachdeckerarbeiten": "expired",
        "Noch offen Dachdeckerarbeiten": "active",
        "Vergeben Dachdeckerarbeiten": "awarded",
    }
    assert tenders_expire(now=NOW) == 0  # idempotent
