"""NetServer adapter against a local HTTP server and the real Fetcher, with the constructed pages.

The pages in ``tests/data/portals/netserver`` are CONSTRUCTED from the documented structure
(see the README there), served with ``Content-Type: text/html`` and no charset, so the only
declaration is the ``<meta>`` of each page. No database. ``NetServerSite`` is also used by
the run-level tests (``test_netserver_runs.py``, ``tests/sources/test_source_runs.py``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kernel.network import BackoffPolicy, Blocked, Fetcher, FetchError, FetchPolicy
from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import FetchedBatch, SourceConfig
from sources.adapters.netserver import KNOWN_HOSTS, NetServerAdapter
from sources.adapters.yields import LayoutChanged
from sources.registry import get_adapter, validate_source_settings
from tests.fixtures.network import loopback_resolver

DATA = Path(__file__).resolve().parents[2] / "data" / "portals" / "netserver"
RESULT_PAGES = {"0": "results_start0_cp1252.html", "2": "results_start2_utf8.html", "4": "results_start4_latin1.html"}
MICADO = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"  # real: named by the DÖE eForms-DE fixture
GOEPPINGEN = "54321-Tender-19a2b3c4d5e-0a1b2c3d4e5f6789"
ESSLINGEN = "54321-NetTender-18f0e1d2c3b-1122334455667788"
STUTTGART = "54321-Tender-17e6d5c4b3a-99aabbccddeeff00"
OESCHELBRONN = "54321-Tender-16d5c4b3a29-0011223344556677"
ALL_IDS = [MICADO, GOEPPINGEN, ESSLINGEN, STUTTGART, OESCHELBRONN]
NOW = datetime(2026, 9, 16, 8, 0, tzinfo=BERLIN)
REPLACEMENT = "\ufffd"


# -- the portal on the local server ------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    kind: str  # "search" | "detail" | "login"
    key: str  # Start offset or TOID
    headers: dict[str, str]


def page_response(request: Request, body: bytes, *, etag: bool = True) -> Response:
    """200 with an ETag, or 304 when the request carries that ETag."""
    tag = f'"{hashlib.sha256(body).hexdigest()[:20]}"'
    if etag and request.headers.get("If-None-Match") == tag:
        return Response(status=304, headers={"ETag": tag})
    return Response(body, status=200, content_type="text/html", headers={"ETag": tag} if etag else {})


class NetServerSite:
    """A NetServer portal under ``/NetServer/`` answering from the constructed pages.

    ``answer(kind, key, handler)`` replaces one page; ``hits`` lists every portal request
    (robots.txt excluded) with its headers.
    """

    def __init__(self, httpserver: HTTPServer, *, robots: str = "User-agent: *\nAllow: /\n", etag: bool = True):
        self.server = httpserver
        self.etag = etag
        self.hits: list[Hit] = []
        self.answers: dict[tuple[str, str], Callable[[Request], Response]] = {}
        httpserver.expect_request("/robots.txt").respond_with_data(robots, content_type="text/plain")
        httpserver.expect_request(re.compile(r"^/NetServer/.*$")).respond_with_handler(self._handle)

    @property
    def base_url(self) -> str:
        return self.server.url_for("/NetServer/")

    def settings(self, **overrides: object) -> dict[str, object]:
        return {"base_url": self.base_url, "allowed_hosts": ["localhost", "127.0.0.1"], "page_size": 2, **overrides}

    def answer(self, kind: str, key: str, handler: Callable[[Request], Response]) -> None:
        self.answers[(kind, key)] = handler

    def requested(self, kind: str) -> list[str]:
        return [hit.key for hit in self.hits if hit.kind == kind]

    def _handle(self, request: Request) -> Response:
        name = request.path.rsplit("/", 1)[-1]
        if name == "PublicationSearchControllerServlet":
            kind, key = "search", request.args.get("Start", "0")
            category = request.args.get("Category")
            file = RESULT_PAGES.get(key, "no_results.html") if category == "InvitationToTender" else "no_results.html"
        elif name == "PublicationControllerServlet":
            kind, key = "detail", request.args.get("TOID", "")
            file = f"detail_{key}.html"
        elif name == "login":
            kind, key, file = "login", "", "login.html"
        else:
            return Response("not found", status=404)
        self.hits.append(Hit(kind, key, dict(request.headers)))
        if (kind, key) in self.answers:
            return self.answers[(kind, key)](request)
        path = DATA / file
        if not path.is_file():
            return Response("not found", status=404)
        return page_response(request, path.read_bytes(), etag=self.etag)


@pytest.fixture
def site(httpserver: HTTPServer) -> NetServerSite:
    return NetServerSite(httpserver)


@pytest.fixture
def fetcher() -> Iterator[Fetcher]:
    policy = FetchPolicy(
        allowed_hosts=frozenset({"localhost", "127.0.0.1"}),
        allow_loopback=True,
        min_delay_seconds=0,
        jitter_seconds=0,
        backoff=BackoffPolicy(base_seconds=1.0, cap_seconds=60.0, max_attempts=2),
    )
    with Fetcher(policy, sleep=lambda s: None, resolver=loopback_resolver) as client:
        yield client


def fetch(site: NetServerSite, fetcher: Fetcher, **settings: object) -> list[FetchedBatch]:
    config = SourceConfig(key="tender24", adapter="netserver", settings=site.settings(**settings))
    return list(NetServerAdapter().fetch(config=config, fetcher=fetcher, now=NOW))


def by_id(batches: list[FetchedBatch]) -> dict[str, NoticeRecord]:
    return {record.source_notice_id: record for batch in batches for record in batch.records}


def texts(record: NoticeRecord) -> list[str]:
    return [record.title, record.description, record.buyer_name, record.town]


# -- settings ------------------------------------------------------------------------------------


def test_the_migrated_netserver_sources_validate_unchanged() -> None:
    from importlib import import_module

    rows = [
        row for row in import_module("sources.migrations.0004_portal_sources").PORTALS if row["adapter"] == "netserver"
    ]
    assert {row["key"] for row in rows} == {"tender24", "vergabe-landbw", "lhs-vpbw"}
    for row in rows:
        settings = validate_source_settings(adapter="netserver", settings=row["settings"])
        assert settings["base_url"] == row["settings"]["base_url"]
        assert settings["categories"] == ["InvitationToTender"]
        assert NetServerAdapter.allowed_hosts(SourceConfig(row["key"], "netserver", settings)) == frozenset(
            {settings["base_url"].split("/")[2]}
        )
    assert get_adapter("netserver") is NetServerAdapter


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"base_url": "https://www.evil.example/NetServer/"}, "nicht erlaubt"),
        ({"base_url": "http://www.tender24.de/NetServer/"}, "muss https verwenden"),
        ({"base_url": "https://www.tender24.de/Satellite/"}, "muss auf /NetServer/ enden"),
        ({"base_url": "https://www.tender24.de/NetServer/?x=1"}, "Query"),
        (
            {"base_url": "https://www.tender24.de/NetServer/", "categories": ["Everything"]},
            "Unbekannte NetServer-Kategorien",
        ),
        ({"base_url": "https://www.tender24.de/NetServer/", "max_pages": 0}, "max_pages"),
        ({"base_url": "https://www.tender24.de/NetServer/", "pagesize": 10}, "Unbekannte NetServer-Einstellung"),
        ({}, "base_url muss eine URL sein"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_message(settings: dict, message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        NetServerAdapter.validate_settings(settings)
    assert any(message in text for text in caught.value.messages)


def test_base_url_gets_its_trailing_slash_and_allowed_hosts_narrow_the_known_hosts() -> None:
    settings = NetServerAdapter.validate_settings({"base_url": "https://vergabe.landbw.de/NetServer"})
    assert settings["base_url"] == "https://vergabe.landbw.de/NetServer/"
    assert "vergabe.landbw.de" in KNOWN_HOSTS
    with pytest.raises(ValidationError):
        NetServerAdapter.validate_settings(
            {"base_url": "https://vergabe.landbw.de/NetServer/", "allowed_hosts": ["localhost"]}
        )


# -- a complete run ------------------------------------------------------------------------------


def test_a_run_reads_every_result_page_and_every_detail_page(site, fetcher) -> None:
    batches = fetch(site, fetcher)
    assert [b.scope for b in batches] == [f"InvitationToTender Start={s}" for s in (0, 2, 4)]
    assert site.requested("search") == ["0", "2", "4"]
    assert sorted(site.requested("detail")) == sorted(ALL_IDS)
    assert list(by_id(batches)) == [MICADO, GOEPPINGEN, ESSLINGEN, STUTTGART, OESCHELBRONN]
    assert sum(b.requests for b in batches) == 8
    assert all(not b.missing and not b.problems for b in batches)
    assert all(b.cursor is None for b in batches)


def test_fields_from_row_and_detail_page(site, fetcher) -> None:
    records = by_id(fetch(site, fetcher))
    micado = records[MICADO]
    assert micado.source == "tender24"
    assert micado.kind is NoticeKind.CONTRACT_NOTICE
    assert micado.title == "MICADO Integral Field Unit II"
    assert micado.buyer_name == "Max-Planck-Institut für extraterrestrische Physik (MPE)"
    assert micado.procedure_type == "open"
    assert micado.submission_deadline == datetime(2026, 10, 20, 12, 0, tzinfo=BERLIN)
    assert micado.submission_deadline.utcoffset() == timedelta(hours=2)  # CEST, with time of day
    assert micado.questions_deadline == datetime(2026, 10, 13, 12, 0, tzinfo=BERLIN)
    assert micado.published_at == datetime(2026, 9, 15, tzinfo=BERLIN)
    assert micado.cpv_codes == ("38433000",)
    assert (micado.postal_code, micado.town, micado.nuts_codes) == ("85748", "Garching b. München", ("DE21H",))
    assert (micado.bundesland, micado.country) == ("Bayern", "DEU")
    assert micado.portal_references == (f"netserver:{MICADO}",)
    assert (
        micado.url
        == f"{site.base_url}PublicationControllerServlet?function=Detail&TOID={MICADO}&Category=InvitationToTender"
    )
    assert micado.documents_url.endswith(
        f"TenderingProcedureDetails?function=_DownloadTenderDocuments&TenderOID={MICADO}"
    )
    assert micado.payload["legal_framework"] == "VgV" and micado.payload["reference"] == "MPE-2026-0815"

    goeppingen = records[GOEPPINGEN]
    assert goeppingen.title == "Sanierung der Sporthalle Süd – Dachabdichtung und Wärmedämmung"
    assert goeppingen.buyer_name == "Stadt Göppingen – Hochbauamt"
    assert goeppingen.procedure_type == "public_tender"
    assert goeppingen.cpv_codes == ("45261210", "45321000")
    assert (goeppingen.estimated_value, goeppingen.currency) == (Decimal("480000.00"), "EUR")
    assert "„Dachabdichtung“" in goeppingen.description and "480.000 € netto" in goeppingen.description
    assert goeppingen.submission_deadline == datetime(2026, 10, 6, 10, 30, tzinfo=BERLIN)

    assert records[ESSLINGEN].procedure_type == "limited_tender"
    assert records[ESSLINGEN].estimated_value == Decimal("95000.00")
    assert records[STUTTGART].procedure_type == "negotiated_award"
    assert records[STUTTGART].title == "Unterhaltsreinigung Grundschule Weißenhof"
    assert records[OESCHELBRONN].procedure_type == "negotiated_award"  # "Freihändige Vergabe"
    assert records[OESCHELBRONN].submission_deadline == datetime(2026, 9, 25, 11, 0, tzinfo=BERLIN)


def test_pages_declared_only_in_meta_keep_umlauts_and_euro_and_never_carry_u_fffd(site, fetcher, httpserver) -> None:
    records = by_id(fetch(site, fetcher))
    sample = httpserver.log[1][1]  # a result page as served: no charset in the header
    assert sample.headers["Content-Type"] == "text/html"
    for record in records.values():
        for text in texts(record):
            assert REPLACEMENT not in text
            assert "\x96" not in text and "Ã" not in text  # no latin-1 misreading, no UTF-8-as-latin-1
    assert "Öschelbronn" in records[OESCHELBRONN].title  # true ISO-8859-1 page
    assert records[ESSLINGEN].buyer_name == "Landkreis Esslingen"


def test_a_utf8_label_on_windows_1252_bytes_is_read_as_windows_1252(site, fetcher) -> None:
    body = (DATA / RESULT_PAGES["0"]).read_bytes().replace(b"charset=ISO-8859-1", b"charset=utf-8")
    site.answer("search", "0", lambda request: page_response(request, body))
    records = by_id(fetch(site, fetcher, max_pages=1))
    assert records[GOEPPINGEN].buyer_name == "Stadt Göppingen – Hochbauamt"


# -- caps, failures, walls -----------------------------------------------------------------------


def test_max_pages_stops_the_walk_and_says_what_was_left_out(site, fetcher) -> None:
    batches = fetch(site, fetcher, max_pages=2)
    assert site.requested("search") == ["0", "2"]
    assert list(by_id(batches)) == [MICADO, GOEPPINGEN, ESSLINGEN, STUTTGART]
    assert batches[-1].missing and "max_pages=2" in batches[-1].missing[0] and "Start=4" in batches[-1].missing[0]


def test_max_bytes_stops_details_and_pages(site, fetcher) -> None:
    batches = fetch(site, fetcher, max_bytes=10_000)
    missing = [m for b in batches for m in b.missing]
    assert any("max_bytes=10000" in m for m in missing)
    assert len(site.requested("detail")) < len(ALL_IDS)
    # Notices whose detail page was not fetched are still recorded from their rows.
    assert all(r.title for r in by_id(batches).values())


def test_max_details_fetches_new_notices_first_and_records_the_rest_from_rows(site, fetcher) -> None:
    batches = fetch(site, fetcher, max_details=2)
    assert site.requested("detail") == [MICADO, GOEPPINGEN]
    records = by_id(batches)
    assert set(records) == set(ALL_IDS)
    assert records[MICADO].description and not records[ESSLINGEN].description
    assert records[ESSLINGEN].submission_deadline == datetime(2026, 9, 30, 23, 59, tzinfo=BERLIN)
    assert any("max_details=2 reached" in m for b in batches for m in b.missing)


def test_max_details_zero_means_rows_only_without_missing(site, fetcher) -> None:
    batches = fetch(site, fetcher, max_details=0)
    assert site.requested("detail") == []
    assert len(by_id(batches)) == 5 and not any(b.missing for b in batches)


def test_a_failing_result_page_goes_to_missing_and_the_walk_goes_on(site, fetcher) -> None:
    site.answer("search", "2", lambda request: Response("down", status=500))
    batches = fetch(site, fetcher)
    assert site.requested("search") == ["0", "2", "2", "4"]  # one retry, then on to Start=4
    assert list(by_id(batches)) == [MICADO, GOEPPINGEN, OESCHELBRONN]
    missing = [m for b in batches for m in b.missing]
    assert len(missing) == 1 and "Start=2" in missing[0] and "retries_exhausted" in missing[0]


def test_two_failing_result_pages_in_a_row_stop_the_category(site, fetcher) -> None:
    site.answer("search", "2", lambda request: Response("down", status=500))
    site.answer("search", "4", lambda request: Response("down", status=500))
    batches = fetch(site, fetcher)
    assert site.requested("search") == ["0", "2", "2", "4", "4"]  # one retry each; Start=6 is never asked
    missing = [m for b in batches for m in b.missing]
    assert missing[-1] == "InvitationToTender: stopped after 2 failing result pages in a row"
    assert list(by_id(batches)) == [MICADO, GOEPPINGEN]


def test_a_failing_first_page_fails_the_run(site, fetcher) -> None:
    site.answer("search", "0", lambda request: Response("down", status=503))
    with pytest.raises(FetchError) as caught:
        fetch(site, fetcher)
    assert caught.value.reason == "retries_exhausted"


def test_a_failing_detail_page_is_missing_and_the_notice_comes_from_its_row(site, fetcher) -> None:
    site.answer("detail", GOEPPINGEN, lambda request: Response("gone", status=404))
    batches = fetch(site, fetcher)
    records = by_id(batches)
    assert records[GOEPPINGEN].title == "Sanierung der Sporthalle Süd – Dachabdichtung und Wärmedämmung"
    assert records[GOEPPINGEN].description == "" and records[GOEPPINGEN].payload["detail"] is False
    assert [m for b in batches for m in b.missing] == [
        f"{site.base_url}PublicationControllerServlet?function=Detail&TOID={GOEPPINGEN}&Category=InvitationToTender: "
        f"http_404: HTTP 404 for {site.base_url}PublicationControllerServlet?function=Detail&TOID={GOEPPINGEN}"
        "&Category=InvitationToTender"
    ]


def test_a_detail_page_behind_a_login_is_missing_not_a_blocked_run(site, fetcher) -> None:
    site.answer("detail", MICADO, lambda request: Response(status=302, headers={"Location": "login"}))
    batches = fetch(site, fetcher)
    missing = [m for b in batches for m in b.missing]
    assert len(missing) == 1 and "login wall" in missing[0]
    assert by_id(batches)[MICADO].title == "MICADO Integral Field Unit II"


def test_a_redirect_to_the_login_page_is_blocked_never_zero_results(site, fetcher) -> None:
    site.answer("search", "0", lambda request: Response(status=302, headers={"Location": "login"}))
    with pytest.raises(Blocked) as caught:
        fetch(site, fetcher)
    assert caught.value.wall == "login"
    assert caught.value.final_url == f"{site.base_url}login"


def test_a_page_without_result_table_or_cards_is_blocked(site, fetcher) -> None:
    body = b"<html><body><h1>Bekanntmachungen</h1><div class='publicationList'>neu gestaltet</div></body></html>"
    site.answer("search", "0", lambda request: page_response(request, body))
    with pytest.raises(Blocked) as caught:
        fetch(site, fetcher)
    assert caught.value.wall == "missing-result-container"
    assert site.requested("detail") == []


def test_cards_whose_title_moved_are_a_changed_layout_with_a_sample_never_zero_results(site, fetcher) -> None:
    body = (DATA / "changed_layout.html").read_bytes()  # cards without p.mb-3 (an invented redesign)
    site.answer("search", "0", lambda request: page_response(request, body))
    with pytest.raises(LayoutChanged) as caught:
        fetch(site, fetcher)
    assert caught.value.reason == "changed_layout"
    report = caught.value.page_yield
    assert (report.layout, report.rows_seen, report.parsed) == ("cards", 1, 0)
    assert report.rejected == {"no title (p.mb-3)": 1}
    assert caught.value.sample.body == body and caught.value.sample.url.endswith("Max=2")
    assert site.requested("detail") == []


def test_result_rows_that_no_longer_match_the_row_selector_are_blocked(site, fetcher) -> None:
    body = (DATA / RESULT_PAGES["0"]).read_bytes().replace(b"publicationDetail", b"publicationEntry")
    site.answer("search", "0", lambda request: page_response(request, body))
    with pytest.raises(LayoutChanged) as caught:
        fetch(site, fetcher)
    assert caught.value.wall == "changed-layout"
    assert caught.value.page_yield.rejected == {"row does not match selectors.RESULT_ROW": 2}


def test_the_portals_own_no_results_page_is_zero_notices_not_a_wall(site, fetcher) -> None:
    batches = fetch(site, fetcher, categories=["PriorInformation"])
    assert len(batches) == 1 and batches[0].records == () and not batches[0].missing
    assert site.requested("search") == ["0"]


def test_robots_txt_forbidding_detail_pages_stops_detail_requests_for_the_run(httpserver, fetcher) -> None:
    site = NetServerSite(httpserver, robots="User-agent: *\nDisallow: /NetServer/PublicationControllerServlet\n")
    batches = fetch(site, fetcher)
    assert site.requested("detail") == []
    assert len(by_id(batches)) == 5
    missing = [m for b in batches for m in b.missing]
    assert "robots" in missing[0] and any("detail pages not fetched" in m for m in missing)


def test_a_row_without_notice_id_is_a_problem_and_the_others_go_on(site, fetcher) -> None:
    body = (DATA / RESULT_PAGES["0"]).read_bytes().replace(f'data-oid="{MICADO}"'.encode(), b'data-oid=""')
    site.answer("search", "0", lambda request: page_response(request, body))
    batches = fetch(site, fetcher, max_pages=1)
    assert list(by_id(batches)) == [GOEPPINGEN]
    assert "without a usable data-oid" in batches[0].problems[0]


# -- saved pages ---------------------------------------------------------------------------------


def parse(paths: list[Path], base_url: str = "https://www.tender24.de/NetServer/") -> FetchedBatch:
    config = SourceConfig(key="tender24", adapter="netserver", settings={"base_url": base_url})
    [batch] = list(NetServerAdapter().parse_files(config=config, paths=paths))
    return batch


def test_saved_result_and_detail_pages_are_joined_like_a_run() -> None:
    batch = parse([DATA / RESULT_PAGES["0"], DATA / f"detail_{MICADO}.html"])
    records = {r.source_notice_id: r for r in batch.records}
    assert list(records) == [MICADO, GOEPPINGEN] and not batch.problems
    assert records[MICADO].cpv_codes == ("38433000",) and records[MICADO].submission_deadline.hour == 12
    assert records[MICADO].url == (
        "https://www.tender24.de/NetServer/PublicationControllerServlet?function=Detail"
        f"&TOID={MICADO}&Category=InvitationToTender"
    )
    assert records[GOEPPINGEN].description == "" and records[GOEPPINGEN].buyer_name == "Stadt Göppingen – Hochbauamt"


def test_a_saved_detail_page_alone_is_a_complete_notice() -> None:
    [record] = parse([DATA / f"detail_{GOEPPINGEN}.html"]).records
    assert record.source_notice_id == GOEPPINGEN
    assert record.title == "Sanierung der Sporthalle Süd – Dachabdichtung und Wärmedämmung"
    assert record.submission_deadline == datetime(2026, 10, 6, 10, 30, tzinfo=BERLIN)
    assert record.estimated_value == Decimal("480000.00")


def test_saved_folders_are_walked_and_unknown_files_are_problems(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_bytes((DATA / RESULT_PAGES["2"]).read_bytes())
    (tmp_path / "other.html").write_bytes(b"<html><body><p>Impressum</p></body></html>")
    (tmp_path / "notes.txt").write_text("ignored")
    batch = parse([tmp_path, tmp_path / "missing.html"])
    assert [r.source_notice_id for r in batch.records] == [ESSLINGEN, STUTTGART]
    assert len(batch.problems) == 2
    assert "neither a NetServer result page nor a detail page" in batch.problems[0]
    assert "cannot read file" in batch.problems[1]
