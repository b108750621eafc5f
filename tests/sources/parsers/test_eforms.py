"""Field-level tests of the eForms parser on real DÖE exports and the official SDK examples."""

from __future__ import annotations

import time as clock
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from kernel.records import Lot, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from kernel.vocabulary.time_zone import BERLIN
from sources.parsers.eforms import EformsParseError, parse_eforms

DATA = Path(__file__).resolve().parents[2] / "data"
MPE = DATA / "doe" / "eforms-de-2.1_cn-standard_16_24d29507-f9dd-4712-aef0-9d864df3af8e-01.xml"
LEGACY = DATA / "doe" / "eforms-sdk-0.1_cn-standard_legacy-prefixed_17750180-1.xml"
CEST = timezone(timedelta(hours=2))
CET = timezone(timedelta(hours=1))


def parse(path: Path, **kwargs):
    return parse_eforms(path.read_bytes(), source=kwargs.pop("source", "ted"), **kwargs)


def ted(name: str):
    return parse(DATA / "ted" / f"eforms-sdk_{name}.xml")


# --- synthetic notices for the rules the fixtures do not exercise -------------------------------

_NS = (
    'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2" '
    'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
    'xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2" '
    'xmlns:efext="http://data.europa.eu/p27/eforms-ubl-extensions/1" '
    'xmlns:efac="http://data.europa.eu/p27/eforms-ubl-extension-aggregate-components/1" '
    'xmlns:efbc="http://data.europa.eu/p27/eforms-ubl-extension-basic-components/1"'
)


def notice(body: str = "", *, ext: str = "", root: str = "ContractNotice", notice_type: str = "") -> bytes:
    extension = (
        f"<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent><efext:EformsExtension>{ext}"
        "</efext:EformsExtension></ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>"
    )
    type_code = f"<cbc:NoticeTypeCode>{notice_type}</cbc:NoticeTypeCode>" if notice_type else ""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><{root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:{root}-2" '
        f"{_NS}>{extension}<cbc:ID>N-1</cbc:ID>{type_code}{body}</{root}>"
    ).encode()


def lot(lot_id: str, *, amount: str = "", currency: str = "EUR", process: str = "") -> str:
    total = (
        f'<cac:RequestedTenderTotal><cbc:EstimatedOverallContractAmount currencyID="{currency}">{amount}'
        "</cbc:EstimatedOverallContractAmount></cac:RequestedTenderTotal>"
        if amount
        else ""
    )
    return (
        f'<cac:ProcurementProjectLot><cbc:ID schemeName="Lot">{lot_id}</cbc:ID>'
        f"<cac:TenderingProcess>{process}</cac:TenderingProcess>"
        f"<cac:ProcurementProject><cbc:Name>{lot_id} title</cbc:Name>{total}</cac:ProcurementProject>"
        "</cac:ProcurementProjectLot>"
    )


def changes(reason: str, changed: str = "f42be27e-09cf-4f0e-a745-63ec689631e6-02") -> str:
    return (
        f"<efac:Changes><efbc:ChangedNoticeIdentifier>{changed}</efbc:ChangedNoticeIdentifier>"
        f"<efac:ChangeReason><cbc:ReasonCode>{reason}</cbc:ReasonCode></efac:ChangeReason></efac:Changes>"
    )


def lot_results(*codes: str) -> str:
    results = "".join(
        f"<efac:LotResult><cbc:TenderResultCode>{c}</cbc:TenderResultCode></efac:LotResult>" for c in codes
    )
    return f"<efac:NoticeResult>{results}</efac:NoticeResult>"


# --- DÖE: real eForms-DE 2.1 notice (Max-Planck-Institut, tender24 NetServer link) ----------------


