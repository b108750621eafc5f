"""Fetcher against a real local HTTP server: retries, conditional GET, limits, redirects, politeness."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kernel.network import (
    BackoffPolicy,
    BlockedByRobots,
    ConditionalState,
    DisallowedHost,
    Fetcher,
    FetchError,
    FetchPolicy,
    HttpStatusError,
    RetriesExhausted,
    RetryAfterTooLong,
    TooLarge,
    TooManyRedirects,
)
from tests.fixtures.network import free_loopback_port

MakeFetcher = Callable[..., Fetcher]
MakePolicy = Callable[..., FetchPolicy]


@pytest.fixture(autouse=True)
def _robots_allow_all(serve_robots) -> None:
    serve_robots(None)


def page_requests(httpserver: HTTPServer, path: str) -> list[Request]:
    return [request for request, _response in httpserver.log if request.path == path]


def test_plain_get_result(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    body = "<p>Straßenbau €</p>".encode("cp1252")
    httpserver.expect_request("/page").respond_with_data(body, content_type="text/html; charset=windows-1252")
    result = make_fetcher().get(httpserver.url_for("/page"))
    assert (result.status, result.body, result.not_modified, result.redirects) == (200, body, False, ())
    assert result.url == result.final_url == httpserver.url_for("/page")
    assert result.headers["content-type"] == "text/html; charset=windows-1252"
    assert result.decoded().text == "<p>Straßenbau €</p>"


def test_user_agent_carries_contact(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    httpserver.expect_request("/page").respond_with_data("ok")
    make_fetcher().get(httpserver.url_for("/page"), headers={"user-agent": "spoofed"})
    agents = {",".join(request.headers.getlist("User-Agent")) for request, _ in httpserver.log}
    assert len(agents) == 1  # robots.txt and page alike; callers cannot override it
    agent = agents.pop()
    assert agent.startswith("TenderRadar/") and "mailto:" in agent


def test_429_retry_after_seconds_then_success(httpserver: HTTPServer, make_fetcher: MakeFetcher, clock) -> None:
    httpserver.expect_oneshot_request("/page").respond_with_data("slow down", status=429, headers={"Retry-After": "5"})
    httpserver.expect_request("/page").respond_with_data("ok")
    result = make_fetcher().get(httpserver.url_for("/page"))
    assert result.body == b"ok"
    assert any(s >= 5 for s in clock.sleeps)
    assert len(page_requests(httpserver, "/page")) == 2


def test_503_retry_after_http_date(httpserver: HTTPServer, make_fetcher: MakeFetcher, clock) -> None:
    """Measured against the server's own Date header (werkzeug sends the real time)."""
    retry_at = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    httpserver.expect_oneshot_request("/page").respond_with_data(
        "maintenance", status=503, headers={"Retry-After": retry_at}
    )
    httpserver.expect_request("/page").respond_with_data("ok")
    assert make_fetcher().get(httpserver.url_for("/page")).body == b"ok"
    assert len(clock.sleeps) == 1 and 28.0 <= clock.sleeps[0] <= 31.0


def test_retry_after_too_long_gives_up_without_sleeping(
    httpserver: HTTPServer, make_fetcher: MakeFetcher, clock
) -> None:
    httpserver.expect_request("/page").respond_with_data("", status=429, headers={"Retry-After": "86400"})
    with pytest.raises(RetryAfterTooLong, match="86400s") as info:
        make_fetcher().get(httpserver.url_for("/page"))
    assert info.value.reason == "retry_after_too_long"
    assert clock.sleeps == []


def test_repeated_500_exhausts_retries_with_capped_backoff(
    httpserver: HTTPServer, make_fetcher: MakeFetcher, make_policy: MakePolicy, clock
) -> None:
    httpserver.expect_request("/page").respond_with_data("boom", status=500)
    policy = make_policy(backoff=BackoffPolicy(base_seconds=1.0, cap_seconds=3.0, max_attempts=5))
    with pytest.raises(RetriesExhausted) as info:
        make_fetcher(policy).get(httpserver.url_for("/page"))
    assert (info.value.attempts, info.value.last_status, info.value.reason) == (5, 500, "retries_exhausted")
    assert len(page_requests(httpserver, "/page")) == 5
    assert clock.sleeps == [1.0, 2.0, 3.0, 3.0]  # MaxRandom: full jitter at its upper bound, capped at 3


