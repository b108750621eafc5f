"""The Redis cache keeps one client per server (config.redis_cache): same answers as Django's own, shared
safely by threads and by a forked child, keys still carrying the tenant's schema."""

from __future__ import annotations

import os
import threading

import pytest
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.db import connection
from django_tenants.utils import schema_context

from config.redis_cache import RedisCache
from tests.fixtures.processes import RedisServer

PARAMS = {"KEY_FUNCTION": "django_tenants.cache.make_key", "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key"}


@pytest.fixture
def redis_url(tmp_path):
    server = RedisServer(directory=tmp_path)
    server.start()
    yield server.url
    server.stop()


def test_one_client_serves_every_call_with_djangos_answers(redis_url):
    kept, django_own = RedisCache(redis_url, PARAMS), DjangoRedisCache(redis_url, PARAMS)
    client = kept._cache.get_client()
    assert kept._cache.get_client() is client and kept._cache.get_client(write=True) is client
    kept.set("portal-names", [("doe", "DÖE")], 60)
    assert django_own.get("portal-names") == kept.get("portal-names") == [("doe", "DÖE")]
    django_own.set("counter", 1)
    assert kept.incr("counter") == 2 and django_own.get("counter") == 2
    assert kept.get_or_set("fresh", lambda: "built", 60) == "built" == django_own.get("fresh")
    kept.delete("fresh")
    assert django_own.get("fresh") is None


def test_keys_still_carry_the_tenants_schema(redis_url, alpha, beta):
    cache = RedisCache(redis_url, PARAMS)
    with schema_context(alpha.schema_name):
        cache.set("source-names", "alpha's", 60)
    with schema_context(beta.schema_name):
        assert cache.get("source-names") is None
        cache.set("source-names", "beta's", 60)
    with schema_context(alpha.schema_name):
        assert cache.get("source-names") == "alpha's"
    assert connection.schema_name == "public"


def test_threads_share_the_client(redis_url):
    cache = RedisCache(redis_url, PARAMS)
    wrong = []

    def work(number: int) -> None:
        for round_ in range(50):
            cache.set(f"thread-{number}", (number, round_), 60)
            if cache.get(f"thread-{number}") != (number, round_):
                wrong.append((number, round_))

    threads = [threading.Thread(target=work, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_a_forked_child_talks_over_its_own_connections(redis_url):
    # gunicorn forks its workers from one process: a client kept before the fork must not share sockets.
    cache = RedisCache(redis_url, PARAMS)
    cache.set("before-fork", "parent", 60)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, never return into pytest
        try:
            cache.set("from-child", os.getpid(), 60)
            answer = f"{cache.get('before-fork')}:{cache._cache.get_client().connection_pool.pid == os.getpid()}"
            os.write(write, answer.encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 100).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert answer == "parent:True"
    assert cache.get("from-child") == pid and cache.get("before-fork") == "parent"
