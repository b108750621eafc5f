"""robots.txt: fetched once per origin through the guarded path; failure modes per RFC 9309 / Google."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytest_httpserver import HTTPServer

from kernel.network import BackoffPolicy, BlockedByRobots, Fetcher, FetchPolicy
from kernel.network.robots import rules_from_response

ROBOTS = "https://portal.example/robots.txt"


@pytest.mark.parametrize(
    ("status", "allowed"),
    [(404, True), (410, True), (401, True), (403, True), (429, False), (500, False), (503, False)],
)
def test_status_mapping(status: int, allowed: bool) -> None:
    rules = rules_from_response(ROBOTS, status, b"")
    assert rules.allows("https://portal.example/anything", "TenderRadar") is allowed


def test_rules_match_the_product_token_not_the_contact_url() -> None:
    body = b"User-agent: tender-radar\nDisallow: /\n\nUser-agent: TenderRadar\nDisallow: /intern\n"
    rules = rules_from_response(ROBOTS, 200, body)
    assert rules.allows("https://portal.example/ausschreibungen", "TenderRadar")
    assert not rules.allows("https://portal.example/intern/x", "TenderRadar")


def test_disallowed_page_is_never_requested(
    httpserver: HTTPServer, make_fetcher: Callable[..., Fetcher], serve_robots, server_paths
) -> None:
    serve_robots("User-agent: *\nDisallow: /private\n")
    httpserver.expect_request("/private/list").respond_with_data("secret")
    fetcher = make_fetcher()
    with pytest.raises(BlockedByRobots) as info:
        fetcher.get(httpserver.url_for("/private/list"))
    assert info.value.reason == "robots"
    assert httpserver.url_for("/private/list") in str(info.value)
    assert server_paths() == ["/robots.txt"]


def test_robots_404_allows_everything_and_is_fetched_once(
    httpserver: HTTPServer, make_fetcher: Callable[..., Fetcher], serve_robots, server_paths
) -> None:
    serve_robots(None)
    httpserver.expect_request("/a").respond_with_data("A")
    httpserver.expect_request("/b").respond_with_data("B")
    fetcher = make_fetcher()
    assert fetcher.get(httpserver.url_for("/a")).body == b"A"
    assert fetcher.get(httpserver.url_for("/b")).body == b"B"
    assert server_paths() == ["/robots.txt", "/a", "/b"]


def test_robots_5xx_disallows_for_this_run(
    httpserver: HTTPServer,
    make_fetcher: Callable[..., Fetcher],
    make_policy: Callable[..., FetchPolicy],
    serve_robots,
    server_paths,
) -> None:
    serve_robots("down", status=500)
    httpserver.expect_request("/a").respond_with_data("A")
    fetcher = make_fetcher(make_policy(backoff=BackoffPolicy(base_seconds=1.0, cap_seconds=4.0, max_attempts=2)))
    for path in ("/a", "/b"):
        with pytest.raises(BlockedByRobots, match="unreachable"):
            fetcher.get(httpserver.url_for(path))
    assert server_paths() == ["/robots.txt", "/robots.txt"]  # one retry, then cached for the run


def test_respect_robots_false_skips_robots(
    httpserver: HTTPServer,
    make_fetcher: Callable[..., Fetcher],
    make_policy: Callable[..., FetchPolicy],
    server_paths,
) -> None:
    httpserver.expect_request("/a").respond_with_data("A")
    make_fetcher(make_policy(respect_robots=False)).get(httpserver.url_for("/a"))
    assert server_paths() == ["/a"]


def test_crawl_delay_raises_the_per_host_delay(
    httpserver: HTTPServer, make_fetcher: Callable[..., Fetcher], serve_robots, clock
) -> None:
    serve_robots("User-agent: *\nCrawl-delay: 7\n")
    httpserver.expect_request("/a").respond_with_data("A")
    fetcher = make_fetcher()
    fetcher.get(httpserver.url_for("/a"))
    fetcher.get(httpserver.url_for("/a"))
    assert clock.sleeps and all(s >= 7 for s in clock.sleeps)