def test_404_is_not_retried(httpserver: HTTPServer, make_fetcher: MakeFetcher, clock) -> None:
    httpserver.expect_request("/gone").respond_with_data("nope", status=404)
    with pytest.raises(HttpStatusError) as info:
        make_fetcher().get(httpserver.url_for("/gone"))
    assert (info.value.status, info.value.reason) == (404, "http_404")
    assert len(page_requests(httpserver, "/gone")) == 1 and clock.sleeps == []


def test_connection_refused_is_retried_then_exhausted(
    make_fetcher: MakeFetcher, make_policy: MakePolicy, clock
) -> None:
    fetcher = make_fetcher(make_policy(respect_robots=False))
    with pytest.raises(RetriesExhausted, match="ConnectError") as info:
        fetcher.get(f"http://127.0.0.1:{free_loopback_port()}/page")
    assert info.value.attempts == 3 and info.value.last_status is None
    assert clock.sleeps == [1.0, 2.0]


def test_unreachable_host_with_robots_reports_robots_unreachable(make_fetcher: MakeFetcher) -> None:
    with pytest.raises(BlockedByRobots, match="unreachable") as info:
        make_fetcher().get(f"http://127.0.0.1:{free_loopback_port()}/page")
    assert info.value.reason == "robots_unreachable"


def test_timeout_is_retried(httpserver: HTTPServer, make_fetcher: MakeFetcher, make_policy: MakePolicy) -> None:
    def slow(request: Request) -> Response:
        time.sleep(0.3)
        return Response("late")

    httpserver.expect_request("/slow").respond_with_handler(slow)
    with pytest.raises(RetriesExhausted, match="Timeout"):
        make_fetcher(
            make_policy(timeout_seconds=0.1, backoff=BackoffPolicy(base_seconds=1.0, cap_seconds=4.0, max_attempts=2))
        ).get(httpserver.url_for("/slow"))


