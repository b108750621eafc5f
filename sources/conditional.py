"""Conditional GET across runs: ETag / Last-Modified (and a body hash) per (source, URL).

Why: portal pages are polled every one or two hours and rarely change. With the
validators of the last run a result page costs a 304 instead of a download, and the
adapter skips the detail pages behind an unchanged result page, so a second run
against unchanged pages is only conditional requests.

How: ``sources.conditional_store.conditional_cache_load`` reads all
``ConditionalCacheEntry`` rows of the source once; ``ConditionalFetcher`` (here, no ORM, so
adapters may use it) wraps the run's ``Fetcher``, sends the stored validators and keeps the
new ones in memory; ``conditional_cache_save`` writes them back at
the end in one upsert and one delete. The service saves only after the last
batch was ingested: a run that fails half-way remembers nothing, so the next run
downloads (and ingests) everything again instead of trusting a 304 for content that
never reached the database.

Rules:

* A 304 is ``not_modified``. Servers without validators (typical for servlet pages)
  still benefit: a 200 whose body hashes to the stored ``body_sha256`` is returned
  with ``not_modified=True`` as well (body kept), so "unchanged" means the same to
  the adapter whichever way the server says it.
* An adapter that could not fully process a page (a detail failed, a cap was hit)
  calls :meth:`ConditionalFetcher.forget`; the stored entry is deleted at save time,
  so the next run fetches and parses that page again.
* Entries not used for ``RETENTION_DAYS`` are deleted on save (detail pages of
  notices that left the portal).

Limits: keyed by the requested URL (query included, so a page with a session token in
its URL never hits). Validators longer than the model fields are not stored (the
hash still is). ``post_json`` requests are passed through unconditionally.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kernel.network import ConditionalState, Fetcher, FetchPolicy, FetchResult

__all__ = [
    "CacheEntry",
    "ConditionalCache",
    "ConditionalFetcher",
    "fetcher_forget",
    "fetcher_knows",
]

# The column sizes of ``ConditionalCacheEntry`` (a test keeps them equal): longer values are not stored.
URL_MAX_LENGTH = 2000
ETAG_MAX_LENGTH = 500
LAST_MODIFIED_MAX_LENGTH = 100


@dataclass(frozen=True)
class CacheEntry:
    etag: str = ""
    last_modified: str = ""
    body_sha256: str = ""

    def state(self) -> ConditionalState | None:
        if not (self.etag or self.last_modified):
            return None
        return ConditionalState(etag=self.etag or None, last_modified=self.last_modified or None)


class ConditionalCache:
    """One source's validators during one run: stored entries plus this run's changes."""

    def __init__(self, entries: Mapping[str, CacheEntry] | None = None) -> None:
        self._entries: dict[str, CacheEntry] = dict(entries or {})
        self._touched: set[str] = set()
        self._forgotten: set[str] = set()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, url: str) -> CacheEntry | None:
        return self._entries.get(url)

    def knows(self, url: str) -> bool:
        """True if an earlier complete run processed ``url`` (or this run did, and did not forget it)."""
        return url in self._entries

    def remember(self, url: str, entry: CacheEntry) -> None:
        if len(url) > URL_MAX_LENGTH:
            return
        self._entries[url] = entry
        self._touched.add(url)
        self._forgotten.discard(url)

    def forget(self, url: str) -> None:
        self._entries.pop(url, None)
        self._touched.discard(url)
        self._forgotten.add(url)

    def changes(self) -> tuple[dict[str, CacheEntry], set[str]]:
        """(entries to upsert, URLs to delete) for this run."""
        return {url: self._entries[url] for url in self._touched}, set(self._forgotten)


class ConditionalFetcher:
    """A ``Fetcher`` stand-in that sends the stored validators and records the new ones.

    Same ``get``/``post_json``/context-manager surface as :class:`~kernel.network.Fetcher`,
    plus :meth:`knows` and :meth:`forget` for adapters that skip work behind unchanged pages.
    """

    def __init__(self, fetcher: Fetcher, cache: ConditionalCache) -> None:
        self._fetcher = fetcher
        self.cache = cache

    @property
    def policy(self) -> FetchPolicy:
        return self._fetcher.policy

    def get(
        self, url: str, *, conditional: ConditionalState | None = None, headers: Mapping[str, str] | None = None
    ) -> FetchResult:
        stored = self.cache.get(url)
        if conditional is None and stored is not None:
            conditional = stored.state()
        result = self._fetcher.get(url, conditional=conditional, headers=headers)
        if result.not_modified:
            digest = stored.body_sha256 if stored else ""
        else:
            digest = hashlib.sha256(result.body).hexdigest()
            if stored is not None and stored.body_sha256 == digest:
                result = dataclasses.replace(result, not_modified=True)
        etag = result.conditional.etag or ""
        last_modified = result.conditional.last_modified or ""
        self.cache.remember(
            url,
            CacheEntry(
                etag=etag if len(etag) <= ETAG_MAX_LENGTH else "",
                last_modified=last_modified if len(last_modified) <= LAST_MODIFIED_MAX_LENGTH else "",
                body_sha256=digest,
            ),
        )
        return result

    def post_json(self, url: str, json_body: Any, *, headers: Mapping[str, str] | None = None) -> FetchResult:
        return self._fetcher.post_json(url, json_body, headers=headers)

    def knows(self, url: str) -> bool:
        return self.cache.knows(url)

    def forget(self, url: str) -> None:
        self.cache.forget(url)

    def close(self) -> None:
        self._fetcher.close()

    def __enter__(self) -> ConditionalFetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def fetcher_knows(fetcher: Fetcher | ConditionalFetcher, url: str) -> bool:
    """True if ``url`` was fully processed by an earlier run (always False without a conditional cache)."""
    return isinstance(fetcher, ConditionalFetcher) and fetcher.knows(url)


def fetcher_forget(fetcher: Fetcher | ConditionalFetcher, url: str) -> None:
    """Make the next run fetch and parse ``url`` again (no-op without a conditional cache)."""
    if isinstance(fetcher, ConditionalFetcher):
        fetcher.forget(url)