def test_doe_eforms_de_max_planck_notice():
    record = parse(MPE, source="doe", url="https://oeffentlichevergabe.de/ui/de/search/details?noticeId=x")

    assert record.source == "doe"
    assert record.source_notice_id == "24d29507-f9dd-4712-aef0-9d864df3af8e"
    assert record.version == "01"
    assert record.kind is NoticeKind.CONTRACT_NOTICE
    assert record.status is TenderStatus.ACTIVE
    assert record.procedure_id == "e2530ce2-555c-4a3f-81f1-0bf04a1ee9a5"
    assert record.referenced_notice_ids == ()
    assert record.title == "MICADO Integral Field Unit II"
    assert record.description == (
        "Gegenstand der Ausschreibung ist eine Integral Field Unit für das MICADO Projekt gemäß den Vergabeunterlagen"
    )
    assert record.buyer_name == "Max-Planck-Institut für extraterrestrische Physik (MPE)"
    # Every organisation's CompanyID is the procedure's internal reference (ProcurementProject/cbc:ID): no buyer id
    assert record.buyer_id == ""
    assert record.procedure_type == "open"
    assert record.cpv_codes == ("38433000",)
    assert record.nuts_codes == ("DE212",)
    assert record.bundesland == "Bayern"
    assert (record.town, record.postal_code, record.country) == ("Garching", "85748", "DEU")
    assert record.estimated_value is None and record.currency == ""  # the notice states no value
    assert record.published_at == datetime(2026, 9, 14, 10, 53, 9, tzinfo=CEST)
    assert record.submission_deadline == datetime(2026, 10, 20, 12, 0, tzinfo=CEST)
    assert record.submission_deadline.utcoffset() == timedelta(hours=2)
    assert record.submission_deadline.astimezone(BERLIN).hour == 12
    assert record.questions_deadline is None
    assert record.lots == (
        Lot(
            "LOT-0000",
            "MICADO Integral Field Unit II",
            ("38433000",),
            None,
            submission_deadline=datetime(2026, 10, 20, 12, 0, tzinfo=CEST),
            town="Garching",
            postal_code="85748",
            nuts_codes=("DE212",),
        ),
    )
    assert record.documents_url == (
        "https://www.tender24.de/NetServer/TenderingProcedureDetails"
        "?function=_Details&TenderOID=54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"
    )
    assert record.portal_references == ("netserver:54321-Tender-1a09ee5f4b7-72f9ab694e623ec2",)
    assert record.url == "https://oeffentlichevergabe.de/ui/de/search/details?noticeId=x"
    assert record.suppliers == ()
    assert record.payload == {
        "format": "eforms",
        "root": "ContractNotice",
        "customization": "eforms-de-2.1",
        "profile": "eforms-sdk-1.13",
        "notice_type": "cn-standard",
        "subtype": "16",
        "language": "DEU",
    }


def test_doe_legacy_prefixed_notice_is_read_by_namespace_not_prefix():
    assert LEGACY.read_bytes().startswith(b"<ns8:ContractNotice ")
    record = parse(LEGACY, source="doe")

    assert record.source_notice_id == "17750180"
    assert record.version == "01"  # cbc:VersionID is "1"
    assert record.procedure_id is None  # <ns3:ContractFolderID/> is empty
    assert record.kind is NoticeKind.CONTRACT_NOTICE
    assert record.title == "Enterprise Architecture Management"
    assert record.description == "Enterprise Architecture Management"
    assert record.buyer_name == "Stiftung Humboldt Forum im Berliner Schloss"  # inline party, no efac:Organizations
    assert record.buyer_id == ""
    assert record.procedure_type == "open"
    assert record.cpv_codes == ("72266000", "72227000", "72000000")  # check digits dropped
    assert record.nuts_codes == ("DE3",)
    assert record.bundesland == "Berlin"
    assert (record.town, record.postal_code, record.country) == ("Berlin", "10178", "DEU")  # CityName "10178 Berlin"
    assert record.submission_deadline == datetime(2022, 5, 16, 12, 0, tzinfo=CEST)
    assert record.published_at == datetime(2022, 4, 16, 0, 0, tzinfo=CEST)  # only RequestedPublicationDate exists
    assert record.documents_url == "https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5"
    assert record.portal_references == ("cosinex:CXP4Y9PRGS5",)
    assert [lot.lot_id for lot in record.lots] == ["LOT-0000"]
    assert record.lots[0].cpv_codes == ("72266000", "72227000", "72000000")
    assert record.payload["customization"] == "eforms-sdk-0.1"
    assert record.payload["subtype"] == ""


# --- TED / eForms SDK examples ------------------------------------------------------------------


