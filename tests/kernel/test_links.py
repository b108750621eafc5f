"""Links in foreign notices and the portal ids they carry: one set of rules for every parser (pure)."""

from __future__ import annotations

import json
import random
from urllib.parse import urlsplit

import pytest

from kernel.links import (
    portal_references_from_urls,
    records_links_checked,
    safe_link,
    urls_in_json,
    urls_in_text,
)
from kernel.records import NoticeRecord
from kernel.urls import host_normalised, url_host, web_url
from sources.parsers.ocds import parse_ocds_package
from sources.parsers.ted_json import parse_ted_notice


def test_portal_references_from_urls():
    urls = [
        "https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID=54321-Tender-1a09ee5f4b7-72f9ab694e623ec2",
        "https://vergabe.landbw.de/NetServer/PublicationControllerServlet?function=Detail&TOID=54321-NetTender-17f&Category=x",
        "https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5",
        "https://www.evergabe-online.de/Satellite/public/company/project/CXS7YY6YTM1SY43C/de/overview",
        "https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&amp;TenderOID=54321-Tender-1a09ee5f4b7-72f9ab694e623ec2",
        "www.dtvp.de/Satellite/notice/CXP4Y9PRGS5/",
        None,
        "",
    ]
    assert portal_references_from_urls(urls) == (
        "netserver:54321-Tender-1a09ee5f4b7-72f9ab694e623ec2",
        "netserver:54321-NetTender-17f",
        "cosinex:CXP4Y9PRGS5",
        "cosinex:CXS7YY6YTM1SY43C",
    )


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/page?TOID=abc",  # TOID outside NetServer with no NetServer-shaped value
        "https://www.dtvp.de/Satellite/notice/CX12",  # too short for a cosinex id
        "https://www.dtvp.de/Satellite/notice/cxp4y9prgs5",  # cosinex ids are upper case
        "https://www.tender24.de/NetServer/x?TenderOID=<script>",
        "http://[::1",  # unparsable
        "not a url",
    ],
)
def test_portal_references_from_urls_ignores_non_portal_links(url):
    assert portal_references_from_urls([url]) == ()


def test_urls_in_text_drop_trailing_punctuation():
    text = "Unterlagen: https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5. Fragen (www.vergabe.de/x), sonst nichts"
    assert urls_in_text(text) == ["https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5", "www.vergabe.de/x"]


def test_urls_in_json_walk_every_string_but_not_forever():
    document = {"a": ["siehe https://a.example/1", {"b": "http://b.example/2;"}], "n": 5, "c": None}
    assert urls_in_json(document) == ["https://a.example/1", "http://b.example/2"]
    deep: dict = {"url": "https://deep.example/"}
    for _ in range(100):
        deep = {"x": deep}
    assert urls_in_json(deep) == []  # hostile nesting ends the walk


LOOKALIKE = "https://example.org/page?TOID=abc"  # a TOID outside NetServer with no NetServer-shaped value
NETSERVER = (
    "https://vergabe.landbw.de/NetServer/PublicationControllerServlet?function=Detail&amp;TOID=54321-NetTender-17f"
)
COSINEX_IN_QUERY = "https://www.evergabe-online.de/tenderdetails.html?id=CXS7YY6YTM1SY43C"


def test_ocds_releases_follow_the_same_rules():
    release = {
        "ocid": "ocds-x-1",
        "id": "rel-1",
        "tag": ["tender"],
        "tender": {
            "id": "proc-1",
            "title": "T",
            "documents": [{"url": u} for u in (LOOKALIKE, NETSERVER, COSINEX_IN_QUERY)],
        },
    }
    (record,) = parse_ocds_package(json.dumps({"releases": [release]}).encode())
    assert record.portal_references == ("netserver:54321-NetTender-17f", "cosinex:CXS7YY6YTM1SY43C")


def test_ted_notices_follow_the_same_rules():
    notice = {
        "publication-number": "123456-2026",
        "notice-title": {"deu": "Dacharbeiten"},
        "document-url-lot": {"deu": [LOOKALIKE, NETSERVER, COSINEX_IN_QUERY]},
    }
    record = parse_ted_notice(notice)
    assert record.portal_references == ("netserver:54321-NetTender-17f", "cosinex:CXS7YY6YTM1SY43C")


