"""TED API v3 adapter: real notices in constructed envelopes, replayed through the real Fetcher.

The local pytest-httpserver plays api.ted.europa.eu (robots.txt answers 404); sleeping is
recorded, not done. No database.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from pytest_httpserver import HTTPServer

from kernel.network import Blocked, Fetcher, FetchPolicy, HttpStatusError, RetriesExhausted
from kernel.records import NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import AdapterError, FetchedBatch, SourceConfig
from sources.adapters.ted import BYTES_PER_DOE_MEMBER, DEFAULT_API_URL, TedAdapter, fetch_window
from sources.parsers.ted_query import TED_FIELDS
from sources.registry import get_adapter

DATA = Path(__file__).resolve().parents[2] / "data" / "ted"
PAGE1 = (DATA / "api" / "page1.json").read_bytes()
PAGE2 = (DATA / "api" / "page2.json").read_bytes()
PAGE1_TOKEN = json.loads(PAGE1)["iterationNextToken"]
SEARCH_FIXTURE = DATA / "ted_v3_search_notices_DE_cn-standard_479730-2026_can-standard_291981-2026.json"
PATH = "/v3/notices/search"
NOW = datetime(2026, 7, 24, 8, 0, tzinfo=BERLIN)  # window with the default lookback: 2026-07-22..2026-07-23


class RecordingSleep:
    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def recording_sleep() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def fetcher(recording_sleep: RecordingSleep) -> Iterator[Fetcher]:
    policy = FetchPolicy(
        allowed_hosts=frozenset({"localhost", "127.0.0.1"}),
        allow_loopback=True,
        min_delay_seconds=0,
        jitter_seconds=0,
    )
    with Fetcher(policy, sleep=recording_sleep) as fetcher:
        yield fetcher


@pytest.fixture
def server(httpserver: HTTPServer) -> HTTPServer:
    httpserver.expect_request("/robots.txt").respond_with_data("not found", status=404)
    return httpserver


def make_config(httpserver: HTTPServer, cursor: dict | None = None, **settings: object) -> SourceConfig:
    values = {"api_url": httpserver.url_for(PATH), "allowed_hosts": ["localhost", "127.0.0.1"], **settings}
    return SourceConfig(key="ted", adapter="ted", settings=values, cursor=cursor or {})


def run(fetcher: Fetcher, config: SourceConfig, now: datetime = NOW) -> list[FetchedBatch]:
    return list(TedAdapter().fetch(config=config, fetcher=fetcher, now=now))


def search_bodies(httpserver: HTTPServer) -> list[dict]:
    return [json.loads(request.get_data()) for request, _ in httpserver.log if request.path == PATH]


def serve_pages(httpserver: HTTPServer, *pages: bytes) -> None:
    for page in pages:
        httpserver.expect_oneshot_request(PATH, method="POST").respond_with_data(page, content_type="application/json")


# --- paging ----------------------------------------------------------------------------------


def test_two_pages_follow_the_iteration_token(server: HTTPServer, fetcher: Fetcher) -> None:
    serve_pages(server, PAGE1, PAGE2)
    batches = run(fetcher, make_config(server))

    assert [b.scope for b in batches] == ["2026-07-22..2026-07-23 page 1", "2026-07-22..2026-07-23 page 2"]
    assert [[r.source_notice_id for r in b.records] for b in batches] == [["479730-2026"], ["291981-2026"]]
    assert [(b.requests, b.bytes, b.problems, b.missing) for b in batches] == [
        (1, len(PAGE1), (), ()),
        (1, len(PAGE2), (), ()),
    ]
    first, second = search_bodies(server)
    for body in (first, second):
        assert body["paginationMode"] == "ITERATION"
        assert body["limit"] == 100
        assert body["scope"] == "ALL"
        assert body["fields"] == list(TED_FIELDS)
        assert "buyer-country=DEU" in body["query"]
        assert "place-of-performance-country-lot=DEU" in body["query"]
        assert "publication-date>=20260722" in body["query"]
        assert "publication-date<=20260723" in body["query"]
    assert "iterationNextToken" not in first
    assert second["iterationNextToken"] == PAGE1_TOKEN
    assert second["query"] == first["query"]
    server.check_assertions()


def test_cursor_only_on_the_last_batch(server: HTTPServer, fetcher: Fetcher) -> None:
    serve_pages(server, PAGE1, PAGE2)
    batches = run(fetcher, make_config(server))
    assert [b.cursor for b in batches] == [None, {"last_day": "2026-07-23"}]


def test_records_pass_through_german_first(server: HTTPServer, fetcher: Fetcher) -> None:
    serve_pages(server, PAGE1, PAGE2)
    records = {r.source_notice_id: r for b in run(fetcher, make_config(server)) for r in b.records}

    cn = records["479730-2026"]
    assert (cn.source, cn.version, cn.kind, cn.status) == ("ted", "01", NoticeKind.CONTRACT_NOTICE, TenderStatus.ACTIVE)
    assert cn.title == "Bewachung Henning-von-Tresckow-Kaserne"
    assert cn.buyer_name == "Bundeswehr-Dienstleistungszentrum Berlin"
    assert (cn.town, cn.postal_code, cn.country, cn.bundesland) == ("Schwielowsee", "14548", "DEU", "Brandenburg")
    assert cn.referenced_notice_ids == ("f97b0751-7d7b-485d-98a9-fc089091040f",)
    assert cn.url == "https://ted.europa.eu/de/notice/-/detail/479730-2026"
    assert cn.payload["publication_number"] == "479730-2026"

    can = records["291981-2026"]
    assert (can.kind, can.status) == (NoticeKind.AWARD, TenderStatus.AWARDED)
    assert can.title.startswith("UNESCO Welterbstätten Worms")
    assert can.suppliers == ("Wach- und Werkschutz Kurt Strube GmbH", "AWD-Gebäudedienste")


def test_english_listed_first_still_gives_the_german_title(server: HTTPServer, fetcher: Fetcher) -> None:
    page = json.loads(PAGE2)
    notice = page["notices"][0]
    notice["title-proc"] = {"eng": "Security staff for Worms", **notice["title-proc"]}
    serve_pages(server, json.dumps(page).encode())
    (batch,) = run(fetcher, make_config(server))
    assert batch.records[0].title.startswith("UNESCO Welterbstätten Worms")


def test_empty_page_with_token_ends_the_run(server: HTTPServer, fetcher: Fetcher) -> None:
    empty = json.dumps({"notices": [], "totalNoticeCount": 1, "iterationNextToken": "next", "timedOut": False})
    serve_pages(server, PAGE1, empty.encode())
    batches = run(fetcher, make_config(server))
    assert [len(b.records) for b in batches] == [1, 0]
    assert batches[-1].cursor == {"last_day": "2026-07-23"}
    assert len(search_bodies(server)) == 2


def test_max_pages_hit_is_reported_as_missing(server: HTTPServer, fetcher: Fetcher) -> None:
    serve_pages(server, PAGE1, PAGE2)
    batches = run(fetcher, make_config(server, max_pages=1, page_size=1))

    assert len(batches) == 1 and len(search_bodies(server)) == 1
    (message,) = batches[0].missing
    assert "2026-07-22..2026-07-23" in message
    assert "max_pages=1" in message
    assert "of 2 matching" in message  # totalNoticeCount of the envelope
    assert batches[0].cursor == {"last_day": "2026-07-23"}  # documented: advance, do not starve new days


def test_timed_out_page_is_a_problem(server: HTTPServer, fetcher: Fetcher) -> None:
    page = json.loads(PAGE2)
    page["timedOut"] = True
    serve_pages(server, json.dumps(page).encode())
    (batch,) = run(fetcher, make_config(server))
    assert len(batch.records) == 1
    assert batch.problems == ("TED search timed out: this page may be incomplete",)


def test_broken_notice_is_a_problem_not_a_failure(server: HTTPServer, fetcher: Fetcher) -> None:
    page = json.loads(PAGE2)
    page["notices"].append({"notice-type": "cn-standard"})  # no publication-number
    serve_pages(server, json.dumps(page).encode())
    (batch,) = run(fetcher, make_config(server))
    assert [r.source_notice_id for r in batch.records] == ["291981-2026"]
    assert batch.problems == ("TED notice #1: TedParseError: notice without publication-number",)


# --- failures ---------------------------------------------------------------------------------


def test_429_with_retry_after_then_200(server: HTTPServer, fetcher: Fetcher, recording_sleep: RecordingSleep) -> None:
    server.expect_oneshot_request(PATH, method="POST").respond_with_data(
        "slow down", status=429, headers={"Retry-After": "7"}
    )
    serve_pages(server, PAGE2)
    (batch,) = run(fetcher, make_config(server))

    assert [r.source_notice_id for r in batch.records] == ["291981-2026"]
    assert batch.cursor == {"last_day": "2026-07-23"}
    assert max(recording_sleep.calls) >= 7
    assert len(search_bodies(server)) == 2


def test_500s_exhausting_retries_propagate(server: HTTPServer, fetcher: Fetcher) -> None:
    server.expect_request(PATH, method="POST").respond_with_data("down", status=500)
    with pytest.raises(RetriesExhausted) as caught:
        run(fetcher, make_config(server))
    assert caught.value.last_status == 500
    assert len(search_bodies(server)) == fetcher.policy.max_retries + 1


def test_failure_on_page_two_yields_no_cursor(server: HTTPServer, fetcher: Fetcher) -> None:
    serve_pages(server, PAGE1)
    server.expect_request(PATH, method="POST").respond_with_data("bad query", status=400)
    batches: list[FetchedBatch] = []
    with pytest.raises(HttpStatusError):
        batches.extend(TedAdapter().fetch(config=make_config(server), fetcher=fetcher, now=NOW))
    assert [b.cursor for b in batches] == [None]


def test_non_json_is_a_bad_response(server: HTTPServer, fetcher: Fetcher) -> None:
    server.expect_request(PATH, method="POST").respond_with_data("<html>Wartung</html>", content_type="text/html")
    with pytest.raises(AdapterError) as caught:
        run(fetcher, make_config(server))
    assert caught.value.reason == "bad_response"
    assert "2026-07-22..2026-07-23 page 1" in str(caught.value)
    assert "not valid JSON" in str(caught.value)


def test_json_without_notices_is_a_bad_response(server: HTTPServer, fetcher: Fetcher) -> None:
    server.expect_request(PATH, method="POST").respond_with_json({"message": "Internal error"})
    with pytest.raises(AdapterError) as caught:
        run(fetcher, make_config(server))
    assert caught.value.reason == "bad_response"
    assert "'notices' must be a list" in str(caught.value)


def test_repeated_token_is_a_bad_response(server: HTTPServer, fetcher: Fetcher) -> None:
    serve_pages(server, PAGE1, PAGE1)
    with pytest.raises(AdapterError) as caught:
        run(fetcher, make_config(server))
    assert caught.value.reason == "bad_response"


def test_redirect_to_a_login_page_is_blocked(server: HTTPServer, fetcher: Fetcher) -> None:
    server.expect_request(PATH, method="POST").respond_with_data(
        "", status=302, headers={"Location": server.url_for("/login")}
    )
    server.expect_request("/login").respond_with_data("<form>", content_type="text/html")
    with pytest.raises(Blocked):
        run(fetcher, make_config(server))


def test_invalid_settings_at_fetch_time(server: HTTPServer, fetcher: Fetcher) -> None:
    with pytest.raises(AdapterError) as caught:
        run(fetcher, make_config(server, page_size=0))
    assert caught.value.reason == "invalid_settings"
    assert "page_size" in str(caught.value)


# --- window ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "yesterday"),
    [
        (datetime(2026, 7, 23, 22, 30, tzinfo=UTC), date(2026, 7, 23)),  # 00:30 in Berlin on the 24th
        (datetime(2026, 7, 23, 21, 59, tzinfo=UTC), date(2026, 7, 22)),  # 23:59 in Berlin on the 23rd
        (datetime(2026, 1, 1, 0, 5, tzinfo=BERLIN), date(2025, 12, 31)),
    ],
)
def test_window_ends_yesterday_in_berlin(now: datetime, yesterday: date) -> None:
    assert fetch_window(cursor={}, start_day=None, lookback_days=2, now=now)[1] == yesterday


def test_window_start_from_cursor_start_day_or_lookback() -> None:
    window = fetch_window
    assert window(cursor={"last_day": "2026-07-20"}, start_day=date(2026, 1, 1), lookback_days=2, now=NOW) == (
        date(2026, 7, 21),
        date(2026, 7, 23),
    )
    assert window(cursor={}, start_day=date(2026, 7, 1), lookback_days=2, now=NOW) == (
        date(2026, 7, 1),
        date(2026, 7, 23),
    )
    assert window(cursor={}, start_day=None, lookback_days=5, now=NOW) == (date(2026, 7, 19), date(2026, 7, 23))
    assert window(cursor={"last_day": "2026-07-23"}, start_day=None, lookback_days=2, now=NOW) is None


def test_bad_cursor() -> None:
    with pytest.raises(AdapterError) as caught:
        fetch_window(cursor={"last_day": "gestern"}, start_day=None, lookback_days=2, now=NOW)
    assert caught.value.reason == "bad_cursor"


def test_query_never_includes_today_just_after_midnight(server: HTTPServer, fetcher: Fetcher) -> None:
    serve_pages(server, PAGE2)
    just_after_midnight = datetime(2026, 7, 24, 0, 1, tzinfo=BERLIN)
    (batch,) = run(fetcher, make_config(server, cursor={"last_day": "2026-07-22"}), now=just_after_midnight)
    (body,) = search_bodies(server)
    assert "publication-date>=20260723" in body["query"]
    assert "publication-date<=20260723" in body["query"]
    assert batch.cursor == {"last_day": "2026-07-23"}


def test_up_to_date_cursor_makes_no_request(server: HTTPServer, fetcher: Fetcher) -> None:
    assert run(fetcher, make_config(server, cursor={"last_day": "2026-07-23"})) == []
    assert search_bodies(server) == []


# --- settings --------------------------------------------------------------------------------


def test_registered_with_defaults() -> None:
    assert get_adapter("ted") is TedAdapter
    assert TedAdapter.known_hosts == ("api.ted.europa.eu",)
    assert TedAdapter.validate_settings({}) == {
        "api_url": DEFAULT_API_URL,
        "page_size": 100,
        "max_pages": 50,
        "lookback_days": 2,
    }
    assert TedAdapter.validate_settings({"start_day": "2026-07-01", "page_size": 250})["start_day"] == "2026-07-01"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"api_url": "http://api.ted.europa.eu/v3/notices/search"}, "api_url muss https verwenden"),
        ({"api_url": "https://evil.example/v3/notices/search"}, "api_url: Host 'evil.example' ist nicht erlaubt"),
        ({"api_url": "https://u:p@api.ted.europa.eu/v3/notices/search"}, "darf keine Zugangsdaten enthalten"),
        ({"api_url": 42}, "api_url muss eine URL sein"),
        ({"page_size": 251}, "page_size muss eine ganze Zahl von 1 bis 250 sein"),
        ({"page_size": "100"}, "page_size muss eine ganze Zahl"),
        ({"max_pages": 0}, "max_pages muss eine ganze Zahl"),
        ({"lookback_days": True}, "lookback_days muss eine ganze Zahl"),
        ({"start_day": "24.07.2026"}, "start_day muss ein ISO-Datum"),
        ({"allowed_hosts": "localhost"}, "allowed_hosts muss eine Liste von Hostnamen sein"),
        ({"pagesize": 10}, "Unbekannte TED-Einstellung(en): pagesize"),
    ],
)
def test_invalid_settings(settings: dict, message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        TedAdapter.validate_settings(settings)
    assert any(message in m for m in caught.value.messages), caught.value.messages


def test_allowed_hosts_admit_a_local_server() -> None:
    settings = {"api_url": "http://localhost:8080/v3/notices/search", "allowed_hosts": ["LocalHost", "127.0.0.1"]}
    assert TedAdapter.validate_settings(settings)["allowed_hosts"] == ["localhost", "127.0.0.1"]
    with pytest.raises(ValidationError):  # not without allowed_hosts
        TedAdapter.validate_settings({"api_url": "https://localhost:8080/v3/notices/search"})


# --- files -----------------------------------------------------------------------------------


def parse(*paths: Path) -> list[FetchedBatch]:
    config = SourceConfig(key="ted", adapter="ted", settings={})
    return list(TedAdapter().parse_files(config=config, paths=list(paths)))


def test_parse_files_search_json_bare_array() -> None:
    (batch,) = parse(SEARCH_FIXTURE)
    assert [r.source_notice_id for r in batch.records] == ["479730-2026", "291981-2026"]
    assert batch.records[0].title == "Bewachung Henning-von-Tresckow-Kaserne"
    assert (batch.problems, batch.bytes, batch.requests, batch.cursor) == ((), SEARCH_FIXTURE.stat().st_size, 0, None)
    assert batch.scope == str(SEARCH_FIXTURE)


def test_parse_files_eforms_xml() -> None:
    path = DATA / "eforms-sdk_cn_24_minimal.xml"
    (batch,) = parse(path)
    (record,) = batch.records
    assert (record.source, record.source_notice_id) == ("ted", "f42be27e-09cf-4f0e-a745-63ec689631e6")
    assert record.kind is NoticeKind.CONTRACT_NOTICE
    assert record.title.startswith("Provision of IT Services Related to OP IT Systems")
    assert batch.problems == ()


def test_parse_files_folder_one_batch_per_file(tmp_path: Path) -> None:
    shutil.copy(DATA / "api" / "page1.json", tmp_path / "page1.json")
    (tmp_path / "sub").mkdir()
    shutil.copy(DATA / "eforms-sdk_pin-only_24.xml", tmp_path / "sub" / "pin.XML")
    (tmp_path / "README.md").write_text("not a notice")
    (tmp_path / ".hidden.json").write_text("[]")
    batches = parse(tmp_path)
    assert [Path(b.scope).name for b in batches] == ["page1.json", "pin.XML"]
    assert [[r.source_notice_id for r in b.records] for b in batches] == [
        ["479730-2026"],
        ["f252f386-55ac-4fa8-9be4-9f950b9904c8"],
    ]


def _copies(folder: Path, count: int) -> list[Path]:
    sources = [SEARCH_FIXTURE, DATA / "eforms-sdk_cn_24_minimal.xml", DATA / "eforms-sdk_pin-only_24.xml"]
    for number in range(count):
        source = sources[number % len(sources)]
        shutil.copy(source, folder / f"{number:03d}{source.suffix}")
    return sorted(folder.iterdir())


def test_a_few_files_parse_in_this_process_and_many_in_workers_with_the_same_batches(
    tmp_path: Path, settings, caplog
) -> None:
    """Starting the workers costs about a second: worth it from about a second of parsing on."""
    files = _copies(tmp_path, 9)
    size = sum(path.stat().st_size for path in files)
    settings.SOURCES_PARSE_WORKERS = 2
    caplog.set_level("INFO", logger="sources.parallel")

    settings.SOURCES_PARSE_PARALLEL_MEMBERS = size // BYTES_PER_DOE_MEMBER + 1  # just more than these files weigh
    in_process = parse(tmp_path)
    assert "worker processes" not in caplog.text

    settings.SOURCES_PARSE_PARALLEL_MEMBERS = size // BYTES_PER_DOE_MEMBER  # just as much as they weigh
    in_workers = parse(tmp_path)
    assert "parsing in 2 worker processes" in caplog.text
    assert in_workers == in_process
    assert [Path(batch.scope).name for batch in in_process] == [path.name for path in files]
    assert sum(len(batch.records) for batch in in_process) == 3 * 2 + 3 + 3


def test_the_default_threshold_keeps_a_saved_search_in_this_process(tmp_path: Path, settings, caplog) -> None:
    settings.SOURCES_PARSE_WORKERS = 2
    caplog.set_level("INFO", logger="sources.parallel")
    parse(*_copies(tmp_path, 30))  # ~300 KB: a few hundred notices' worth of saved searches
    assert "worker processes" not in caplog.text


def test_parse_files_unreadable_and_unusable_files_are_problems(tmp_path: Path) -> None:
    missing = tmp_path / "gone.json"
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x00\x01 binary")
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"notices": "none"}')
    bad_xml = tmp_path / "bad.xml"
    bad_xml.write_text("<html><body>no notice</body></html>")
    batches = parse(missing, garbage, bad_json, bad_xml, DATA / "api" / "page2.json")

    assert [len(b.records) for b in batches] == [0, 0, 0, 0, 1]
    problems = [b.problems for b in batches[:4]]
    assert all(len(p) == 1 for p in problems)
    assert "cannot read file" in problems[0][0] and str(missing) in problems[0][0]
    assert "neither a TED search result (JSON) nor an eForms notice (XML)" in problems[1][0]
    assert "not a TED search result" in problems[2][0]
    assert "not a usable eForms notice" in problems[3][0]


def test_parse_files_refuses_a_file_too_large_to_be_a_search_result(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("sources.adapters.ted.MAX_FILE_BYTES", 10)
    big = tmp_path / "export.json"
    big.write_bytes(b"[" + b" " * 100 + b"]")
    (batch,) = parse(big)
    assert batch.records == () and batch.problems == (f"{big}: larger than 10 bytes; skipped",)