def test_cn_24_minimal():
    record = ted("cn_24_minimal")

    assert record.source_notice_id == "f42be27e-09cf-4f0e-a745-63ec689631e6"
    assert record.version == "01"
    assert record.kind is NoticeKind.CONTRACT_NOTICE
    assert record.procedure_id == "4805c409-5939-4be9-8abd-837f7a5fee23"
    assert (
        record.title == "Provision of IT Services Related to OP IT Systems (EUR-Lex, N-Lex, Search Layer, and Others)"
    )
    assert record.description.startswith("Provision of IT services related to the information systems")
    assert record.buyer_name == "Publications Office of the European Union"
    assert record.buyer_id == "EU-PO"
    assert record.procedure_type == "open"
    assert record.cpv_codes == ("72230000",)
    assert record.nuts_codes == ("FRD22",)
    assert record.bundesland == ""
    assert (record.town, record.postal_code, record.country) == ("", "", "FRA")  # buyer's Luxembourg address not used
    assert record.published_at == datetime(2019, 11, 21, 0, 0, tzinfo=CET)
    assert record.submission_deadline == datetime(2020, 2, 4, 10, 0, tzinfo=CEST)
    assert record.documents_url == "https://etendering.ted.europa.eu/cft/cft-display.html?cftId=5629"
    assert record.portal_references == ()
    assert record.estimated_value is None
    assert [lot.lot_id for lot in record.lots] == ["LOT-0000"]


def test_cn_24_open():
    record = ted("cn_24_open")

    assert record.source_notice_id == "c4c415ee-ac08-4465-8fa6-57568cf69462"
    assert record.title == (
        "Term Contract for a Planned Programme of In-service Inspection and Testing of Electrical Equipment"
    )
    assert record.buyer_name == "Renfrewshire Council"
    assert record.buyer_id == "not available"  # verbatim placeholder of the source
    assert record.cpv_codes == ("71630000", "71314100", "50300000", "31600000")
    assert (record.estimated_value, record.currency) == (Decimal("500000"), "EUR")
    assert record.nuts_codes == () and record.country == "GBR"
    assert record.published_at == datetime(2020, 2, 28, 12, 32, 13, tzinfo=CET)
    assert record.submission_deadline == datetime(2020, 4, 3, 12, 0, tzinfo=CET)
    assert record.documents_url == "https://www.publictendersscotland.publiccontractsscotland.gov.uk"
    assert record.lots == (
        Lot(
            "LOT-0000",
            "Term Contract for a Planned Programme of In-service Inspection and Testing of Electrical Equipment",
            ("71630000", "71314100", "50300000", "31600000"),
            None,
            submission_deadline=datetime(2020, 4, 3, 12, 0, tzinfo=CET),
        ),
    )


def test_cn_24_maximal():
    record = ted("cn_24_maximal")
    DEADLINE = datetime(2023, 5, 22, 20, 59, 32, tzinfo=CET)  # noqa: N806 - the lots' Teilnahmefrist

    assert record.source_notice_id == "14549263-b47b-4e59-96a1-2d0d13e19343"
    assert record.version == "03"
    # The SDK examples' procedure id, which the TED XML Data Converter writes into every notice it converts:
    # no procedure of its own (tests/data/audit2/AUDIT.md).
    assert record.procedure_id is None
    assert record.title == "Procurement Title ---"
    assert record.description == "Description ---"
    assert record.buyer_name == "Financial Adinistration for ..."  # sic
    assert record.buyer_id == "998298"
    assert record.procedure_type == "negotiated_with_call"
    assert record.cpv_codes == ("79710000", "79720000", "75121000")
    assert (record.estimated_value, record.currency) == (Decimal("9999999.99"), "EUR")
    assert record.nuts_codes == ("LU000",)
    assert (record.town, record.postal_code, record.country) == ("Luxembourg", "", "LUX")  # "1234" is no PLZ
    # Notice-level PIN reference, "-01" version suffix after a UUID stripped.
    assert record.referenced_notice_ids == ("9c0fd704-64d3-4294-a3b6-6df45911ab9f",)
    # neg-w-call has no tender deadline: the participation request deadline is used.
    assert record.submission_deadline == datetime(2023, 5, 22, 20, 59, 32, tzinfo=CET)
    assert record.questions_deadline == datetime(2023, 5, 20, 20, 59, 32, tzinfo=CET)
    assert record.published_at == datetime(2023, 3, 23, 20, 59, 32, tzinfo=CET)
    # The lots group GLO-0001 is not a lot.
    assert record.lots == (
        Lot("LOT-0001", "Title ---", ("75121000",), Decimal("9999999.99"), DEADLINE, "Luxembourg", "", ("LU000",)),
        Lot("LOT-0002", "Title Lot 2---", ("75121000",), Decimal("9999999.99"), DEADLINE, "Luxembourg", "", ("LU000",)),
    )
    assert record.documents_url == "http://nonrestricteddocuments.com"
    assert record.portal_references == ()


