"""DÖE OCDS release packages -> NoticeRecord: field-level checks on the saved real packages plus hostile input."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from kernel.records import NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from sources.parsers.ocds import OcdsParseError, parse_ocds_package, resolve_buyer_id

DOE = Path(__file__).resolve().parents[2] / "data" / "doe"
THREE_LOTS = "ocds_release-package_tender_3lots_value_subreport-docs_000ada85-c11f-44cf-b1e6-b4bb5232ed7b.json"
NO_CPV = "ocds_release-package_tender_no-cpv_evergabe-online-doc_010f171c-7d99-4e3a-b573-94b6d635a592.json"
AWARD = "ocds_release-package_award_single-supplier_contract_00725bdd-1ad2-4de5-b6c2-ab6113dabd5f.json"
AUFHEBUNG = "ocds_release-package_award_unsuccessful_aufhebung_008b7d74-6c76-412e-bf72-67ca753055aa.json"


def _raw(name: str) -> bytes:
    return (DOE / name).read_bytes()


def _one(name: str):
    records = parse_ocds_package(_raw(name))
    assert len(records) == 1
    return records[0]


def _package(name: str) -> dict:
    return json.loads(_raw(name))


def _release(**overrides) -> dict:
    release = {"ocid": "ocds-x-1", "id": "rel-1", "tag": ["tender"], "tender": {"id": "proc-1", "title": "T"}}
    release.update(overrides)
    return release


def _parse_obj(obj) -> list:
    return parse_ocds_package(json.dumps(obj).encode())


class TestThreeLotsTender:
    def test_identity(self):
        record = _one(THREE_LOTS)
        assert record.source == "doe"
        assert record.source_notice_id == "000ada85-c11f-44cf-b1e6-b4bb5232ed7b"
        assert record.version == "01"
        assert record.kind is NoticeKind.CONTRACT_NOTICE
        assert record.status is TenderStatus.ACTIVE
        assert record.ocid == "ocds-mnwr74-3388307f-365f-4502-a18d-41661ae47e9e"
        # DÖE: ocid = publisher prefix + tender.id (the eForms procedure UUID)
        assert record.procedure_id == "3388307f-365f-4502-a18d-41661ae47e9e"
        assert record.ocid.endswith(record.procedure_id)
        assert (
            record.url
            == "https://oeffentlichevergabe.de/ui/de/search/details?noticeId=000ada85-c11f-44cf-b1e6-b4bb5232ed7b"
        )

    def test_texts_and_buyer(self):
        record = _one(THREE_LOTS)
        assert record.title == "HLF 20 Fw. Steinbergkirche im Amt Geltinger Bucht"
        assert record.description.startswith("Beschaffung eines Hilfeleistungslöschgruppenfahrzeugs HLF 20")
        assert record.buyer_name == "Amt Geltinger Bucht"
        # buyer.id is a phone number ("t: +49 46 32 84 91 0"), identifier.id the party id "ORG-0001": nothing usable
        assert record.buyer_id == ""

    def test_classification_place_value(self):
        record = _one(THREE_LOTS)
        assert record.procedure_type == "open"
        assert record.cpv_codes == ("34144210",)
        assert record.nuts_codes == ("DEF0C", "DEF02")
        assert record.bundesland == "Schleswig-Holstein"
        # delivery address, not the buyer's (buyer PLZ is 24972, delivery PLZ 24792)
        assert record.postal_code == "24792"
        assert record.town == "Steinbergkirche"
        assert record.country == "DEU"
        assert record.estimated_value == Decimal("500000")
        assert record.currency == "EUR"

    def test_lots_documents_dates(self):
        record = _one(THREE_LOTS)
        assert [lot.lot_id for lot in record.lots] == ["LOT-0001", "LOT-0002", "LOT-0003"]
        assert [lot.estimated_value for lot in record.lots] == [Decimal(150000), Decimal(200000), Decimal(150000)]
        assert all(lot.cpv_codes == ("34144210",) for lot in record.lots)
        assert record.lots[0].title.startswith("Produktion und Lieferung eines Hilfeleistungslöschgruppenfahrzeugs")
        assert record.documents_url == "https://www.subreport.de/E39662358"
        assert record.published_at == datetime(2026, 8, 22, 11, 58, 5, tzinfo=UTC)
        assert record.submission_deadline is None  # DÖE's OCDS omits tenderPeriod
        assert record.questions_deadline is None
        assert record.suppliers == ()
        assert record.portal_references == ()
        assert record.referenced_notice_ids == ()

    def test_payload_is_small(self):
        record = _one(THREE_LOTS)
        assert record.payload == {
            "format": "ocds",
            "tag": ["tender"],
            "release_id": "000ada85-c11f-44cf-b1e6-b4bb5232ed7b",
            "date": "2026-08-22T11:58:05Z",
        }


class TestNoCpvTender:
    def test_fields(self):
        record = _one(NO_CPV)
        assert record.source_notice_id == "010f171c-7d99-4e3a-b573-94b6d635a592"
        assert record.version == "01"  # the package uri says noticeVersion=1
        assert record.procedure_id == "24149252-44a4-4c11-93c1-411b80982d33"
        assert record.title == "Kauf und Lieferung eines ferngesteuerten Raupen- Schlegelmäher mit Frontmähwerk"
        assert record.buyer_name == "Landkreis Harz"
        assert record.buyer_id == ""  # only identifier.id "ORG-0001" (internal party id)
        assert record.cpv_codes == ()
        assert record.procedure_type == "public_tender"  # procurementMethodDetails "Public announcement"
        assert record.kind is NoticeKind.CONTRACT_NOTICE
        assert record.status is TenderStatus.ACTIVE

    def test_place_from_free_text_location(self):
        record = _one(NO_CPV)
        assert record.nuts_codes == ()
        # No NUTS code: the Land comes from the postcode 38820 (Halberstadt, Sachsen-Anhalt).
        assert record.bundesland == "Sachsen-Anhalt"
        # deliveryLocation.description "Landkreis Harz\nKreisstraßenbauhof\nSternstraße 11\n38820 Halberstadt"
        assert record.postal_code == "38820"
        assert record.town == "Halberstadt"
        assert record.country == "DEU"  # from the buyer address, no delivery country given

    def test_value_lots_documents(self):
        record = _one(NO_CPV)
        assert record.estimated_value is None
        assert record.currency == ""
        assert len(record.lots) == 1
        assert record.lots[0].lot_id == "LOT-0000"
        assert record.lots[0].cpv_codes == ()
        assert record.documents_url == "https://www.evergabe-online.de/tenderdetails.html?id=885416"
        assert record.published_at == datetime(2026, 8, 25, 7, 6, 4, tzinfo=UTC)


class TestAwardSingleSupplier:
    def test_award(self):
        record = _one(AWARD)
        assert record.kind is NoticeKind.AWARD
        assert record.status is TenderStatus.AWARDED
        assert record.suppliers == ("msg systems ag",)
        assert record.title == "Informations- und Unterstützungsstelle Digitalcheck"
        assert record.procedure_id == "c13b4c36-d707-43b2-9a3e-3f78f0ccf319"

    def test_buyer_quirk(self):
        record = _one(AWARD)
        assert record.buyer_name == "Der Regierende Bürgermeister von Berlin - Senatskanzlei"
        # buyer.identifier.id points at "ORG-0004" - the *supplier* party; the buyer parties carry DE321903299
        assert record.buyer_id == "DE321903299"

    def test_classification_place(self):
        record = _one(AWARD)
        assert record.cpv_codes == ("72000000", "72220000", "79000000")
        assert record.procedure_type == "open"
        assert record.nuts_codes == ("DE300",)
        assert record.bundesland == "Berlin"
        assert (record.postal_code, record.town, record.country) == ("10178", "Berlin", "DEU")
        assert record.estimated_value is None
        assert len(record.lots) == 1
        assert record.lots[0].cpv_codes == ("72000000", "72220000", "79000000")
        assert record.documents_url == ""
        assert record.published_at == datetime(2026, 8, 16, 15, 36, 6, tzinfo=UTC)

    def test_suppliers_only_in_parties(self):
        package = _package(AWARD)
        for award in package["releases"][0]["awards"]:
            del award["suppliers"]
        (record,) = _parse_obj(package)
        assert record.suppliers == ("msg systems ag",)


class TestAufhebung:
    def test_all_awards_unsuccessful_is_cancelled(self):
        record = _one(AUFHEBUNG)
        assert record.kind is NoticeKind.AWARD
        assert record.status is TenderStatus.CANCELLED
        assert record.suppliers == ()
        assert record.title == "Aufhebung des Open house Verfahrens Arzneimittelrabattverträge Teriparatid, ATC H05AA02"

    def test_fields(self):
        record = _one(AUFHEBUNG)
        assert record.buyer_name == "AOK Bayern - Die Gesundheitskasse"
        assert record.buyer_id == "DE811695320"
        assert record.cpv_codes == ("33600000",)
        assert record.procedure_type == "open"
        assert record.nuts_codes == ("DE212",)
        assert record.bundesland == "Bayern"
        assert (record.postal_code, record.town) == ("", "")  # delivery address has a region only
        assert record.published_at == datetime(2026, 8, 13, 2, 22, 19, tzinfo=UTC)


class TestResolveBuyerId:
    @pytest.mark.parametrize(
        ("identifier", "expected"),
        [
            ("t: +49 46 32 84 91 0", ""),
            ("t:022894990", ""),
            ("+49 431 988 4542", ""),
            ("089 62730267", ""),
            ("000", ""),
            ("ORG-0001", ""),
            ("DE321903299", "DE321903299"),
            ("DE 129 420 400", "DE 129 420 400"),
            ("11-1300000V00-74", "11-1300000V00-74"),
            ("05315000-0001-44", "05315000-0001-44"),
            ("991-12345-67", "991-12345-67"),
        ],
    )
    def test_plausibility(self, identifier, expected):
        release = {
            "parties": [{"id": "ORG-0001", "identifier": {"id": identifier}, "roles": ["buyer"]}],
            "buyer": {"id": identifier, "identifier": {"id": "ORG-0001"}},
        }
        assert resolve_buyer_id(release) == expected

    def test_additional_identifier_and_fallbacks(self):
        release = {
            "parties": [
                {
                    "id": "ORG-0001",
                    "identifier": {"id": "t: 0431 1234"},
                    "additionalIdentifiers": [{"id": "991-00000-12"}],
                    "roles": ["buyer"],
                }
            ],
        }
        assert resolve_buyer_id(release) == "991-00000-12"
        assert resolve_buyer_id({"buyer": {"id": "DE123456789"}}) == "DE123456789"
        assert resolve_buyer_id({"parties": "x", "buyer": ["x"]}) == ""
        assert resolve_buyer_id(None) == ""  # type: ignore[arg-type]


class TestShapes:
    def test_utf8_bom(self):
        assert parse_ocds_package(b"\xef\xbb\xbf" + _raw(THREE_LOTS))[0].title.startswith("HLF 20")

    def test_single_release_object(self):
        (record,) = _parse_obj(_package(AWARD)["releases"][0])
        assert record.source_notice_id == "00725bdd-1ad2-4de5-b6c2-ab6113dabd5f"
        assert record.version == "01"
        assert record.published_at == datetime(2026, 8, 16, 15, 36, 6, tzinfo=UTC)

    def test_record_package_uses_compiled_release(self):
        release = _package(THREE_LOTS)["releases"][0]
        (record,) = _parse_obj({"records": [{"ocid": release["ocid"], "compiledRelease": release}]})
        assert record.lots and record.estimated_value == Decimal("500000")

    def test_source_and_version_from_uri(self):
        package = {"uri": "https://x.example/api?noticeVersion=03", "releases": [_release()]}
        (record,) = parse_ocds_package(json.dumps(package).encode(), source="other")
        assert (record.source, record.version, record.url) == ("other", "03", "")

    @pytest.mark.parametrize(
        ("tags", "kind"),
        [
            (["planning"], NoticeKind.PRIOR_INFORMATION),
            (["tender"], NoticeKind.CONTRACT_NOTICE),
            (["tenderAmendment"], NoticeKind.CHANGE),
            (["tender", "tenderUpdate"], NoticeKind.CHANGE),
            (["award", "contract"], NoticeKind.AWARD),
            (["tenderCancellation"], NoticeKind.CANCELLATION),
            ("award", NoticeKind.AWARD),
        ],
    )
    def test_kind_from_tag(self, tags, kind):
        (record,) = _parse_obj(_release(tag=tags))
        assert record.kind is kind

    def test_cancellation_and_tender_status(self):
        assert _parse_obj(_release(tag=["tenderCancellation"]))[0].status is TenderStatus.CANCELLED
        withdrawn = _release(tender={"id": "p", "status": "withdrawn"})
        assert _parse_obj(withdrawn)[0].status is TenderStatus.CANCELLED
        assert _parse_obj(_release(tender={"status": "complete"}))[0].status is TenderStatus.AWARDED

    def test_lot_value_sum_and_cpv_without_check_digit(self):
        tender = {
            "lots": [
                {"id": "L1", "value": {"amount": "100.50", "currency": "EUR"}},
                {"id": "L2", "value": {"amount": 200, "currency": "EUR"}},
            ],
            "items": [{"relatedLot": "L2", "classification": {"scheme": "CPV", "id": "45233140-2"}}],
            "documents": [
                {"url": "https://a.example/x"},
                {"url": "https://b.example/y", "documentType": "biddingDocuments"},
            ],
            "tenderPeriod": {"endDate": "2026-10-01T12:00:00+02:00"},
            "enquiryPeriod": {"endDate": "2026-09-20"},
            "deliveryAddresses": [{"region": "DEA23", "locality": "Köln", "postalCode": "D-50667"}],
        }
        (record,) = _parse_obj(_release(tender=tender))
        assert (record.estimated_value, record.currency) == (Decimal("300.50"), "EUR")
        assert record.cpv_codes == ("45233140",)
        assert record.lots[1].cpv_codes == ("45233140",)
        assert record.documents_url == "https://b.example/y"
        assert record.submission_deadline == datetime.fromisoformat("2026-10-01T12:00:00+02:00")
        assert record.questions_deadline is not None and record.questions_deadline.tzinfo is not None
        assert (record.nuts_codes, record.bundesland) == (("DEA23",), "Nordrhein-Westfalen")
        assert (record.postal_code, record.town) == ("50667", "Köln")

    def test_mixed_lot_currencies_give_no_value(self):
        lots = [
            {"id": "L1", "value": {"amount": 1, "currency": "EUR"}},
            {"id": "L2", "value": {"amount": 1, "currency": "CHF"}},
        ]
        assert _parse_obj(_release(tender={"lots": lots}))[0].estimated_value is None

    def test_portal_and_notice_references(self):
        release = _release(
            tender={
                "submissionMethodDetails": "Angebote über https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5 abgeben.",
                "documents": [
                    {
                        "url": "https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID=54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"
                    },
                    {"url": "https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5/documents"},
                ],
                "amendments": [{"releaseID": "83790896-0cd3-4adf-9c41-07420c702431-01"}],
            },
            relatedProcesses=[
                {"scheme": "ocid", "identifier": "ocds-x-0"},
                {"scheme": "eu-oj", "identifier": "2026/S 123-456789"},
            ],
        )
        (record,) = _parse_obj(release)
        assert record.portal_references == (
            "cosinex:CXP4Y9PRGS5",
            "netserver:54321-Tender-1a09ee5f4b7-72f9ab694e623ec2",
        )
        assert record.referenced_notice_ids == ("2026/S 123-456789", "83790896-0cd3-4adf-9c41-07420c702431")


class TestHostile:
    @pytest.mark.parametrize(
        "data",
        [
            b"{not json",
            b"null",
            b"[]",
            b'"x"',
            b"\xff\xfe\x00garbage",
            b"",
            b'{"releases": {"a": 1}}',
            b'{"releases": null}',
            b'{"releases": []}',
            b'{"releases": [1, "x", null]}',
            b'{"publisher": {}}',
            b'{"releases": [{"ocid": "o", "tag": ["tender"]}]}',
            b'{"records": [{"compiledRelease": null}]}',
        ],
    )
    def test_unusable_input_raises_parse_error(self, data):
        with pytest.raises(OcdsParseError):
            parse_ocds_package(data)

    def test_error_message_is_clear(self):
        with pytest.raises(OcdsParseError, match="'releases' must be a list"):
            parse_ocds_package(b'{"releases": {"id": "x"}}')
        with pytest.raises(OcdsParseError, match="not valid JSON"):
            parse_ocds_package(b"<xml/>")

    def test_wrong_types_everywhere_do_not_crash(self):
        release = {
            "id": "r",
            "ocid": ["x"],
            "date": 5,
            "tag": {"a": 1},
            "buyer": "x",
            "parties": {"roles": "buyer"},
            "awards": "x",
            "relatedProcesses": [None, 1, {"scheme": None}],
            "tender": {
                "id": None,
                "title": ["x"],
                "description": {"de": "x"},
                "value": [1],
                "lots": [None, {"id": 1, "value": "x"}],
                "items": [{"classification": "CPV", "additionalClassifications": {"id": "1"}, "deliveryAddress": []}],
                "documents": [{"url": None}, "https://x"],
                "procurementMethodDetails": 7,
                "tenderPeriod": "x",
                "deliveryAddresses": [{"region": 12, "postalCode": None, "countryName": ["DEU"]}],
                "status": None,
            },
        }
        (record,) = _parse_obj({"releases": [release], "uri": None, "publishedDate": []})
        assert record.source_notice_id == "r"
        assert record.ocid is None and record.procedure_id is None
        assert record.title == "" and record.cpv_codes == () and record.nuts_codes == ()
        assert record.estimated_value is None and record.published_at is None
        assert [lot.lot_id for lot in record.lots] == ["1"]
        assert record.kind is NoticeKind.CONTRACT_NOTICE and record.status is TenderStatus.ACTIVE


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"123456789012345678901234", Decimal("123456789012345678901234")),  # beyond 64 bits: no float detour
        (b"1234.5", Decimal("1234.5")),
        (b"NaN", None),  # json.loads reads NaN; the amount rule refuses it
    ],
)
def test_amounts_are_read_as_the_standard_json_parser_reads_them(raw: bytes, expected) -> None:
    package = b'{"releases": [{"ocid": "o-1", "id": "r-1", "tag": ["tender"], "tender": {"value": {"amount": %s, "currency": "EUR"}}}]}'
    assert parse_ocds_package(package % raw)[0].estimated_value == expected


def test_a_utf16_package_is_read() -> None:
    package = json.dumps({"releases": [_release(tender={"id": "p", "title": "Straßenbau"})]}).encode("utf-16")
    assert parse_ocds_package(package)[0].title == "Straßenbau"


_PORTAL_LINKS = {
    "documents": [
        {"url": "https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5/documents"},
        {"url": "https://www.tender24.de/NetServer/x?TenderOID=54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"},
    ]
}
_REFS = ("cosinex:CXP4Y9PRGS5", "netserver:54321-Tender-1a09ee5f4b7-72f9ab694e623ec2")


def test_portal_links_are_found_however_the_json_writes_them() -> None:
    """Links are collected only from documents that can hold a portal id; escapes and UTF-16 still count."""
    package = {"releases": [_release(tender={"id": "p", **_PORTAL_LINKS})]}
    plain = json.dumps(package).encode()
    assert parse_ocds_package(plain)[0].portal_references == _REFS
    escaped = (
        json.dumps(package, ensure_ascii=True).replace("CXP4", "\\u0043XP4").replace("TenderOID", "Tender\\u004fID")
    )
    assert "CX" not in escaped and "toid" not in escaped.lower()
    assert parse_ocds_package(escaped.encode())[0].portal_references == _REFS
    assert parse_ocds_package(json.dumps(package).encode("utf-16"))[0].portal_references == _REFS
    without = {"releases": [_release(tender={"id": "p", "documents": [{"url": "https://example.org/unterlagen"}]})]}
    assert parse_ocds_package(json.dumps(without).encode())[0].portal_references == ()


@pytest.mark.parametrize(
    ("uri", "version"),
    [
        ("https://x.example/api?format=ocds&noticeVersion=3", "03"),
        ("https://x.example/api?noticeVersion=&noticeVersion=2", "02"),  # a blank value does not count
        ("https://x.example/api?noticeVersion=2#noticeVersion=5", "02"),
        ("https://x.example/api#?noticeVersion=5", "01"),
        ("https://x.example/api?notice%56ersion=4", "04"),  # percent-encoded: the full parse
        ("https://x.example/api?noticeVersion=+7", "07"),
        ("https://[::1/api?noticeVersion=2", "01"),  # an unparsable host
        ("", "01"),
    ],
)
def test_the_notice_version_is_read_from_the_package_uri(uri: str, version: str) -> None:
    package = {"uri": uri, "releases": [_release()]}
    assert parse_ocds_package(json.dumps(package).encode())[0].version == version
