"""Saved searches that matching could not evaluate: marked with the reason, cleared once they work again.

A failing profile never silences the others (``notifications.alerts.matching`` falls back to
evaluating profiles one by one); its owner sees the reason on the profile, the tenant admin
sees every failing profile of the company in the settings.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import datetime

from django.db import connection

from notifications.models import SavedSearch

logger = logging.getLogger(__name__)

REASON_MAX_LENGTH = 1000


def saved_searches_mark_failing(*, reasons: Mapping[int, str], now: datetime) -> int:
    """Record why each of these profiles could not be evaluated; ``failing_since`` keeps the first time."""
    changed = 0
    for saved_search_id, reason in sorted(reasons.items()):
        reason = reason[:REASON_MAX_LENGTH]
        changed += SavedSearch.objects.filter(pk=saved_search_id, failing_since__isnull=True).update(
            failing_since=now, failing_reason=reason
        )
        SavedSearch.objects.filter(pk=saved_search_id, failing_since__isnull=False).exclude(
            failing_reason=reason
        ).update(failing_reason=reason)
    if reasons:
        logger.warning(
            "tenant %s: %d saved searches could not be matched (%d newly failing): %s",
            connection.schema_name,
            len(reasons),
            changed,
            ", ".join(f"{pk}: {reason}" for pk, reason in sorted(reasons.items())),
        )
    return changed


def saved_searches_clear_failing(*, saved_search_ids: Iterable[int]) -> int:
    """Profiles that were evaluated without error again lose their mark."""
    ids = sorted(set(saved_search_ids))
    if not ids:
        return 0
    cleared = SavedSearch.objects.filter(pk__in=ids, failing_since__isnull=False).update(
        failing_since=None, failing_reason=""
    )
    if cleared:
        logger.info("tenant %s: %d saved searches match again", connection.schema_name, cleared)
    return cleared