def test_can_24_minimal_award():
    record = ted("can_24_minimal")

    assert record.source_notice_id == "65667997-031a-4198-bd25-7225449ef479"
    assert record.kind is NoticeKind.AWARD
    assert record.status is TenderStatus.AWARDED
    assert record.suppliers == ("Espaces Verts Lemire",)
    assert record.buyer_name == "Rouen Habitat"
    assert record.buyer_id == "123 456 789"
    assert record.title == "Service d'entretien de remise en état et de nettoyage des espaces verts"
    assert record.cpv_codes == ("77310000",)
    assert record.procedure_type == "open"
    assert record.submission_deadline is None
    assert record.published_at == datetime(2019, 10, 23, 0, 0, tzinfo=CET)
    assert record.lots == (Lot("LOT-0000", "Agence centre", ("77310000",), None, nuts_codes=("FRD22",)),)
    assert record.payload["notice_type"] == "can-standard"
    assert record.payload["subtype"] == "29"


def test_change_cn_24_void_is_a_cancellation_of_cn_24_minimal():
    record = ted("change-cn_24_void")
    original = ted("cn_24_minimal")

    assert record.source_notice_id == "1d192942-a4a3-4833-8775-ca38f7ec09ca"
    assert record.kind is NoticeKind.CANCELLATION
    assert record.status is TenderStatus.CANCELLED
    assert record.referenced_notice_ids == (original.source_notice_id,)  # "…631e6-01" without its version
    assert record.procedure_id == original.procedure_id
    assert record.payload["change_reasons"] == ["cancel"]
    assert record.published_at == datetime(2019, 12, 21, 12, 0, tzinfo=CET)
    assert record.title == original.title


def test_pin_only():
    record = ted("pin-only_24")

    assert record.source_notice_id == "f252f386-55ac-4fa8-9be4-9f950b9904c8"
    assert record.kind is NoticeKind.PRIOR_INFORMATION
    assert record.procedure_id is None
    assert record.title == "ProPrName1234"
    assert record.description == "PrPrDescblabla"
    assert record.buyer_name == "PartyName1234"
    assert record.buyer_id == "PartyLegalEntityCID1234"
    assert record.procedure_type == ""
    assert record.cpv_codes == ("72000000", "50000000")  # the part's CPV counts
    assert (record.estimated_value, record.currency) == (Decimal("100000"), "EUR")
    assert record.nuts_codes == ("DE123",)
    assert record.bundesland == "Baden-Württemberg"
    assert (record.town, record.postal_code, record.country) == ("RealizedLocCity1234", "", "DEU")
    assert record.lots == ()  # PAR-0000 is a PIN part, not a lot
    assert record.submission_deadline is None
    assert record.published_at == datetime(2020, 5, 5, 12, 0, tzinfo=CET)


def test_e3_national_contract_notice():
    record = ted("E3_minimal")

    assert record.source_notice_id == "a03fdc6d-9924-4e99-93cf-39b925bb4826"
    assert record.kind is NoticeKind.CONTRACT_NOTICE
    assert record.payload["subtype"] == "E3"
    assert record.title == "Provision of IT Services related to ..."
    assert record.buyer_name == "Buyer Org"
    assert record.cpv_codes == ("72230000",)
    assert record.nuts_codes == ("LU000",) and record.country == "LUX"
    assert record.submission_deadline is None
    assert record.portal_references == ()
    assert [lot.lot_id for lot in record.lots] == ["LOT-0001"]


def test_e4_national_award_notice():
    record = ted("E4_minimal")

    assert record.source_notice_id == "d1106611-6941-48f4-9029-8b11062939af"
    assert record.kind is NoticeKind.AWARD
    assert record.status is TenderStatus.AWARDED
    assert record.suppliers == ("Société Espaces Verts",)
    assert record.payload["subtype"] == "E4"
    assert record.procedure_type == ""  # E4 has no cbc:ProcedureCode
    assert record.lots == (Lot("LOT-0001", "Agence centre", ("77310000",), None, nuts_codes=("FRD22",)),)


