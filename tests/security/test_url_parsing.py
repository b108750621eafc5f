"""URLs are read as browsers read them (WHATWG), wherever a host is checked (issue #27, F4 and F10).

F4: ``https://evil.example\\@www.tender24.de/…`` is host www.tender24.de to ``urllib.parse`` but
evil.example to every browser (a backslash is "/" in http(s) URLs). F10: the SSRF guard must
refuse IPv6 addresses that carry a non-public IPv4 (6to4, NAT64, mapped, Teredo, compatible).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime

import pytest
from django.template import Context, Template
from pytest_httpserver import HTTPServer
from werkzeug.wrappers import Response

from kernel.links import records_links_checked, safe_link
from kernel.network import BackoffPolicy, DisallowedHost, Fetcher, FetchError, FetchPolicy, SsrfRefused
from kernel.network.ssrf import refusal_category, resolve_and_check
from kernel.records import NoticeRecord
from sources.adapters.html import absolute_url
from sources.adapters.mail.portals import DEFAULT_HOST_SOURCES, PORTAL_DOMAINS, classify_link
from sources.adapters.mail.provenance import MailTrust
from sources.adapters.mail.verdict import PARSED, mail_judge
from tests.fixtures.mail import RECEIVING_SERVER, as_received
from tests.fixtures.network import loopback_resolver

OID = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"
F4 = f"https://evil.example\\@www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID={OID}"
USERINFO = f"https://www.tender24.de@evil.example/NetServer/TenderingProcedureDetails?TenderOID={OID}"
TAB = f"https://ev\til.example\\@www.tender24.de/NetServer/TenderingProcedureDetails?TenderOID={OID}"
NEWLINE = f"https://www.tender24.de\n\\@evil.example/NetServer/TenderingProcedureDetails?TenderOID={OID}"


# --- alert mails --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Mail:
    key: str
    raw: bytes
    size: int
    received_at: datetime | None
    truncated: bool


def _alert(link: str) -> _Mail:
    """A DKIM-verified tender24 alert whose only notice link is ``link``."""
    raw = (
        "From: tender24 Vergabeplattform <noreply@tender24.de>\r\nTo: einkauf@alpha-bau.example\r\n"
        "Subject: Neue Ausschreibungen zu Ihrem Suchprofil\r\nMessage-ID: <f4@tender24.de>\r\n"
        "Date: Mon, 02 Mar 2026 06:00:00 +0100\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        f"Neue Ausschreibungen zu Ihrem Suchprofil Bau:\r\n\r\nSanierung Grundschule\r\n   {link}\r\n"
    ).encode()
    raw = as_received(raw, dkim="tender24.de")
    return _Mail(key="<f4@tender24.de>", raw=raw, size=len(raw), received_at=None, truncated=False)


def _judge(link: str):
    return mail_judge(
        _alert(link),
        host_sources=DEFAULT_HOST_SOURCES,
        trust=MailTrust(authserv_id=RECEIVING_SERVER),
        portal_domains=PORTAL_DOMAINS,
    )


def test_the_f4_link_in_an_alert_mail_leads_to_evil_example_and_is_never_ingested():
    link = classify_link(F4)
    assert link is not None and link.host == "evil.example"  # urllib.parse said www.tender24.de
    verdict = _judge(F4)
    assert verdict.status != PARSED
    assert "backslash" in verdict.reason
    assert [record.url for record in verdict.parse.records] == [""]


@pytest.mark.parametrize("url", [USERINFO, TAB])
def test_userinfo_and_tab_tricks_in_an_alert_mail_are_named_and_not_ingested(url):
    link = classify_link(url)
    assert link is not None and link.host == "evil.example"  # the tab is removed, as browsers remove it
    verdict = _judge(url)
    assert verdict.status != PARSED
    assert [record.url for record in verdict.parse.records if record.url] == []


def test_a_genuine_tender24_link_still_verifies():
    genuine = f"https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID={OID}"
    verdict = _judge(genuine)
    assert verdict.status == PARSED and [record.url for record in verdict.parse.records] == [genuine]


# --- links of records and the portal ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "named"),
    [
        (F4, "backslash"),
        (USERINFO, "user name or password"),
        (TAB, "control characters"),
        (NEWLINE, "control characters"),
        ("https:/evil.example/x", "another host"),  # browsers read host evil.example, urlsplit none
        ("http://0x7f.1/x", "another host"),  # browsers read 127.0.0.1
    ],
)
def test_a_records_document_link_that_browsers_read_differently_is_dropped_with_a_problem(url, named):
    record = NoticeRecord(source="tender24", source_notice_id=OID, url="https://www.tender24.de/x", documents_url=url)
    checked = records_links_checked([record])
    assert checked.records[0].documents_url == "" and checked.records[0].url == "https://www.tender24.de/x"
    (problem,) = checked.problems
    assert problem.startswith(f"tender24:{OID}: documents_url ") and named in problem and problem.endswith("dropped")


@pytest.mark.parametrize("url", [F4, USERINFO, TAB, NEWLINE, " java\tscript:alert(1)"])
def test_the_portal_never_renders_them_as_links(url):
    assert safe_link(url) == ""
    html = Template('{% load external_links %}<a href="{{ url|safe_href }}">x</a>').render(Context({"url": url}))
    assert html == '<a href="">x</a>'


def test_a_portal_page_link_is_resolved_to_the_host_browsers_go_to():
    # A portal page's href is resolved as the browser on that page resolves it, and kept as that
    # serialisation, which names evil.example to every later reader.
    resolved = absolute_url("https://www.tender24.de/NetServer/", F4)
    assert resolved.startswith("https://evil.example/@www.tender24.de/NetServer/")
    assert safe_link(resolved) == resolved
    assert absolute_url("https://www.tender24.de/NetServer/list", "..\\Details?x=1") == (
        "https://www.tender24.de/Details?x=1"
    )


# --- fetching: targets and redirect hops --------------------------------------------------------------


def _fetcher(**overrides: object) -> Fetcher:
    values: dict[str, object] = {
        "allowed_hosts": frozenset({"localhost", "127.0.0.1"}),
        "allow_loopback": True,
        "min_delay_seconds": 0.0,
        "jitter_seconds": 0.0,
        "timeout_seconds": 5.0,
        "respect_robots": False,
        "backoff": BackoffPolicy(base_seconds=0.0, cap_seconds=0.0, max_attempts=1),
    }
    values.update(overrides)
    return Fetcher(FetchPolicy(**values), sleep=lambda seconds: None, resolver=loopback_resolver)  # type: ignore[arg-type]


class _RawRedirect(Response):
    """A 302 whose Location goes out byte for byte (werkzeug would percent-encode the backslash)."""

    def __init__(self, location: str) -> None:
        super().__init__("", status=302)
        self.raw_location = location

    def get_wsgi_headers(self, environ):
        headers = super().get_wsgi_headers(environ)
        headers["Location"] = self.raw_location
        return headers


def test_a_redirect_location_with_the_f4_trick_is_checked_as_the_host_browsers_go_to(httpserver: HTTPServer):
    location = f"http://evil.example\\@localhost:{httpserver.port}/secret"
    httpserver.expect_request("/start").respond_with_response(_RawRedirect(location))
    httpserver.expect_request("/secret").respond_with_data("must not be fetched")
    with _fetcher() as fetcher, pytest.raises(DisallowedHost) as info:
        fetcher.get(httpserver.url_for("/start"))
    assert info.value.host == "evil.example"  # httpx's own reading was localhost
    assert [request.path for request, _response in httpserver.log] == ["/start"]


def test_a_fetch_target_with_the_f4_trick_or_userinfo_is_refused_before_any_request(httpserver: HTTPServer):
    httpserver.expect_request("/secret").respond_with_data("must not be fetched")
    with _fetcher() as fetcher:
        with pytest.raises(DisallowedHost) as info:
            fetcher.get(f"http://evil.example\\@localhost:{httpserver.port}/secret")
        assert info.value.host == "evil.example"
        with pytest.raises(FetchError, match="user name or password") as info:
            fetcher.get(f"http://user:pw@localhost:{httpserver.port}/secret")
        assert info.value.reason == "invalid_url"
    assert httpserver.log == []


def test_the_request_goes_where_a_browser_would_go(httpserver: HTTPServer):
    # Backslash as path separator and a tab inside the host: browsers fetch http://localhost:<port>/page.
    httpserver.expect_request("/page").respond_with_data("the page")
    with _fetcher() as fetcher:
        result = fetcher.get(f"http://local\thost:{httpserver.port}\\page")
    assert result.body == b"the page"
    assert [request.path for request, _response in httpserver.log] == ["/page"]


# --- the SSRF guard: IPv6 addresses that carry a non-public IPv4 (F10) -------------------------------


EMBEDDED = [
    ("2002:7f00:1::1", "loopback"),  # 6to4 of 127.0.0.1
    ("2002:a9fe:a9fe::1", "link-local"),  # 6to4 of 169.254.169.254 (cloud metadata)
    ("2002:a00:1::", "private"),  # 6to4 of 10.0.0.1
    ("64:ff9b::7f00:1", "loopback"),  # NAT64 of 127.0.0.1
    ("64:ff9b::c0a8:101", "private"),  # NAT64 of 192.168.1.1
    ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped
    ("::ffff:169.254.169.254", "link-local"),
    ("::127.0.0.1", "loopback"),  # IPv4-compatible (deprecated)
    ("::10.0.0.1", "private"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),  # Teredo, client 127.0.0.1 (obfuscated)
    ("2001:0:a00:1:8000:63bf:f7f7:f7f7", "private"),  # Teredo server 10.0.0.1
]


@pytest.mark.parametrize(("address", "category"), EMBEDDED)
def test_addresses_carrying_a_non_public_ipv4_are_refused_for_its_reason(address, category):
    assert refusal_category(ipaddress.ip_address(address), allow_loopback=False) == category


@pytest.mark.parametrize(
    "address", ["2002:7f00:1::1", "64:ff9b::7f00:1", "::127.0.0.1", "2001:0:4136:e378:8000:63bf:80ff:fffe"]
)
def test_the_loopback_allowance_of_the_test_settings_covers_no_translated_loopback(address):
    # Loopback behind a translator or tunnel is never the local test server.
    assert refusal_category(ipaddress.ip_address(address), allow_loopback=True) == "loopback"
    assert refusal_category(ipaddress.ip_address("127.0.0.1"), allow_loopback=True) is None
    assert refusal_category(ipaddress.ip_address("::ffff:127.0.0.1"), allow_loopback=True) is None


@pytest.mark.parametrize("address", ["2002:808:808::1", "64:ff9b::808:808", "::ffff:8.8.8.8"])
def test_translated_public_ipv4_stays_allowed(address):
    assert refusal_category(ipaddress.ip_address(address), allow_loopback=False) is None


@pytest.mark.parametrize(("address", "category"), EMBEDDED)
def test_a_host_resolving_to_them_is_refused_before_any_connection(address, category, httpserver: HTTPServer):
    httpserver.expect_request("/page").respond_with_data("secret")
    url = f"http://sixtofour.example:{httpserver.port}/page"
    with pytest.raises(SsrfRefused) as info:
        resolve_and_check(
            url, "sixtofour.example", httpserver.port, resolver=lambda h, p: [address], allow_loopback=False
        )
    assert (info.value.address, info.value.category) == (str(ipaddress.ip_address(address)), category)
    policy = {"allowed_hosts": frozenset({"sixtofour.example"}), "allow_loopback": False}
    fetcher = Fetcher(
        FetchPolicy(**policy, min_delay_seconds=0.0, jitter_seconds=0.0, respect_robots=False),
        sleep=lambda seconds: None,
        resolver=lambda host, port: [address],
    )
    with fetcher, pytest.raises(SsrfRefused) as info:
        fetcher.get(url)
    assert info.value.category == category
    assert httpserver.log == []
