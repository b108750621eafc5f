"""RSS adapter: the constructed service.bund.de feed and the real scraped DTVP feed.

Pure parsing first; then whole runs: a local pytest-httpserver plays www.service.bund.de and the
real fetching layer (allow-list, robots.txt, conditional requests) fetches it into the database.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from werkzeug import Response

from kernel.network import Blocked, Fetcher, FetchPolicy
from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import AdapterError, SourceConfig
from sources.adapters.rss import SERVICE_BUND_FEED, RssAdapter, decode_feed, parse_feed
from sources.models import ConditionalCacheEntry, FetchRun, Source
from sources.registry import get_adapter
from sources.services import source_ingest_files, source_poll
from tenders.models import Tender, TenderSource
from tenders.services import notices_ingest
from tests.factories.records import eforms_record

DATA = Path(__file__).resolve().parents[2] / "data" / "portals"
FEED = DATA / "rss" / "service_bund_ausschreibungen_constructed.xml"
DTVP_SCRAPED = DATA / "dtvp_search_scraped_to_rss_2023-09-07.xml"
FEED_PATH = "/Content/Globals/Functions/RSSFeed/RSSGenerator_Ausschreibungen.xml"
BASE = "https://www.service.bund.de" + FEED_PATH
NETSERVER_OID = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"


def parse_constructed():
    decoded, problems = decode_feed(FEED.read_bytes())
    assert problems == []
    return parse_feed(decoded.text, source="service-bund", base_url=BASE)


def by_id(records):
    return {record.source_notice_id: record for record in records}


# --- parsing ---------------------------------------------------------------------------------


def test_iso_8859_1_label_is_read_as_windows_1252_like_a_browser():
    decoded, problems = decode_feed(FEED.read_bytes())
    assert (decoded.encoding, decoded.declared_by, problems) == ("windows-1252", "xml-declaration", [])
    assert "Schätzwert 80.000 €" in decoded.text  # byte 0x80 behind the ISO-8859-1 label
    assert "\ufffd" not in decoded.text and "\x80" not in decoded.text


def test_items_become_records_with_every_documented_field():
    parsed = parse_constructed()
    assert parsed.items == 5 and parsed.title == "service.bund.de - Ausschreibungen"
    records = by_id(parsed.records)
    assert list(records) == ["4712345", "4712346", "4712347", "4712348", "4712349"]

    cleaning = records["4712345"]
    assert cleaning.source == "service-bund" and cleaning.version == "01"
    assert cleaning.kind == NoticeKind.CONTRACT_NOTICE
    assert cleaning.title == "Unterhaltsreinigung der Dienstgebäude in Köln – Los 1 (Bürogebäude)"
    assert cleaning.buyer_name == "Bundesamt für Bauwesen und Raumordnung"
    assert (cleaning.postal_code, cleaning.town) == ("50667", "Köln")
    assert cleaning.submission_deadline == datetime(2026, 10, 14, 10, 0, tzinfo=BERLIN)
    assert cleaning.submission_deadline.utcoffset().total_seconds() == 7200  # summer time
    assert cleaning.published_at == datetime(2026, 9, 14, 6, 15, tzinfo=UTC)
    assert cleaning.url == (
        "https://www.service.bund.de/IMPORTE/Ausschreibungen/eVergabe/2026/09/4712345.html"
        "?nn=4641514&type=0&searchResult=true"
    )
    assert cleaning.portal_references == ()
    assert "Angebotsfrist: 14.10.2026 10:00" in cleaning.description

    furniture = records["4712346"]
    assert furniture.title == "Lieferung von Büromöbeln für die Generalzolldirektion, Schätzwert 80.000 €"
    assert furniture.buyer_name == "Generalzolldirektion – Dienstort Nürnberg"
    assert (furniture.postal_code, furniture.town) == ("", "Nürnberg")
    # After the switch to winter time: 23:59 CET is 22:59 UTC.
    assert furniture.submission_deadline == datetime(2026, 11, 1, 22, 59, tzinfo=UTC)

    assert records["4712347"].title == "Straßenbauarbeiten an der B 51 „Ortsdurchfahrt Großenkneten“"


def test_links_in_the_description_become_portal_references():
    records = by_id(parse_constructed().records)
    assert records["4712348"].portal_references == (f"netserver:{NETSERVER_OID}",)


def test_broken_dates_leave_the_field_empty_and_name_the_item():
    parsed = parse_constructed()
    records = by_id(parsed.records)
    assert records["4712347"].submission_deadline is None
    assert records["4712349"].published_at is None
    assert records["4712349"].submission_deadline == datetime(2026, 10, 5, 9, 30, tzinfo=BERLIN)
    # The items were stored; what they state but cannot be read is a field problem, not a failed item.
    assert parsed.problems == () and parsed.refused == 0
    first, second = parsed.field_problems
    assert (first.field, second.field) == ("deadline", "published")
    assert "Ortsdurchfahrt Großenkneten" in first.item
    assert "'siehe Vergabeunterlagen' is no date" in first.detail
    assert "item 5" in second.item and "'Invalid Date' is no date" in second.detail


def test_no_replacement_characters_anywhere():
    for record in parse_constructed().records:
        for value in (record.title, record.description, record.buyer_name, record.town):
            assert "\ufffd" not in value


def test_wrong_content_type_charset_falls_back_to_the_document_declaration():
    decoded, problems = decode_feed(FEED.read_bytes(), content_type="application/rss+xml; charset=utf-8")
    assert decoded.encoding == "windows-1252" and "Köln" in decoded.text
    assert len(problems) == 1 and "does not match the body" in problems[0]


def test_scraped_dtvp_feed_with_invalid_dates_is_read_without_crashing():
    decoded, _ = decode_feed(DTVP_SCRAPED.read_bytes())
    parsed = parse_feed(decoded.text, source="dtvp-feed")
    assert parsed.items == 20 and len(parsed.records) == 20
    published = [p for p in parsed.field_problems if p.field == "published"]
    assert len(published) == 20 and all("'Invalid Date' is no date" in p.detail for p in published)
    first = parsed.records[0]
    # No link: the guid (here the title) is the id.
    assert first.source_notice_id == "Schwarzenbachtal - Freianlagen, Kampfmittelsondierung"
    assert first.buyer_name == "Stadt Flensburg - Zentrale Vergabestelle"
    assert first.published_at is None and first.url == ""
    buyers = {record.buyer_name for record in parsed.records}
    assert "Deutsche Gesellschaft für Internationale Zusammenarbeit (GIZ) GmbH" in buyers


def test_items_without_any_id_are_skipped_with_a_problem_and_html_is_no_feed():
    text = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        "<item><title>Ohne Link</title><description>x</description></item>"
        "<item><title>Mit Link</title><link>https://example.org/a</link></item></channel></rss>"
    )
    parsed = parse_feed(text, source="x")
    assert [r.source_notice_id for r in parsed.records] == ["https://example.org/a"]
    assert parsed.problems == ("item 1 'Ohne Link': no link and no guid: the item cannot be tracked, skipped",)


# --- settings --------------------------------------------------------------------------------


def test_registered_and_service_bund_settings_are_valid():
    assert get_adapter("rss") is RssAdapter
    assert RssAdapter.validate_settings({"feed_url": SERVICE_BUND_FEED}) == {"feed_url": SERVICE_BUND_FEED}


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({}, "feed_url fehlt"),
        (
            {"feed_url": "https://example.org/feed.xml"},
            "Für einen Feed auf einem anderen Host diesen Host in allowed_hosts eintragen",
        ),
        ({"feed_url": "http://www.service.bund.de/feed.xml"}, "muss https verwenden"),
        ({"feed_url": SERVICE_BUND_FEED, "ttl": 60}, "Unbekannte RSS-Einstellung(en): ttl"),
        ({"feed_url": "https://user:pw@www.service.bund.de/x"}, "darf keine Zugangsdaten enthalten"),
    ],
)
def test_bad_settings_are_refused_with_a_clear_message(settings, message):
    with pytest.raises(ValidationError) as error:
        RssAdapter.validate_settings(settings)
    assert any(message in m for m in error.value.messages)


def test_another_host_is_allowed_when_listed():
    settings = {"feed_url": "https://example.org/feed.xml", "allowed_hosts": ["Example.org"]}
    assert RssAdapter.validate_settings(settings) == {
        "feed_url": "https://example.org/feed.xml",
        "allowed_hosts": ["example.org"],
    }


# --- through the fetching layer --------------------------------------------------------------


def _no_sleep_fetcher(policy):
    return Fetcher(policy, sleep=lambda seconds: None)


@pytest.fixture
def feed_server(httpserver):
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
    return httpserver


@pytest.fixture
def rss_source(db, feed_server):
    source = Source.objects.get(key="service-bund")
    source.settings = {"feed_url": feed_server.url_for(FEED_PATH), "allowed_hosts": ["localhost", "127.0.0.1"]}
    source.cursor = {}
    source.save()
    return source


def _serve_feed(server, *, etag='"feed-v1"', content_type="application/rss+xml"):
    body = FEED.read_bytes()

    def handler(request):
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        return Response(body, status=200, headers={"Content-Type": content_type, "ETag": etag})

    server.expect_request(FEED_PATH).respond_with_handler(handler)


def test_poll_stores_the_feed_and_records_the_broken_dates(rss_source, feed_server):
    _serve_feed(feed_server)
    outcome = source_poll(source_id=rss_source.pk, fetcher_factory=_no_sleep_fetcher)
    run = FetchRun.objects.get(pk=outcome.run.pk)
    assert run.status == "partial", run.error
    assert (run.fetched, run.new, run.refused, run.failed, run.requests) == (5, 5, 0, 0, 1)
    assert run.field_problems == {"deadline": 1, "published": 1}
    assert run.bytes == len(FEED.read_bytes())
    assert any("'Invalid Date' is no date" in problem for problem in run.problems)

    sources = TenderSource.objects.filter(source="service-bund")
    assert sorted(sources.values_list("source_notice_id", flat=True)) == [f"471234{n}" for n in range(5, 10)]
    furniture = Tender.objects.get(sources__source_notice_id="4712346")
    assert furniture.title == "Lieferung von Büromöbeln für die Generalzolldirektion, Schätzwert 80.000 €"
    assert furniture.buyer_name == "Generalzolldirektion – Dienstort Nürnberg"
    assert furniture.town == "Nürnberg"
    assert furniture.submission_deadline == datetime(2026, 11, 1, 23, 59, tzinfo=BERLIN)
    for title, buyer, town in Tender.objects.values_list("title", "buyer_name", "town"):
        assert "\ufffd" not in title + buyer + town
    assert ConditionalCacheEntry.objects.get(source=rss_source).etag == '"feed-v1"'


def test_second_poll_is_a_conditional_request_answered_with_304(rss_source, feed_server):
    _serve_feed(feed_server)
    source_poll(source_id=rss_source.pk, fetcher_factory=_no_sleep_fetcher)
    again = FetchRun.objects.get(pk=source_poll(source_id=rss_source.pk, fetcher_factory=_no_sleep_fetcher).run.pk)
    assert (again.status, again.fetched, again.not_modified, again.requests) == ("succeeded", 0, 1, 1)
    feed_requests = [request for request, _ in feed_server.log if request.path == FEED_PATH]
    assert feed_requests[-1].headers.get("If-None-Match") == '"feed-v1"'


def test_an_unchanged_feed_without_validators_is_not_parsed_again(rss_source, feed_server):
    feed_server.expect_request(FEED_PATH).respond_with_data(FEED.read_bytes(), content_type="application/rss+xml")
    first = source_poll(source_id=rss_source.pk, fetcher_factory=_no_sleep_fetcher).run
    again = source_poll(source_id=rss_source.pk, fetcher_factory=_no_sleep_fetcher).run
    assert (first.fetched, again.fetched, again.not_modified) == (5, 0, 1)


def test_feed_item_joins_the_doe_tender_of_the_same_netserver_procedure(rss_source, feed_server):
    doe = eforms_record()
    assert f"netserver:{NETSERVER_OID}" in doe.portal_references
    notices_ingest(records=[doe], use_fingerprint=False)
    doe_tender = TenderSource.objects.get(source="doe").tender_id
    _serve_feed(feed_server)
    source_poll(source_id=rss_source.pk, fetcher_factory=_no_sleep_fetcher)
    assert TenderSource.objects.get(source="service-bund", source_notice_id="4712348").tender_id == doe_tender


def test_an_html_page_instead_of_the_feed_is_a_wall(rss_source, feed_server):
    feed_server.expect_request(FEED_PATH).respond_with_data(
        "<html><body><form><input type=password name=pw></form></body></html>", content_type="text/html"
    )
    run = source_poll(source_id=rss_source.pk, fetcher_factory=_no_sleep_fetcher).run
    assert run.status == "blocked" and "login wall" in run.error


def test_garbage_instead_of_a_feed_fails_the_run_with_a_reason(feed_server):
    feed_server.expect_request(FEED_PATH).respond_with_data("<rss version='2.0'><<<", content_type="application/xml")
    config = SourceConfig(
        key="service-bund",
        adapter="rss",
        settings={"feed_url": feed_server.url_for(FEED_PATH), "allowed_hosts": ["localhost"]},
    )
    policy = FetchPolicy(allowed_hosts=frozenset({"localhost"}), allow_loopback=True, min_delay_seconds=0)
    with Fetcher(policy, sleep=lambda s: None) as fetcher, pytest.raises(AdapterError) as error:
        list(RssAdapter().fetch(config=config, fetcher=fetcher, now=datetime.now(UTC)))
    assert error.value.reason == "bad_response" and "not a readable RSS/Atom feed" in str(error.value)


def test_an_operator_added_feed_source_reads_the_scraped_dtvp_feed(db):
    settings = {"feed_url": "https://feeds.example.org/dtvp.xml", "allowed_hosts": ["feeds.example.org"]}
    source = Source(key="dtvp-scraped", name="DTVP (scraped feed)", adapter="rss", settings=settings)
    source.full_clean()
    source.save()
    run = source_ingest_files(source_key="dtvp-scraped", paths=[DTVP_SCRAPED]).run
    assert (run.status, run.fetched, run.new, run.refused, run.failed) == ("partial", 20, 20, 0, 0)
    assert run.field_problems["published"] == 20
    tender = Tender.objects.get(sources__source="dtvp-scraped", sources__source_notice_id="Leasing Wasserspender")
    assert (tender.title, tender.buyer_name, tender.published_at) == ("Leasing Wasserspender", "NBank", None)


def test_blocked_is_raised_for_a_redirect_to_a_login_host(feed_server):
    feed_server.expect_request(FEED_PATH).respond_with_data("", status=302, headers={"Location": "/login"})
    feed_server.expect_request("/login").respond_with_data("<html><form>Anmelden</form></html>")
    config = SourceConfig(
        key="service-bund",
        adapter="rss",
        settings={"feed_url": feed_server.url_for(FEED_PATH), "allowed_hosts": ["localhost"]},
    )
    policy = FetchPolicy(allowed_hosts=frozenset({"localhost"}), allow_loopback=True, min_delay_seconds=0)
    with Fetcher(policy, sleep=lambda s: None) as fetcher, pytest.raises(Blocked):
        list(RssAdapter().fetch(config=config, fetcher=fetcher, now=datetime.now(UTC)))


# -- what public clients report about the live service.bund.de feed (constructed items) ----------

TRACKED_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>service.bund.de - Ausschreibungen</title>
<item>
  <title>Rahmenvertrag Reinigungsleistungen Bundesamt f&#252;r Seeschifffahrt</title>
  <link>https://www.service.bund.de/IMPORTE/Ausschreibungen/eVergabe/2026/11/432613G349409.html?nn=4641514#track=feed-callforbids</link>
  <guid>https://www.service.bund.de/IMPORTE/Ausschreibungen/eVergabe/2026/11/432613G349409.html?nn=4641514#track=feed-callforbids</guid>
  <description><![CDATA[Erf&uuml;llungsort: <strong>20359 Hamburg</strong><br />Vergabestelle: <strong>Bundesamt f&uuml;r Seeschifffahrt und Hydrographie</strong><br />Angebotsfrist: <strong>15.12.2026 24:00</strong><br />Ver&ouml;ffentlichungsende: <strong>15.12.2026</strong>]]></description>
</item>
<item>
  <title>Wartung Aufz&#252;ge</title>
  <link>https://www.service.bund.de/IMPORTE/Ausschreibungen/eVergabe/2026/11/432613G349409.html#track=feed-other</link>
</item>
</channel></rss>
"""


def test_tracking_fragments_are_neither_identity_nor_stored_url_and_ids_are_alphanumeric() -> None:
    parsed = parse_feed(TRACKED_FEED, source="service-bund")
    first, second = parsed.records
    assert first.source_notice_id == second.source_notice_id == "432613G349409"
    assert (
        first.url
        == "https://www.service.bund.de/IMPORTE/Ausschreibungen/eVergabe/2026/11/432613G349409.html?nn=4641514"
    )
    assert "#" not in second.url and "track" not in first.payload["rss"]["guid"]
    assert first.buyer_name == "Bundesamt für Seeschifffahrt und Hydrographie"
    assert first.submission_deadline.astimezone(BERLIN).strftime("%d.%m.%Y %H:%M") == "15.12.2026 23:59"


def test_the_siteglobals_form_of_the_feed_url_is_accepted() -> None:
    from sources.adapters.rss import SERVICE_BUND_FEED_SITEGLOBALS

    settings = RssAdapter.validate_settings({"feed_url": SERVICE_BUND_FEED_SITEGLOBALS})
    assert settings["feed_url"] == SERVICE_BUND_FEED_SITEGLOBALS