def test_conditional_get(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    validators = {"ETag": '"v1"', "Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"}
    httpserver.expect_oneshot_request("/feed").respond_with_data("<rss/>", headers=validators)
    httpserver.expect_request("/feed", headers={"If-None-Match": '"v1"'}).respond_with_data("", status=304)
    fetcher = make_fetcher()
    first = fetcher.get(httpserver.url_for("/feed"))
    assert first.conditional == ConditionalState(etag='"v1"', last_modified="Wed, 21 Oct 2015 07:28:00 GMT")
    second = fetcher.get(httpserver.url_for("/feed"), conditional=first.conditional)
    assert (second.status, second.not_modified, second.body) == (304, True, b"")
    assert second.conditional == first.conditional  # 304 without validators keeps the old ones
    sent = page_requests(httpserver, "/feed")[-1].headers
    assert sent["If-None-Match"] == '"v1"'
    assert sent["If-Modified-Since"] == "Wed, 21 Oct 2015 07:28:00 GMT"


def test_too_large_by_content_length(
    httpserver: HTTPServer, make_fetcher: MakeFetcher, make_policy: MakePolicy
) -> None:
    httpserver.expect_request("/big").respond_with_data(b"x" * 5000)
    with pytest.raises(TooLarge) as info:
        make_fetcher(make_policy(max_body_bytes=1000)).get(httpserver.url_for("/big"))
    assert (info.value.declared, info.value.reason) == (5000, "too_large")


def test_too_large_streamed_without_content_length(
    httpserver: HTTPServer, make_fetcher: MakeFetcher, make_policy: MakePolicy
) -> None:
    produced: list[int] = []

    def endless() -> Iterator[bytes]:
        for _ in range(10_000):  # would be 10 MB
            produced.append(1)
            yield b"y" * 1024

    httpserver.expect_request("/stream").respond_with_handler(lambda request: Response(endless()))
    with pytest.raises(TooLarge) as info:
        make_fetcher(make_policy(max_body_bytes=4096)).get(httpserver.url_for("/stream"))
    assert info.value.declared is None
    assert len(produced) < 10_000  # the stream was cut, not read to the end


def test_redirect_chain_followed_hop_by_hop(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    httpserver.expect_request("/a").respond_with_data("", status=301, headers={"Location": "/b"})
    httpserver.expect_request("/b").respond_with_data("", status=302, headers={"Location": httpserver.url_for("/c")})
    httpserver.expect_request("/c").respond_with_data("final")
    result = make_fetcher().get(httpserver.url_for("/a"))
    assert result.body == b"final"
    assert result.final_url == httpserver.url_for("/c")
    assert result.redirects == (httpserver.url_for("/a"), httpserver.url_for("/b"))


def test_redirect_to_other_host_refused(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    target = "http://attacker.example/steal"
    httpserver.expect_request("/a").respond_with_data("", status=302, headers={"Location": target})
    with pytest.raises(DisallowedHost) as info:
        make_fetcher().get(httpserver.url_for("/a"))
    assert info.value.url == target and info.value.host == "attacker.example"


def test_redirect_to_other_scheme_refused(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    httpserver.expect_request("/a").respond_with_data("", status=302, headers={"Location": "file:///etc/passwd"})
    with pytest.raises(DisallowedHost) as info:
        make_fetcher().get(httpserver.url_for("/a"))
    assert info.value.reason == "disallowed_scheme"


def test_too_many_redirects(httpserver: HTTPServer, make_fetcher: MakeFetcher, make_policy: MakePolicy) -> None:
    httpserver.expect_request("/loop").respond_with_data("", status=302, headers={"Location": "/loop"})
    with pytest.raises(TooManyRedirects):
        make_fetcher(make_policy(max_redirects=3)).get(httpserver.url_for("/loop"))
    assert len(page_requests(httpserver, "/loop")) == 4


def test_post_json_and_303_becomes_get(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    httpserver.expect_request("/search", method="POST", json={"query": "Straße"}).respond_with_data(
        "", status=303, headers={"Location": "/results"}
    )
    httpserver.expect_request("/results", method="GET").respond_with_json({"total": 1})
    result = make_fetcher().post_json(httpserver.url_for("/search"), {"query": "Straße"})
    assert json.loads(result.decoded().text) == {"total": 1}
    assert page_requests(httpserver, "/search")[0].headers["Content-Type"] == "application/json"


def test_politeness_same_host_waits_min_delay(
    httpserver: HTTPServer, make_fetcher: MakeFetcher, make_policy: MakePolicy, clock
) -> None:
    httpserver.expect_request("/page").respond_with_data("ok")
    fetcher = make_fetcher(make_policy(min_delay_seconds=2.0, jitter_seconds=0.5))
    fetcher.get(httpserver.url_for("/page"))  # robots.txt, then page: one wait
    fetcher.get(httpserver.url_for("/page"))  # second wait
    assert len(clock.sleeps) == 2
    assert all(2.0 <= s <= 2.5 for s in clock.sleeps)


def test_politeness_is_per_host(
    httpserver: HTTPServer, make_fetcher: MakeFetcher, make_policy: MakePolicy, clock
) -> None:
    httpserver.expect_request("/page").respond_with_data("ok")
    fetcher = make_fetcher(make_policy(min_delay_seconds=2.0, respect_robots=False))
    fetcher.get(httpserver.url_for("/page"))
    fetcher.get(f"http://127.0.0.1:{httpserver.port}/page")
    assert clock.sleeps == []


def test_broken_gzip_is_a_fetch_error_not_retried(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    httpserver.expect_request("/gz").respond_with_data(b"not gzip at all", headers={"Content-Encoding": "gzip"})
    with pytest.raises(FetchError) as info:
        make_fetcher().get(httpserver.url_for("/gz"))
    assert info.value.reason == "bad_content_encoding"
    assert len(page_requests(httpserver, "/gz")) == 1


def test_session_cookies_live_for_one_run_and_one_host(httpserver: HTTPServer, make_fetcher: MakeFetcher) -> None:
    # Portals such as Vergabe@Net keep the search in a server session (JSESSIONID): a run must
    # send the cookie back, across redirects too, but never to another host or into the next run.
    httpserver.expect_request("/start").respond_with_response(
        Response("", status=302, headers={"Location": "/liste", "Set-Cookie": "JSESSIONID=abc123; Path=/; HttpOnly"})
    )
    httpserver.expect_request("/liste").respond_with_data("Liste")
    httpserver.expect_request("/seite2").respond_with_data("Seite 2")
    run = make_fetcher()
    run.get(httpserver.url_for("/start"))
    run.get(httpserver.url_for("/seite2"))
    run.get(httpserver.url_for("/seite2").replace("localhost", "127.0.0.1"))
    make_fetcher().get(httpserver.url_for("/seite2"))
    cookies = [
        (request.host.split(":")[0], request.path, request.headers.get("Cookie"))
        for request, _ in httpserver.log
        if request.path != "/robots.txt"
    ]
    assert cookies == [
        ("localhost", "/start", None),
        ("localhost", "/liste", "JSESSIONID=abc123"),
        ("localhost", "/seite2", "JSESSIONID=abc123"),
        ("127.0.0.1", "/seite2", None),  # another host
        ("localhost", "/seite2", None),  # the next run
    ]
