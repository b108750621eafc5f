"""SSRF guard: refused before any connection; only loopback traffic ever happens in these tests."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable

import httpx
import pytest
from pytest_httpserver import HTTPServer

from kernel.network import DisallowedHost, Fetcher, FetchPolicy, ResolutionFailed, SsrfRefused
from kernel.network.ssrf import refusal_category, resolve_and_check


def _never_called(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no request may be sent, got {request.url}")


NO_NETWORK = httpx.MockTransport(_never_called)


@pytest.mark.parametrize(
    ("address", "category"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),  # noqa: S104 - an address under test, nothing binds
        ("::", "unspecified"),
        ("240.0.0.1", "private"),  # reserved; Python also lists it as private
        ("100.64.0.1", "non-global"),
        ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::a9fe:a9fe", "link-local"),  # NAT64 wrapping 169.254.169.254
        ("93.184.215.14", None),
        ("2a00:1450:4001:82b::200e", None),
    ],
)
def test_refusal_categories(address: str, category: str | None) -> None:
    assert refusal_category(ipaddress.ip_address(address), allow_loopback=False) == category


def test_loopback_only_with_allow_loopback() -> None:
    assert refusal_category(ipaddress.ip_address("127.0.0.1"), allow_loopback=True) is None
    assert refusal_category(ipaddress.ip_address("10.0.0.1"), allow_loopback=True) == "private"


def test_every_resolved_address_is_checked() -> None:
    def resolver(host: str, port: int) -> Iterable[str]:
        return ["93.184.215.14", "10.1.2.3"]

    with pytest.raises(SsrfRefused, match="10.1.2.3") as info:
        resolve_and_check("http://mixed.example/", "mixed.example", 80, resolver=resolver, allow_loopback=False)
    assert info.value.category == "private"


def test_resolution_failure_is_reported() -> None:
    def resolver(host: str, port: int) -> Iterable[str]:
        raise OSError("Name or service not known")

    with pytest.raises(ResolutionFailed) as info:
        resolve_and_check("http://nx.example/", "nx.example", 80, resolver=resolver, allow_loopback=False)
    assert info.value.reason == "dns"


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://10.0.0.1/admin", "10.0.0.1"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://[::1]:8080/", "::1"),
        ("http://intranet.example/", "intranet.example"),
    ],
)
def test_private_targets_refused_without_traffic(url: str, host: str, make_fetcher: Callable[..., Fetcher]) -> None:
    policy = FetchPolicy(allowed_hosts=frozenset({host}), allow_loopback=False)
    fetcher = make_fetcher(policy, transport=NO_NETWORK, resolver=lambda h, p: ["10.20.30.40"])
    with pytest.raises(SsrfRefused) as info:
        fetcher.get(url)
    assert info.value.reason == "ssrf"
    assert url in str(info.value)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_refused_before_connecting(
    host: str, httpserver: HTTPServer, make_fetcher: Callable[..., Fetcher], make_policy: Callable[..., FetchPolicy]
) -> None:
    httpserver.expect_request("/page").respond_with_data("secret")
    fetcher = make_fetcher(make_policy(allow_loopback=False))
    with pytest.raises(SsrfRefused, match="loopback"):
        fetcher.get(f"http://{host}:{httpserver.port}/page")
    assert httpserver.log == []


def test_dns_rebinding_caught_at_connect_time(
    httpserver: HTTPServer, make_fetcher: Callable[..., Fetcher], make_policy: Callable[..., FetchPolicy]
) -> None:
    """First answer is public (passes the pre-check), the connect-time answer is loopback."""
    answers = iter([["93.184.215.14"], ["127.0.0.1"]])

    def rebinding(host: str, port: int) -> Iterable[str]:
        return next(answers)

    httpserver.expect_request("/page").respond_with_data("secret")
    policy = make_policy(allowed_hosts=frozenset({"rebind.example"}), allow_loopback=False, respect_robots=False)
    fetcher = make_fetcher(policy, resolver=rebinding)
    url = f"http://rebind.example:{httpserver.port}/page"
    with pytest.raises(SsrfRefused) as info:
        fetcher.get(url)
    assert info.value.url == url and info.value.category == "loopback"
    assert httpserver.log == []


def test_connect_time_guard_refuses_private_even_with_allow_loopback(
    httpserver: HTTPServer, make_fetcher: Callable[..., Fetcher], make_policy: Callable[..., FetchPolicy]
) -> None:
    answers = iter([["127.0.0.1"], ["10.9.8.7"]])
    policy = make_policy(allowed_hosts=frozenset({"rebind.example"}), respect_robots=False)
    fetcher = make_fetcher(policy, resolver=lambda h, p: next(answers))
    with pytest.raises(SsrfRefused, match="10.9.8.7"):
        fetcher.get(f"http://rebind.example:{httpserver.port}/page")
    assert httpserver.log == []


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://not-allowed.example/", "disallowed_host"),
        ("ftp://localhost/file", "disallowed_scheme"),
        ("file:///etc/passwd", "disallowed_scheme"),
    ],
)
def test_host_and_scheme_allow_list(url: str, reason: str, make_fetcher: Callable[..., Fetcher]) -> None:
    fetcher = make_fetcher(transport=NO_NETWORK)
    with pytest.raises(DisallowedHost) as info:
        fetcher.get(url)
    assert info.value.reason == reason


def test_empty_allow_list_refuses_everything(make_fetcher: Callable[..., Fetcher]) -> None:
    fetcher = make_fetcher(FetchPolicy(), transport=NO_NETWORK)
    with pytest.raises(DisallowedHost, match="none configured"):
        fetcher.get("https://www.evergabe-online.de/")