@pytest.mark.parametrize("path", sorted([*DATA.glob("ted/eforms-sdk_*.xml"), *DATA.glob("doe/eforms*.xml")]))
def test_every_fixture_parses_to_aware_datetimes(path):
    record = parse(path)
    for value in (record.published_at, record.submission_deadline, record.questions_deadline):
        assert value is None or value.tzinfo is not None
    assert record.source_notice_id and record.version.isdigit() and len(record.version) == 2
    assert "<" not in repr(record.payload)  # no XML in the payload


# --- rules on synthetic notices -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "kind"),
    [("cancel", NoticeKind.CANCELLATION), ("cancel-intent", NoticeKind.CHANGE), ("update-add", NoticeKind.CHANGE)],
)
def test_change_reason_decides_between_change_and_cancellation(reason, kind):
    record = parse_eforms(notice(ext=changes(reason), notice_type="cn-standard"), source="ted")

    assert record.kind is kind
    assert record.status is (TenderStatus.CANCELLED if kind is NoticeKind.CANCELLATION else TenderStatus.ACTIVE)
    assert record.referenced_notice_ids == ("f42be27e-09cf-4f0e-a745-63ec689631e6",)


def test_referenced_ids_keep_non_uuid_suffixes():
    body = (
        "<cac:TenderingProcess><cac:NoticeDocumentReference><cbc:ID>123456-2023</cbc:ID>"
        "</cac:NoticeDocumentReference></cac:TenderingProcess>"
    )
    record = parse_eforms(notice(body, ext=changes("update-add", changed="17750180-1")), source="doe")

    assert record.referenced_notice_ids == ("17750180-1", "123456-2023")


@pytest.mark.parametrize(
    ("codes", "status", "suppliers"),
    [
        (("clos-nw",), TenderStatus.CANCELLED, ()),
        (("clos-nw", "clos-nw"), TenderStatus.CANCELLED, ()),
        (("open-nw",), TenderStatus.ACTIVE, ()),
        (("clos-nw", "open-nw"), TenderStatus.ACTIVE, ()),
        (("clos-nw", "selec-w"), TenderStatus.AWARDED, ()),
    ],
)
def test_award_status_from_lot_results(codes, status, suppliers):
    record = parse_eforms(notice(ext=lot_results(*codes), root="ContractAwardNotice"), source="ted")

    assert record.kind is NoticeKind.AWARD
    assert (record.status, record.suppliers) == (status, suppliers)


def test_winners_are_the_tenders_of_settled_contracts():
    organisations = "".join(
        f"<efac:Organization><efac:Company><cac:PartyIdentification><cbc:ID>{org}</cbc:ID></cac:PartyIdentification>"
        f"<cac:PartyName><cbc:Name>{name}</cbc:Name></cac:PartyName></efac:Company></efac:Organization>"
        for org, name in (("ORG-1", "Winner GmbH"), ("ORG-2", "Loser AG"))
    )
    result = (
        "<efac:NoticeResult><efac:LotResult><cbc:TenderResultCode>selec-w</cbc:TenderResultCode>"
        "<efac:LotTender><cbc:ID>TEN-1</cbc:ID></efac:LotTender><efac:LotTender><cbc:ID>TEN-2</cbc:ID></efac:LotTender>"
        "<efac:SettledContract><cbc:ID>CON-1</cbc:ID></efac:SettledContract></efac:LotResult>"
        "<efac:LotTender><cbc:ID>TEN-1</cbc:ID><efac:TenderingParty><cbc:ID>TPA-1</cbc:ID></efac:TenderingParty>"
        "</efac:LotTender>"
        "<efac:LotTender><cbc:ID>TEN-2</cbc:ID><efac:TenderingParty><cbc:ID>TPA-2</cbc:ID></efac:TenderingParty>"
        "</efac:LotTender>"
        "<efac:SettledContract><cbc:ID>CON-1</cbc:ID><efac:LotTender><cbc:ID>TEN-1</cbc:ID></efac:LotTender>"
        "</efac:SettledContract>"
        "<efac:TenderingParty><cbc:ID>TPA-1</cbc:ID><efac:Tenderer><cbc:ID>ORG-1</cbc:ID></efac:Tenderer>"
        "</efac:TenderingParty>"
        "<efac:TenderingParty><cbc:ID>TPA-2</cbc:ID><efac:Tenderer><cbc:ID>ORG-2</cbc:ID></efac:Tenderer>"
        "</efac:TenderingParty></efac:NoticeResult>"
    )
    ext = f"{result}<efac:Organizations>{organisations}</efac:Organizations>"
    record = parse_eforms(notice(ext=ext, root="ContractAwardNotice", notice_type="can-standard"), source="ted")

    assert record.suppliers == ("Winner GmbH",)


