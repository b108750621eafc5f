"""Conditional-GET validators stored per (source, URL): load before a run, save after it.

The in-run cache and the ``ConditionalFetcher`` adapters use are pure (``sources.conditional``);
only these two services touch ``ConditionalCacheEntry``. See ``sources.conditional`` for the rules.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from sources.conditional import CacheEntry, ConditionalCache
from sources.models import ConditionalCacheEntry, Source

__all__ = ["RETENTION_DAYS", "conditional_cache_load", "conditional_cache_save"]

RETENTION_DAYS = 60


def conditional_cache_load(*, source: Source) -> ConditionalCache:
    """All stored validators of ``source`` (one query)."""
    rows = ConditionalCacheEntry.objects.filter(source=source).values_list(
        "url", "etag", "last_modified", "body_sha256"
    )
    return ConditionalCache(
        {url: CacheEntry(etag=etag, last_modified=modified, body_sha256=sha) for url, etag, modified, sha in rows}
    )


def conditional_cache_save(*, source: Source, cache: ConditionalCache, now: datetime | None = None) -> None:
    """Write this run's entries back set-based: one upsert, one delete of forgotten and stale URLs."""
    now = now or timezone.now()
    upserts, deletions = cache.changes()
    with transaction.atomic():
        if upserts:
            ConditionalCacheEntry.objects.bulk_create(
                [
                    ConditionalCacheEntry(
                        source=source,
                        url=url,
                        etag=entry.etag,
                        last_modified=entry.last_modified,
                        body_sha256=entry.body_sha256,
                        fetched_at=now,
                    )
                    for url, entry in sorted(upserts.items())
                ],
                update_conflicts=True,
                unique_fields=["source", "url"],
                update_fields=["etag", "last_modified", "body_sha256", "fetched_at"],
                batch_size=1000,
            )
        stale = ConditionalCacheEntry.objects.filter(source=source, fetched_at__lt=now - timedelta(days=RETENTION_DAYS))
        if deletions:
            ConditionalCacheEntry.objects.filter(source=source, url__in=sorted(deletions)).delete()
        stale.delete()
