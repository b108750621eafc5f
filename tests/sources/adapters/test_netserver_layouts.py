"""NetServer's reported layouts (five cells, six cells by class only, cards) through the real Fetcher.

The pages in ``tests/data/portals/netserver/variants`` are CONSTRUCTED from what public clients
report about the live hosts (README there). Served by pytest-httpserver with
``Content-Type: text/html`` and no charset, so ``<meta>`` is the only declaration.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kernel.network import BackoffPolicy, Fetcher, FetchPolicy
from kernel.records import NoticeRecord
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.base import FetchedBatch, SourceConfig
from sources.adapters.netserver import NetServerAdapter
from sources.adapters.netserver.parse import split_type_text
from sources.adapters.yields import LayoutChanged
from tests.fixtures.network import loopback_resolver

VARIANTS = Path(__file__).resolve().parents[2] / "data" / "portals" / "netserver" / "variants"
NO_RESULTS = VARIANTS.parent / "no_results.html"
LANDBW = "landbw_results_5cells_cp1252.html"
AUTOBAHN = "autobahn_results_6cells_utf8.html"
HESSEN = "hessen_results_cards_utf8.html"
WEILHEIM = "54321-NetTender-1b2c3d4e5f6-a1b2c3d4e5f60718"
WEILHEIM_TENDER_OID = "54321-Tender-1b2c3d4e5f6-0f1e2d3c4b5a6978"
STREUSALZ = "54321-NetTender-1b2c3d4e5f7-b2c3d4e5f6071829"
SUESSEN = "54321-NetTender-1b2c3d4e5f8-c3d4e5f60718293a"
DARMSTADT = "54321-NetTender-1d4e6f8a0b2-3456789abcdef012"
KASSEL = "54321-NetTender-1d4e6f8a0b3-456789abcdef0123"
A8 = "54321-Tender-1c3d5e7f9a1-1234567890abcdef"
NOW = datetime(2026, 11, 25, 8, 0, tzinfo=BERLIN)


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


class VariantSite:
    """A NetServer host serving one constructed result page at Start=0 and its detail pages."""

    def __init__(self, httpserver: HTTPServer, results: str) -> None:
        self.server = httpserver
        self.results = (VARIANTS / results).read_bytes()
        self.searches: list[dict[str, list[str]]] = []
        self.details: list[str] = []
        httpserver.expect_request("/robots.txt").respond_with_data("User-agent: *\nAllow: /\n")
        httpserver.expect_request(re.compile(r"^/NetServer/.*$")).respond_with_handler(self._handle)

    @property
    def base_url(self) -> str:
        return self.server.url_for("/NetServer/")

    def _handle(self, request: Request) -> Response:
        name = request.path.rsplit("/", 1)[-1]
        if name == "PublicationSearchControllerServlet":
            self.searches.append(parse_qs(urlsplit(request.url).query))
            body = self.results if request.args.get("Start", "0") == "0" else NO_RESULTS.read_bytes()
            return Response(body, content_type="text/html")
        if name == "PublicationControllerServlet":
            oid = request.args.get("TOID", "")
            self.details.append(oid)
            found = sorted(VARIANTS.glob(f"*detail_{oid}.html"))
            if not found:
                return Response("not found", status=404)
            return Response(found[0].read_bytes(), content_type="text/html")
        return Response("not found", status=404)

    def fetch(self, fetcher, key: str, **settings: object) -> list[FetchedBatch]:
        config = SourceConfig(
            key=key,
            adapter="netserver",
            settings={"base_url": self.base_url, "allowed_hosts": ["localhost"], "page_size": 3, **settings},
        )
        return list(NetServerAdapter().fetch(config=config, fetcher=fetcher, now=NOW))


def records(batches: list[FetchedBatch]) -> dict[str, NoticeRecord]:
    return {r.source_notice_id: r for b in batches for r in b.records}


def local(value: datetime | None) -> str:
    assert value is not None
    return value.astimezone(BERLIN).strftime("%d.%m.%Y %H:%M")


def test_five_cell_rows_split_legal_basis_and_procedure_and_read_24_00_as_end_of_day(httpserver, fetcher) -> None:
    site = VariantSite(httpserver, LANDBW)
    batches = site.fetch(fetcher, "vergabe-landbw", max_details=0)
    found = records(batches)
    assert list(found) == [WEILHEIM, STREUSALZ, SUESSEN]
    weilheim = found[WEILHEIM]
    assert weilheim.title == "Neubau Feuerwehrhaus Weilheim – Rohbauarbeiten"  # windows-1252 0x96 under ISO-8859-1
    assert weilheim.buyer_name == "Stadt Weilheim an der Teck"
    assert (weilheim.legal_basis, weilheim.procedure_type) == ("vob-a", "public_tender")
    assert weilheim.payload["legal_framework"] == "VOB/A"
    assert weilheim.payload["procedure"] == "Öffentliche Ausschreibung"
    assert local(weilheim.published_at) == "18.11.2026 00:00"
    assert local(weilheim.submission_deadline) == "22.12.2026 23:59"  # "22.12.2026 24:00"
    assert (found[STREUSALZ].legal_basis, found[STREUSALZ].procedure_type) == ("uvgo", "public_tender")
    assert local(found[STREUSALZ].submission_deadline) == "01.12.2026 10:00"
    assert (found[SUESSEN].legal_basis, found[SUESSEN].procedure_type) == ("vgv", "open")
    assert found[SUESSEN].buyer_name == "Gemeinde Süßen"
    # The layout is reported with the page; no row was rejected.
    [first, *_] = batches
    assert [(y.layout, y.rows_seen, y.parsed, dict(y.rejected)) for y in first.yields] == [("table-5", 3, 3, {})]
    assert not first.problems and first.sample is None


def test_search_urls_ask_for_newest_first_and_paging_follows_start_links(httpserver, fetcher) -> None:
    site = VariantSite(httpserver, LANDBW)
    site.fetch(fetcher, "vergabe-landbw", max_details=0)
    assert [(q["OrderBy"], q["Order"], q["Start"]) for q in site.searches] == [
        (["Publishing"], ["desc"], ["0"]),
        (["Publishing"], ["desc"], ["3"]),  # the smallest Start= linked above the current one
    ]


def test_six_cells_known_by_class_alone(httpserver, fetcher) -> None:
    site = VariantSite(httpserver, AUTOBAHN)
    batches = site.fetch(fetcher, "vergabe-autobahn", max_details=0)
    a8 = records(batches)[A8]
    assert a8.title == "A 8 – Erneuerung der Fahrbahn zwischen AS Merklingen und AS Ulm-West"
    assert a8.buyer_name == "Die Autobahn GmbH des Bundes, Niederlassung Südwest"
    assert (a8.legal_basis, a8.procedure_type) == ("vob-a-eu", "open")
    assert local(a8.published_at) == "20.11.2026 00:00"
    assert local(a8.submission_deadline) == "15.01.2027 23:59"
    assert batches[0].yields[0].layout == "table-6"


def test_cards_give_the_same_fields_with_slash_dates(httpserver, fetcher) -> None:
    site = VariantSite(httpserver, HESSEN)
    batches = site.fetch(fetcher, "vergabe-hessen", max_details=0)
    found = records(batches)
    assert list(found) == [DARMSTADT, KASSEL]
    darmstadt = found[DARMSTADT]
    assert darmstadt.title == "Reinigung der Dienstgebäude des Regierungspräsidiums Darmstadt"
    assert darmstadt.buyer_name == "Regierungspräsidium Darmstadt"
    assert (darmstadt.legal_basis, darmstadt.procedure_type) == ("uvgo", "public_tender")
    assert local(darmstadt.published_at) == "21.11.2026 00:00"
    assert local(darmstadt.submission_deadline) == "14.12.2026 23:59"  # "14/12/2026 24:00"
    kassel = found[KASSEL]
    assert (kassel.legal_basis, kassel.procedure_type) == ("vob-a", "limited_tender")
    assert local(kassel.submission_deadline) == "09.12.2026 10:00"
    assert batches[0].yields[0].layout == "cards"


def test_a_printarea_detail_page_with_numbered_labels_adds_the_tender_oid_as_second_reference(
    httpserver, fetcher
) -> None:
    site = VariantSite(httpserver, LANDBW)
    batches = site.fetch(fetcher, "vergabe-landbw")
    weilheim = records(batches)[WEILHEIM]
    assert weilheim.payload["detail"] is True
    assert weilheim.portal_references == (f"netserver:{WEILHEIM}", f"netserver:{WEILHEIM_TENDER_OID}")
    assert weilheim.documents_url.endswith(f"TenderOID={WEILHEIM_TENDER_OID}")
    assert (
        weilheim.estimated_value == Decimal("1250000.00") and weilheim.currency == "EUR"
    )  # "II.2.1) Geschätzter Wert ohne MwSt."
    assert weilheim.cpv_codes == ("45210000",)
    assert (weilheim.postal_code, weilheim.town, weilheim.nuts_codes) == ("73235", "Weilheim an der Teck", ("DE116",))
    assert weilheim.description.startswith("Rohbau (Erdarbeiten")
    assert local(weilheim.submission_deadline) == "22.12.2026 23:59"
    # The two rows without a detail page are recorded from their rows and reported as missing.
    assert site.details == [WEILHEIM, STREUSALZ, SUESSEN]
    assert sum(len(b.missing) for b in batches) == 2


def test_a_content_section_detail_page_of_the_card_layout(httpserver, fetcher) -> None:
    site = VariantSite(httpserver, HESSEN)
    darmstadt = records(site.fetch(fetcher, "vergabe-hessen"))[DARMSTADT]
    assert darmstadt.payload["detail"] is True
    assert darmstadt.description.startswith("Unterhaltsreinigung von rund 18.400 m²")
    assert darmstadt.cpv_codes == ("90919200",)
    assert (darmstadt.postal_code, darmstadt.town) == ("64283", "Darmstadt")
    assert darmstadt.payload["reference"] == "RPDA-Z3-2026-118"
    assert darmstadt.legal_basis == "uvgo"


def test_some_rows_rejected_are_counted_by_reason_and_the_page_kept_as_sample(httpserver, fetcher) -> None:
    site = VariantSite(httpserver, LANDBW)
    site.results = site.results.replace(f'data-oid="{STREUSALZ}"'.encode(), b'data-oid=""')
    batches = site.fetch(fetcher, "vergabe-landbw", max_details=0)
    assert list(records(batches)) == [WEILHEIM, SUESSEN]
    report = batches[0].yields[0]
    assert (report.rows_seen, report.parsed, dict(report.rejected)) == (3, 2, {"no usable data-oid": 1})
    assert batches[0].sample is not None and batches[0].sample.body == site.results


def test_a_five_cell_page_whose_title_class_and_header_are_gone_is_a_changed_layout(httpserver, fetcher) -> None:
    site = VariantSite(httpserver, LANDBW)
    site.results = site.results.replace(b'class="tender"', b'class="t-col"').replace(
        b"<th>Ausschreibung</th>", b"<th></th>"
    )
    with pytest.raises(LayoutChanged) as caught:
        site.fetch(fetcher, "vergabe-landbw", max_details=0)
    assert caught.value.page_yield.rejected == {"no title cell among 5 cells": 3}
    assert caught.value.page_yield.layout == "table-5"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("UVgO, Öffentliche Ausschreibung", ("UVgO", "Öffentliche Ausschreibung")),
        ("Öffentliche Ausschreibung, VOB/A", ("VOB/A", "Öffentliche Ausschreibung")),
        ("Verhandlungsvergabe", ("", "Verhandlungsvergabe")),
    ],
)
def test_split_type_text(text, expected) -> None:
    assert split_type_text(text) == expected
