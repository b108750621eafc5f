"""Conditional GET across runs: validators sent and recorded, body-hash fallback, set-based persistence."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.utils import timezone
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kernel.network import Fetcher, FetchPolicy
from sources.conditional import (
    ETAG_MAX_LENGTH,
    LAST_MODIFIED_MAX_LENGTH,
    URL_MAX_LENGTH,
    CacheEntry,
    ConditionalCache,
    ConditionalFetcher,
    fetcher_forget,
    fetcher_knows,
)
from sources.conditional_store import RETENTION_DAYS, conditional_cache_load, conditional_cache_save
from sources.models import ConditionalCacheEntry, Source
from tests.fixtures.network import loopback_resolver


@pytest.fixture
def fetcher(httpserver: HTTPServer) -> Iterator[Fetcher]:
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    policy = FetchPolicy(
        allowed_hosts=frozenset({"localhost"}), allow_loopback=True, min_delay_seconds=0, jitter_seconds=0
    )
    with Fetcher(policy, sleep=lambda s: None, resolver=loopback_resolver) as client:
        yield client


def sha256(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def validating(etag: str | None, last_modified: str | None, body: bytes = b"<html>Liste</html>"):
    seen: list[dict[str, str]] = []

    def handler(request: Request) -> Response:
        seen.append(dict(request.headers))
        headers = {k: v for k, v in (("ETag", etag), ("Last-Modified", last_modified)) if v}
        if (etag and request.headers.get("If-None-Match") == etag) or (
            last_modified and request.headers.get("If-Modified-Since") == last_modified
        ):
            return Response(status=304, headers=headers)
        return Response(body, content_type="text/html", headers=headers)

    return handler, seen


def test_stored_validators_are_sent_and_a_304_is_not_modified(httpserver, fetcher) -> None:
    handler, seen = validating('"v1"', "Tue, 15 Sep 2026 08:00:00 GMT")
    httpserver.expect_request("/page").respond_with_handler(handler)
    url = httpserver.url_for("/page")
    client = ConditionalFetcher(fetcher, ConditionalCache())
    first = client.get(url)
    assert not first.not_modified and first.body
    assert "If-None-Match" not in seen[0]
    second = client.get(url)
    assert second.not_modified and second.body == b""
    assert seen[1]["If-None-Match"] == '"v1"' and seen[1]["If-Modified-Since"] == "Tue, 15 Sep 2026 08:00:00 GMT"
    assert client.cache.get(url) == CacheEntry('"v1"', "Tue, 15 Sep 2026 08:00:00 GMT", sha256(first.body))


def test_without_validators_the_same_bytes_count_as_not_modified(httpserver, fetcher) -> None:
    bodies = iter([b"<html>A</html>", b"<html>A</html>", b"<html>B</html>"])
    httpserver.expect_request("/page").respond_with_handler(lambda request: Response(next(bodies)))
    url = httpserver.url_for("/page")
    client = ConditionalFetcher(fetcher, ConditionalCache())
    assert not client.get(url).not_modified
    same = client.get(url)
    assert same.not_modified and same.body == b"<html>A</html>"  # body kept: the adapter may still parse links
    assert not client.get(url).not_modified


def test_forget_and_knows_work_on_plain_fetchers_too(httpserver, fetcher) -> None:
    httpserver.expect_request("/page").respond_with_data("x")
    url = httpserver.url_for("/page")
    assert not fetcher_knows(fetcher, url)
    fetcher_forget(fetcher, url)  # no cache: nothing to do, no error
    client = ConditionalFetcher(fetcher, ConditionalCache())
    client.get(url)
    assert fetcher_knows(client, url)
    fetcher_forget(client, url)
    assert not fetcher_knows(client, url)
    assert client.cache.changes() == ({}, {url})


def test_post_json_passes_through_unconditionally(httpserver, fetcher) -> None:
    httpserver.expect_request("/api", method="POST").respond_with_json({"ok": True})
    client = ConditionalFetcher(fetcher, ConditionalCache())
    assert client.post_json(httpserver.url_for("/api"), {"q": 1}).status == 200
    assert len(client.cache) == 0


@pytest.mark.django_db
def test_load_is_one_query_and_save_is_set_based(django_assert_num_queries, django_assert_max_num_queries) -> None:
    source = Source.objects.get(key="tender24")
    now = timezone.now()
    ConditionalCacheEntry.objects.bulk_create(
        [
            ConditionalCacheEntry(source=source, url=f"https://www.tender24.de/p{i}", etag=f'"{i}"', fetched_at=now)
            for i in range(300)
        ]
    )
    with django_assert_num_queries(1):
        cache = conditional_cache_load(source=source)
    assert len(cache) == 300 and cache.get("https://www.tender24.de/p7") == CacheEntry('"7"', "", "")
    for i in range(300, 800):
        cache.remember(f"https://www.tender24.de/p{i}", CacheEntry(etag=f'"{i}"', body_sha256="ab" * 32))
    cache.remember("https://www.tender24.de/p1", CacheEntry(etag='"changed"'))
    cache.forget("https://www.tender24.de/p2")
    with django_assert_max_num_queries(6):  # savepoint, one upsert, two deletes
        conditional_cache_save(source=source, cache=cache, now=now)
    stored = dict(ConditionalCacheEntry.objects.filter(source=source).values_list("url", "etag"))
    assert len(stored) == 799
    assert stored["https://www.tender24.de/p1"] == '"changed"' and "https://www.tender24.de/p2" not in stored


@pytest.mark.django_db
def test_entries_unused_for_the_retention_period_are_deleted() -> None:
    source = Source.objects.get(key="tender24")
    now = timezone.now()
    ConditionalCacheEntry.objects.bulk_create(
        [
            ConditionalCacheEntry(
                source=source, url="https://www.tender24.de/old", fetched_at=now - timedelta(days=RETENTION_DAYS + 1)
            ),
            ConditionalCacheEntry(
                source=source, url="https://www.tender24.de/recent", fetched_at=now - timedelta(days=1)
            ),
        ]
    )
    conditional_cache_save(source=source, cache=conditional_cache_load(source=source), now=now)
    assert list(ConditionalCacheEntry.objects.filter(source=source).values_list("url", flat=True)) == [
        "https://www.tender24.de/recent"
    ]


@pytest.mark.django_db
def test_oversized_validators_and_urls_are_not_stored(httpserver, fetcher) -> None:
    long_etag = '"' + "e" * 600 + '"'
    httpserver.expect_request("/page").respond_with_data("<html>x</html>", headers={"ETag": long_etag})
    source = Source.objects.get(key="tender24")
    client = ConditionalFetcher(fetcher, ConditionalCache())
    client.get(httpserver.url_for("/page"))
    client.cache.remember("https://www.tender24.de/" + "x" * 2100, CacheEntry(etag='"a"'))
    conditional_cache_save(source=source, cache=client.cache)
    [(url, etag, digest)] = ConditionalCacheEntry.objects.values_list("url", "etag", "body_sha256")
    assert (url, etag, digest) == (httpserver.url_for("/page"), "", sha256(b"<html>x</html>"))


def test_the_pure_cache_limits_are_the_column_sizes():
    """``sources.conditional`` has no ORM (adapters use it), so its limits are constants kept equal here."""
    field = ConditionalCacheEntry._meta.get_field
    assert (
        field("url").max_length,
        field("etag").max_length,
        field("last_modified").max_length,
    ) == (URL_MAX_LENGTH, ETAG_MAX_LENGTH, LAST_MODIFIED_MAX_LENGTH)