@pytest.mark.parametrize(
    ("root", "notice_type", "kind"),
    [
        ("ContractAwardNotice", "veat", NoticeKind.AWARD),
        ("ContractAwardNotice", "can-modif", NoticeKind.CHANGE),  # a contract modification, not an award
        ("PriorInformationNotice", "pin-cfc-standard", NoticeKind.PRIOR_INFORMATION),
        ("ContractNotice", "cn-social", NoticeKind.CONTRACT_NOTICE),
        ("PriorInformationNotice", "", NoticeKind.PRIOR_INFORMATION),
        ("ContractAwardNotice", "", NoticeKind.AWARD),
    ],
)
def test_kind_from_notice_type_then_root(root, notice_type, kind):
    assert parse_eforms(notice(root=root, notice_type=notice_type), source="ted").kind is kind


def test_buyer_address_never_becomes_place_of_performance_but_gives_the_bundesland():
    ext = (
        "<efac:Organizations><efac:Organization><efac:Company>"
        "<cac:PartyIdentification><cbc:ID>ORG-1</cbc:ID></cac:PartyIdentification>"
        '<cac:PartyName><cbc:Name languageID="ENG">City of Munich</cbc:Name>'
        '<cbc:Name languageID="DEU">Landeshauptstadt München</cbc:Name></cac:PartyName>'
        "<cac:PostalAddress><cbc:CityName>München</cbc:CityName><cbc:PostalZone>80331</cbc:PostalZone>"
        "<cbc:CountrySubentityCode>DE212</cbc:CountrySubentityCode></cac:PostalAddress>"
        "</efac:Company></efac:Organization></efac:Organizations>"
    )
    body = "<cac:ContractingParty><cac:Party><cac:PartyIdentification><cbc:ID>ORG-1</cbc:ID></cac:PartyIdentification>"
    body += "</cac:Party></cac:ContractingParty>"
    record = parse_eforms(notice(body, ext=ext), source="doe")

    assert record.buyer_name == "Landeshauptstadt München"  # German preferred over document order
    assert (record.town, record.postal_code, record.nuts_codes, record.country) == ("", "", (), "")
    assert record.bundesland == "Bayern"


def test_lot_values_are_summed_when_the_procedure_has_none():
    record = parse_eforms(notice(lot("LOT-0001", amount="100") + lot("LOT-0002", amount="50.50")), source="ted")

    assert (record.estimated_value, record.currency) == (Decimal("150.50"), "EUR")
    assert [lot.estimated_value for lot in record.lots] == [Decimal("100"), Decimal("50.50")]


def test_lot_values_in_different_currencies_are_not_summed():
    body = lot("LOT-0001", amount="100") + lot("LOT-0002", amount="50", currency="PLN")

    record = parse_eforms(notice(body), source="ted")

    assert (record.estimated_value, record.currency) == (None, "")


def test_earliest_lot_deadline_wins_and_a_date_without_time_means_end_of_day():
    late = "<cac:TenderSubmissionDeadlinePeriod><cbc:EndDate>2026-11-02+01:00</cbc:EndDate>"
    late += "<cbc:EndTime>10:00:00+01:00</cbc:EndTime></cac:TenderSubmissionDeadlinePeriod>"
    early = "<cac:TenderSubmissionDeadlinePeriod><cbc:EndDate>2026-10-30+01:00</cbc:EndDate>"
    early += "</cac:TenderSubmissionDeadlinePeriod>"

    record = parse_eforms(notice(lot("LOT-0001", process=late) + lot("LOT-0002", process=early)), source="ted")

    assert record.submission_deadline == datetime(2026, 10, 30, 23, 59, tzinfo=CET)