# --- which links may be kept (the ingest boundary's rule) ---------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        " JavaScript:alert(1)",
        "java\tscript:alert(1)",
        "\x01javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "//evil.example/x",
        "/relative/path",
        "https:/evil.example",
        "https://",
        "http://[::1",
        "ftp://files.example/x",
        "https://a.example/\x00x",
        "",
        None,
    ],
)
def test_safe_link_refuses_everything_but_http_links_with_a_host(url):
    assert safe_link(url) == ""


def test_safe_link_keeps_http_links_as_given():
    assert (
        safe_link(" https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5 ")
        == "https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5"
    )
    assert safe_link("HTTP://Vergabe.Example:8080/ä?x=1#y") == "HTTP://Vergabe.Example:8080/ä?x=1#y"


def test_records_links_checked_empties_unsafe_links_and_names_each():
    safe = NoticeRecord(source="ted", source_notice_id="1-2026", url="https://ted.europa.eu/x")
    unsafe = NoticeRecord(source="ted", source_notice_id="2-2026", url="javascript:x", documents_url="data:,y")
    checked = records_links_checked([safe, unsafe])
    assert checked.records[0] is safe
    assert (checked.records[1].url, checked.records[1].documents_url) == ("", "")
    assert checked.problems == (
        "ted:2-2026: url 'javascript:x' is no http(s) link with a host; dropped",
        "ted:2-2026: documents_url 'data:,y' is no http(s) link with a host; dropped",
    )


def _readers_agree(url: str) -> bool:
    """Browsers (WHATWG, ``kernel.urls``) and RFC 3986 readers (``urlsplit``) name the same host."""
    try:
        lax = urlsplit(url.strip()).hostname or ""
    except ValueError:
        lax = ""
    return bool(lax) and host_normalised(lax) == host_normalised(url_host(url.strip()))


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("http://", False),
        ("http:///path", False),
        ("http://@/x", False),
        ("http://user@:80/x", False),
        ("http://:80", False),
        ("https://?q=1", False),
        ("https://#top", False),
        ("http://user:pw@host.example:8080/p?q#f", False),  # user:pass@ hides the host from the reader
        ("https://a@b@host.example/", False),
        ("https://evil.example\\@www.tender24.de/", False),  # browsers: host evil.example
        ("https://evil.example\\www.tender24.de/", False),
        ("http://%25/x", False),  # the host decodes to "%", which no browser accepts
        ("http://ex%2Eample.de/x", False),  # browsers read "ex.ample.de", urlsplit does not
        ("http://0x7f.1/x", False),  # browsers read 127.0.0.1
        ("http://[::1]/x", True),
        ("http://[::1/x", False),
        ("http://a]b/x", False),
        ("https://ex\u2100ample.de/x", False),  # "℀" turns into "a/c" under NFKC: no host to trust
        ("https://bücher.example/ä", True),
        ("HTTPS://Vergabe.Example/", True),
        ("https://vergabe.example/ä?x=ü#ö", True),
        ("https://vergabe.example/x?path=C:\\temp", True),  # a backslash in the query names no host
        ("https:vergabe.example", False),  # browsers read a host, urlsplit none
        ("https:/vergabe.example", False),
    ],
)
def test_safe_link_edge_cases(url, kept):
    assert safe_link(url) == (url if kept else "")


def test_every_kept_link_names_the_same_host_to_browsers_and_urlsplit():
    rng = random.Random(20261201)
    pieces = ["http", "https", "://", ":", "/", "\\", "?", "#", "@", "[", "]", "::1", "%", "%2e", "a", "b.de", " ",
              "ü", "\u2100", "\uff0e", "\t", "0x7f"]  # fmt: skip
    kept = 0
    for _ in range(20000):
        url = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))
        if rng.random() < 0.6:
            url = rng.choice(["http://", "https://"]) + url
        if safe_link(url):
            kept += 1
            assert _readers_agree(url), url
            assert web_url(url).scheme in ("http", "https"), url
    assert kept > 1000  # the property was exercised, not vacuous


def test_a_refusal_is_a_new_exception_each_time_though_the_rule_is_cached():
    from kernel.urls import link_refusal

    first, second = link_refusal("javascript:alert(1)"), link_refusal("javascript:alert(1)")
    assert first is not None and first is not second
    assert (first.text, first.reason, str(first)) == (second.text, second.reason, str(second))
    assert link_refusal("https://www.evergabe.de/x") is None
