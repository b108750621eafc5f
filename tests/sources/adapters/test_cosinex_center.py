"""cosinex Center hosts: the JSON search with the page's token, or the honest browser-only state.

Constructed material in ``tests/data/portals/cosinex/center`` (README there), served by
pytest-httpserver through the real Fetcher (cookies kept for the run, robots honoured).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kernel.network import BackoffPolicy, Fetcher, FetchPolicy
from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import SourceConfig
from sources.adapters.cosinex import CosinexAdapter
from sources.adapters.cosinex.center import BrowserOnly, center_record
from sources.models import FetchRun, FetchRunStatus, Source
from sources.services import source_poll
from tenders.models import MergeRule, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import LEGACY_EFORMS, eforms_record
from tests.fixtures.network import loopback_resolver

CENTER = Path(__file__).resolve().parents[2] / "data" / "portals" / "cosinex" / "center"
HUMBOLDT = "CXP4Y9PRGS5"
NOW = datetime(2022, 4, 20, 8, 0, tzinfo=BERLIN)


class CenterSite:
    def __init__(self, httpserver: HTTPServer, *, token_page: str = "search_page_with_token.html") -> None:  # noqa: S107
        self.server = httpserver
        self.token_page = (CENTER / token_page).read_bytes()
        self.answer = (CENTER / "search_answer_page1.json").read_bytes()
        self.search_status = 200
        self.token_for = lambda path, query: self.token_page  # the page served at a token URL
        self.posts: list[tuple[dict, dict]] = []
        self.gets: list[str] = []
        httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
        httpserver.expect_request(re.compile(r"^/Center/.*$")).respond_with_handler(self._handle)

    @property
    def base_url(self) -> str:
        return self.server.url_for("/Center")

    def _handle(self, request: Request) -> Response:
        if request.method == "POST" and request.path == "/Center/api/v2/project/search":
            self.posts.append((json.loads(request.data), dict(request.headers)))
            if self.search_status != 200:
                return Response("forbidden", status=self.search_status)
            return Response(self.answer, content_type="application/json")
        query = request.query_string.decode()
        self.gets.append(f"{request.path}?{query}" if query else request.path)
        page = self.token_for(request.path, query)
        return Response(page, content_type="text/html", headers={"Set-Cookie": "JSESSIONID=abc; Path=/"})


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    policy = FetchPolicy(
        allowed_hosts=frozenset({"localhost"}),
        allow_loopback=True,
        min_delay_seconds=0,
        jitter_seconds=0,
        backoff=BackoffPolicy(base_seconds=1.0, cap_seconds=60.0, max_attempts=2),
    )
    with Fetcher(policy, sleep=lambda s: None, resolver=loopback_resolver) as client:
        yield client


def fetch(site: CenterSite, fetcher):
    config = SourceConfig(
        key="dtvp", adapter="cosinex", settings={"base_url": site.base_url, "allowed_hosts": ["localhost"]}
    )
    return list(CosinexAdapter().fetch(config=config, fetcher=fetcher, now=NOW))


def test_the_json_search_is_read_with_the_pages_token_newest_first(httpserver, fetcher) -> None:
    site = CenterSite(httpserver)
    [batch] = fetch(site, fetcher)
    [(body, headers)] = site.posts
    assert headers["X-Jwt"] == "eyJhbGciOiJIUzI1NiJ9.Y29uc3RydWN0ZWQ.c2lnbmF0dXJl"
    assert "JSESSIONID=abc" in headers.get("Cookie", "")  # the session of the token page
    assert body["pageNumber"] == 1 and body["publicationTypes"] == ["ExAnte", "Tender"]
    assert body["sort"] == {"order": [{"property": "PROJECT_PUBLICATION_DATE_LNG", "direction": "DESC"}]}
    records = {r.source_notice_id: r for r in batch.records}
    humboldt = records[HUMBOLDT]
    assert humboldt.title == "Enterprise Architecture Management"
    assert humboldt.buyer_name == "Stiftung Humboldt Forum im Berliner Schloss"
    assert humboldt.legal_basis == "vgv"
    assert humboldt.portal_references == (f"cosinex:{HUMBOLDT}",)
    assert humboldt.url == f"https://www.dtvp.de/Satellite/notice/{HUMBOLDT}"
    assert humboldt.submission_deadline == datetime(2022, 5, 16, 12, 0, tzinfo=BERLIN)
    assert humboldt.published_at == datetime(2022, 4, 14, 0, 0, tzinfo=BERLIN)
    winter = records["CXS2A8B6C4D"]
    assert winter.title == "Winterdienst Liegenschaften Süd – Los 1 bis 3" and winter.legal_basis == "uvgo"
    assert winter.submission_deadline == datetime(2022, 5, 2, 23, 59, tzinfo=BERLIN)
    assert winter.url == f"{site.base_url}/public/company/projectForwarding.do?pid=CXS2A8B6C4D"
    # Prior information ("ExAnte") with the upper-case link key: a notice of kind PIN without a deadline.
    planned = records["CXS5V3W1X9Y"]
    assert (planned.kind, planned.status, planned.origin) == (NoticeKind.PRIOR_INFORMATION, "active", "portal_list")
    assert planned.submission_deadline is None and planned.payload["relevant_date"] == "30.06.2022"
    assert planned.url == site.server.url_for("/Satellite/notice/CXS5V3W1X9Y")
    assert planned.portal_references == ("cosinex:CXS5V3W1X9Y",)
    assert planned.published_at == datetime(2022, 4, 12, 0, 0, tzinfo=BERLIN)
    [report] = batch.yields
    assert (report.layout, report.rows_seen, report.parsed, dict(report.rejected)) == (
        "json",
        4,
        3,
        {"without projectId": 1},
    )


def test_the_token_of_the_category_overview_other_clients_use_is_accepted(httpserver, fetcher) -> None:
    site = CenterSite(httpserver, token_page="search_page_without_token.html")
    token = (CENTER / "search_page_with_token.html").read_bytes()
    shell = site.token_page
    site.token_for = lambda path, query: token if query == "method=show" else shell
    [batch] = fetch(site, fetcher)
    assert site.gets[-1] == "/Center/company/announcements/categoryOverview.do?method=show"
    assert len(site.gets) == 5  # the two other token pages twice each, then this one
    assert len(batch.records) == 3


@pytest.mark.parametrize(
    ("links", "expected"),
    [
        # The upper-case key is read first, the lower-case one is the fallback.
        ({"ENTER_PROJECTROOM": "/Satellite/notice/CXA1", "enterprojectroom": "/x/CXB2"}, "/Satellite/notice/CXA1"),
        ({"enterprojectroom": "/Satellite/notice/CXB2"}, "/Satellite/notice/CXB2"),
        ({"enterProjectRoom": "/Satellite/notice/CXC3"}, "/Satellite/notice/CXC3"),
        # A link into a login is no notice URL: the next key, else the forwarding link.
        (
            {
                "ENTER_PROJECTROOM": "https://id.dtvp.de/auth/realms/x/protocol/openid-connect/auth",
                "enterprojectroom": "/Satellite/notice/CXD4",
            },
            "/Satellite/notice/CXD4",
        ),
        ({"ENTER_PROJECTROOM": "/Center/login"}, "/Center/public/company/projectForwarding.do?pid=CXE5"),
        ({}, "/Center/public/company/projectForwarding.do?pid=CXE5"),
        ("not a mapping", "/Center/public/company/projectForwarding.do?pid=CXE5"),
    ],
)
def test_the_project_link_key_variants(links: object, expected: str) -> None:
    project = {"projectId": "CXE5", "title": "T", "publicationType": "Tender", "links": links}
    record, reason = center_record(project, source="dtvp", base_url="https://www.dtvp.de/Center")
    assert reason == "" and record is not None
    assert record.url == f"https://www.dtvp.de{expected}"


@pytest.mark.parametrize(
    ("publication_type", "kind", "status", "deadline"),
    [
        ("Tender", NoticeKind.CONTRACT_NOTICE, "active", datetime(2022, 5, 2, 23, 59, tzinfo=BERLIN)),
        ("ExAnte", NoticeKind.PRIOR_INFORMATION, "active", None),
        ("<span class='label'>ExAnte</span>", NoticeKind.PRIOR_INFORMATION, "active", None),
        ("ExPost", NoticeKind.AWARD, "awarded", None),
    ],
)
def test_the_publication_type_decides_kind_status_and_deadline(publication_type, kind, status, deadline) -> None:
    project = {"projectId": "CXF6", "title": "T", "publicationType": publication_type, "relevantDate": "02.05.2022"}
    record, _ = center_record(project, source="dtvp", base_url="https://www.dtvp.de/Center")
    assert record is not None
    assert (record.kind, record.status, record.submission_deadline) == (kind, status, deadline)
    assert record.payload["publication_type"] == publication_type.replace("<span class='label'>", "").replace(
        "</span>", ""
    )


def test_without_a_token_the_source_is_browser_only_never_zero_tenders(httpserver, fetcher) -> None:
    site = CenterSite(httpserver, token_page="search_page_without_token.html")
    with pytest.raises(BrowserOnly) as caught:
        fetch(site, fetcher)
    assert "nicht unterstützt: Ergebnisliste nur im Browser" in str(caught.value)
    assert "no search token" in str(caught.value)
    assert len(site.gets) == 6  # each token page twice (the token may come on the second visit), no POST
    assert site.posts == []


def test_a_search_refusing_the_token_is_browser_only(httpserver, fetcher) -> None:
    site = CenterSite(httpserver)
    site.search_status = 403
    with pytest.raises(BrowserOnly) as caught:
        fetch(site, fetcher)
    assert "HTTP 403" in str(caught.value)


def test_an_answer_of_another_shape_is_a_changed_layout(httpserver, fetcher) -> None:
    from sources.adapters.yields import LayoutChanged

    site = CenterSite(httpserver)
    site.answer = b'{"results": []}'
    with pytest.raises(LayoutChanged):
        fetch(site, fetcher)


def poll(source: Source) -> FetchRun:
    return source_poll(source_id=source.pk, fetcher_factory=lambda policy: Fetcher(policy, sleep=lambda s: None)).run


def test_the_run_shows_the_browser_only_state_with_its_reason(db, httpserver) -> None:
    site = CenterSite(httpserver, token_page="search_page_without_token.html")
    source = Source.objects.get(key="dtvp")
    source.settings = {"base_url": site.base_url, "allowed_hosts": ["localhost"]}
    source.save()
    run = poll(source)
    assert (run.status, run.error_reason) == (FetchRunStatus.BLOCKED, "browser_only")
    assert run.error.startswith("nicht unterstützt: Ergebnisliste nur im Browser: no search token")
    assert run.fetched == 0


def test_a_doe_notice_linking_the_cx_project_merges_with_the_center_project(db, httpserver) -> None:
    doe = eforms_record(LEGACY_EFORMS)
    assert f"cosinex:{HUMBOLDT}" in doe.portal_references
    created = notices_ingest(records=[doe], use_fingerprint=False).created
    site = CenterSite(httpserver)
    answer = json.loads(site.answer)
    answer["projects"] = answer["projects"][:2]  # without the rejected project (that share would block the run)
    site.answer = json.dumps(answer).encode()
    source = Source.objects.get(key="dtvp")
    source.settings = {"base_url": site.base_url, "allowed_hosts": ["localhost"]}
    source.save()
    run = poll(source)
    assert run.status == FetchRunStatus.SUCCEEDED, run.error
    assert run.layout == "json"
    crawled = TenderSource.objects.get(source="dtvp", source_notice_id=HUMBOLDT)
    assert crawled.tender_id == created[0] and crawled.merge_rule == MergeRule.PORTAL_REFERENCE
    assert set(crawled.tender.sources.values_list("source", flat=True)) == {"doe", "dtvp"}
    # The tender takes the legal basis of its latest describing notice; the portal's own is kept on its version.
    assert crawled.versions.get().record["legal_basis"] == "vgv"