def test_a_notice_with_only_an_id_parses_with_empty_fields():
    record = parse_eforms(notice(), source="ted")

    assert record.source_notice_id == "N-1"
    assert (record.title, record.buyer_name, record.cpv_codes, record.lots) == ("", "", (), ())
    assert record.published_at is None and record.submission_deadline is None
    assert record.version == "01" and record.procedure_id is None


def test_url_argument_is_scanned_for_portal_ids():
    record = parse_eforms(notice(), source="dtvp", url="https://www.dtvp.de/Satellite/notice/CXS7YY6YTM1SY43C")

    assert record.portal_references == ("cosinex:CXS7YY6YTM1SY43C",)


def test_links_in_free_text_are_found():
    body = (
        "<cac:ProcurementProject><cbc:Description>Unterlagen: https://vergabe.muenchen.de/NetServer/"
        "PublicationControllerServlet?function=Detail&amp;TOID=9876-NetTender-abc123&amp;Category=x.</cbc:Description>"
        "</cac:ProcurementProject>"
    )
    assert parse_eforms(notice(body), source="doe").portal_references == ("netserver:9876-NetTender-abc123",)


# --- hostile input ----------------------------------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE ContractNotice [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<ContractNotice xmlns="urn:oasis:names:specification:ubl:schema:xsd:ContractNotice-2"
 xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:ID>&lol9;</cbc:ID></ContractNotice>
"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE ContractNotice [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<ContractNotice xmlns="urn:oasis:names:specification:ubl:schema:xsd:ContractNotice-2"
 xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:ID>&xxe;</cbc:ID></ContractNotice>
"""


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"  \n\t ", "empty"),
        (b"<!DOCTYPE html><html><head><title>DTVP</title></head><body><p>Wartung<br></body></html>", "XML"),
        (b"<html><body><p>Wartungsarbeiten</p></body></html>", "unknown root"),
        (b'{"releases": []}', "not well-formed"),
        (BILLION_LAUGHS, "DOCTYPE|entity"),
        (EXTERNAL_ENTITY, "DOCTYPE"),
        (MPE.read_bytes()[:5000], "not well-formed"),
        (b"<ContractNotice><ID>1</ID></ContractNotice>", "unknown root"),  # right name, no UBL namespace
        (notice().replace(b"<cbc:ID>N-1</cbc:ID>", b""), "cbc:ID"),
        (notice().replace(b"<cbc:ID>N-1</cbc:ID>", b"<cbc:ID>  </cbc:ID>"), "cbc:ID"),
    ],
    ids=[
        "empty",
        "blank",
        "html",
        "xhtml",
        "json",
        "billion-laughs",
        "xxe",
        "truncated",
        "no-namespace",
        "no-id",
        "blank-id",
    ],
)
def test_unusable_input_raises_eforms_parse_error(data, message):
    with pytest.raises(EformsParseError, match=message):
        parse_eforms(data, source="ted")


def test_billion_laughs_is_refused_quickly_without_expansion():
    started = clock.perf_counter()
    with pytest.raises(EformsParseError):
        parse_eforms(BILLION_LAUGHS, source="ted")
    assert clock.perf_counter() - started < 1.0


def test_eforms_parse_error_is_a_value_error():
    assert issubclass(EformsParseError, ValueError)


def test_str_input_is_a_programming_error():
    with pytest.raises(TypeError):
        parse_eforms(MPE.read_text(encoding="utf-8"), source="doe")  # type: ignore[arg-type]


def test_encoding_comes_from_the_xml_prolog():
    latin1 = notice(
        '<cac:ProcurementProject><cbc:Name languageID="DEU">Straßenbau Süd</cbc:Name></cac:ProcurementProject>'
    )
    latin1 = latin1.decode().replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').encode("latin-1")

    assert parse_eforms(latin1, source="ted").title == "Straßenbau Süd"


def test_teds_placeholder_award_date_is_no_date():
    # The eForms SDK's own example carries TED's dummy 2000-01-01 in the root TenderResult/AwardDate.
    raw = (DATA / "ted" / "eforms-sdk_E4_minimal.xml").read_bytes()
    assert b"<cbc:AwardDate>2000-01-01Z</cbc:AwardDate>" in raw
    record = parse_eforms(raw, source="ted")
    assert record.awards and all(award.date is None for award in record.awards)
