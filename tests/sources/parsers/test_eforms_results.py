"""Award results and the notice fields of issue 14, from eForms: real notices where they show it,
else minimal notices built from the eForms SDK structure (marked CONSTRUCTED)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

from kernel.records import Award, AwardStatus, Deadline, NoticeKind
from kernel.vocabulary.statuses import TenderStatus
from sources.parsers.eforms import parse_eforms

DATA = Path(__file__).resolve().parents[2] / "data"
MPE = DATA / "doe" / "eforms-de-2.1_cn-standard_16_24d29507-f9dd-4712-aef0-9d864df3af8e-01.xml"
CEST = timezone(timedelta(hours=2))
_NS = (
    'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2" '
    'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
    'xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2" '
    'xmlns:efext="http://data.europa.eu/p27/eforms-ubl-extensions/1" '
    'xmlns:efac="http://data.europa.eu/p27/eforms-ubl-extension-aggregate-components/1" '
    'xmlns:efbc="http://data.europa.eu/p27/eforms-ubl-extension-basic-components/1"'
)


def ted(name: str):
    return parse_eforms((DATA / "ted" / f"eforms-sdk_{name}.xml").read_bytes(), source="ted")


def notice(body: str, *, root: str = "ContractAwardNotice", extension: str = "") -> bytes:
    """CONSTRUCTED: a minimal notice in the eForms SDK structure around ``body``."""
    ext = (
        f"<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent><efext:EformsExtension>{extension}"
        "</efext:EformsExtension></ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>"
    )
    return (
        f'<{root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:{root}-2" {_NS}>{ext}'
        f"<cbc:ID>11111111-2222-3333-4444-555555555555</cbc:ID>{body}</{root}>"
    ).encode()


def test_can_24_minimal_award_per_lot():
    record = ted("can_24_minimal")
    assert record.awards == (
        Award(
            lot_id="LOT-0000",
            status=AwardStatus.AWARDED,
            supplier_name="Espaces Verts Lemire",
            supplier_id="326 912 557",
            supplier_town="Le Grand-Quevilly",
            supplier_country="FRA",
            value=Decimal("95414"),
            currency="EUR",
            tenders_received=3,
            date=date(2019, 9, 3),  # the contract's conclusion date, not the placeholder AwardDate 2000-01-01
        ),
    )
    assert record.suppliers == ("Espaces Verts Lemire",)
    assert record.status is TenderStatus.AWARDED
    assert (record.legal_basis, record.above_eu_threshold) == ("eu-2014-24", True)
    assert record.contract_nature == "services" and record.main_cpv == "77310000"
    assert record.framework_agreement is False
    assert (record.buyer_email, record.buyer_phone, record.buyer_town) == (
        "contact@rouenhabitat.fr",
        "+33 235156161",
        "Rouen Cedex 1",
    )


def test_real_doe_notice_fields():
    record = parse_eforms(MPE.read_bytes(), source="doe")
    assert (record.legal_basis, record.above_eu_threshold) == ("vgv", True)  # eForms-DE "vgv"
    assert record.contract_nature == "supplies"
    assert record.main_cpv == "38433000"
    assert (record.buyer_street, record.buyer_postal_code, record.buyer_town, record.buyer_country) == (
        "Giessenbachstrasse",
        "85748",
        "Garching",
        "DEU",
    )
    assert (record.buyer_email, record.buyer_phone) == ("sabrina.rosenberger@mpe.mpg.de", "+49 89-30000-3381")
    assert record.deadlines == (Deadline("angebotsfrist", datetime(2026, 10, 20, 12, 0, tzinfo=CEST), "LOT-0000"),)
    assert (record.contract_start, record.contract_end) == (date(2026, 12, 1), date(2027, 1, 1))
    assert record.framework_agreement is False
    assert record.lots[0].town == "Garching" and record.lots[0].postal_code == "85748"
    assert record.awards == ()


def test_framework_and_duration_from_sdk_notice():
    record = ted("cn_24_minimal")
    assert record.contract_duration == "P48M"
    assert record.framework_agreement is True


def test_participation_deadline_keeps_its_kind():
    record = ted("cn_24_maximal")
    kinds = {(d.kind, d.lot_id) for d in record.deadlines}
    assert kinds == {
        ("teilnahmefrist", "LOT-0001"),
        ("fragenfrist", "LOT-0001"),
        ("teilnahmefrist", "LOT-0002"),
        ("fragenfrist", "LOT-0002"),
    }


_RESULT = """
<efac:NoticeResult>
  <efac:LotResult>
    <cbc:ID schemeName="result">RES-0001</cbc:ID>{code}
    <efac:ReceivedSubmissionsStatistics><efbc:StatisticsCode>tenders</efbc:StatisticsCode>
      <efbc:StatisticsNumeric>4</efbc:StatisticsNumeric></efac:ReceivedSubmissionsStatistics>
    <efac:SettledContract><cbc:ID>CON-0001</cbc:ID></efac:SettledContract>
    <efac:TenderLot><cbc:ID schemeName="Lot">LOT-0001</cbc:ID></efac:TenderLot>
  </efac:LotResult>
  <efac:LotResult>
    <cbc:ID schemeName="result">RES-0002</cbc:ID>
    <cbc:TenderResultCode listName="winner-selection-status">clos-nw</cbc:TenderResultCode>
    <efac:TenderLot><cbc:ID schemeName="Lot">LOT-0002</cbc:ID></efac:TenderLot>
  </efac:LotResult>
  <efac:LotTender>
    <cbc:ID>TEN-0001</cbc:ID>
    <cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">123456.78</cbc:PayableAmount></cac:LegalMonetaryTotal>
    <efac:TenderingParty><cbc:ID>TPA-0001</cbc:ID></efac:TenderingParty>
    <efac:TenderLot><cbc:ID>LOT-0001</cbc:ID></efac:TenderLot>
  </efac:LotTender>
  <efac:SettledContract>
    <cbc:ID>CON-0001</cbc:ID><cbc:IssueDate>2026-03-02+01:00</cbc:IssueDate>
    <efac:LotTender><cbc:ID>TEN-0001</cbc:ID></efac:LotTender>
  </efac:SettledContract>
  <efac:TenderingParty>
    <cbc:ID>TPA-0001</cbc:ID>
    <efac:Tenderer><cbc:ID>ORG-0002</cbc:ID></efac:Tenderer>
    <efac:Tenderer><cbc:ID>ORG-0003</cbc:ID><efbc:GroupLeadIndicator>true</efbc:GroupLeadIndicator></efac:Tenderer>
  </efac:TenderingParty>
</efac:NoticeResult>
<efac:Organizations>
  <efac:Organization><efac:Company>
    <cac:PartyIdentification><cbc:ID>ORG-0002</cbc:ID></cac:PartyIdentification>
    <cac:PartyName><cbc:Name languageID="DEU">Partner Bau GmbH</cbc:Name></cac:PartyName>
  </efac:Company></efac:Organization>
  <efac:Organization><efac:Company>
    <cac:PartyIdentification><cbc:ID>ORG-0003</cbc:ID></cac:PartyIdentification>
    <cac:PartyName><cbc:Name languageID="DEU">Hochbau Müller GmbH</cbc:Name></cac:PartyName>
    <cac:PostalAddress><cbc:CityName>Erfurt</cbc:CityName>
      <cac:Country><cbc:IdentificationCode>DEU</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
    <cac:PartyLegalEntity><cbc:CompanyID>DE123456789</cbc:CompanyID></cac:PartyLegalEntity>
  </efac:Company></efac:Organization>
</efac:Organizations>
"""


def test_winner_of_a_consortium_and_an_unsuccessful_lot():
    code = '<cbc:TenderResultCode listName="winner-selection-status">selec-w</cbc:TenderResultCode>'
    record = parse_eforms(
        notice("<cbc:NoticeTypeCode>can-standard</cbc:NoticeTypeCode>", extension=_RESULT.format(code=code)),
        source="doe",
    )
    assert record.awards == (
        Award(
            lot_id="LOT-0001",
            supplier_name="Hochbau Müller GmbH",  # the consortium's lead
            supplier_id="DE123456789",
            supplier_town="Erfurt",
            supplier_country="DEU",
            value=Decimal("123456.78"),
            currency="EUR",
            tenders_received=4,
            date=date(2026, 3, 2),
        ),
        Award(lot_id="LOT-0002", status=AwardStatus.NOT_AWARDED),
    )
    assert record.suppliers == ("Partner Bau GmbH", "Hochbau Müller GmbH")
    assert record.status is TenderStatus.AWARDED


def test_modification_notice_without_selec_w_keeps_its_winners():
    record = parse_eforms(
        notice("<cbc:NoticeTypeCode>can-modif</cbc:NoticeTypeCode>", extension=_RESULT.format(code="")),
        source="doe",
    )
    assert record.kind is NoticeKind.CHANGE  # subtype 38: a modification, no new award
    assert record.awards[0].supplier_name == "Hochbau Müller GmbH"
    assert record.awards[0].value == Decimal("123456.78")


def test_legacy_tender_result_winning_party():
    body = """
<cbc:CustomizationID>eforms-sdk-0.1</cbc:CustomizationID>
<cbc:NoticeTypeCode>can-standard</cbc:NoticeTypeCode>
<cac:ContractingParty><cac:Party><cac:PartyName><cbc:Name>Gemeinde Musterdorf</cbc:Name></cac:PartyName></cac:Party>
</cac:ContractingParty>
<cac:TenderResult>
  <cbc:AwardDate>2022-05-30+02:00</cbc:AwardDate>
  <cbc:ReceivedTenderQuantity>6</cbc:ReceivedTenderQuantity>
  <cac:AwardedTenderedProject>
    <cbc:ProcurementProjectLotID>LOT-0000</cbc:ProcurementProjectLotID>
    <cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">48000</cbc:PayableAmount></cac:LegalMonetaryTotal>
  </cac:AwardedTenderedProject>
  <cac:WinningParty>
    <cac:PartyName><cbc:Name>Straßenbau Schmidt GmbH</cbc:Name></cac:PartyName>
    <cac:PostalAddress><cbc:CityName>Gotha</cbc:CityName></cac:PostalAddress>
  </cac:WinningParty>
</cac:TenderResult>"""
    record = parse_eforms(notice(body), source="doe")
    assert record.awards == (
        Award(
            lot_id="LOT-0000",
            supplier_name="Straßenbau Schmidt GmbH",
            supplier_town="Gotha",
            value=Decimal("48000"),
            currency="EUR",
            tenders_received=6,
            date=date(2022, 5, 30),
        ),
    )
    assert record.suppliers == ("Straßenbau Schmidt GmbH",)
    assert record.status is TenderStatus.AWARDED


def test_legacy_patterns_contact_block_street_in_town_national_code_publication_number():
    body = """
<cbc:CustomizationID>eforms-sdk-0.1</cbc:CustomizationID>
<cbc:IssueDate>2024-03-01+01:00</cbc:IssueDate>
<cbc:RequestedPublicationDate>2024-03-20+01:00</cbc:RequestedPublicationDate>
<cbc:NoticeTypeCode>can-standard</cbc:NoticeTypeCode>
<cac:ContractingParty><cac:Party><cac:PartyName><cbc:Name>Stadt Musterstadt, Tiefbauamt, Rathausplatz 1,
  99084 Erfurt, Tel.: +49 361 1234, Fax: +49 361 1235, E-Mail: tiefbau@musterstadt.de</cbc:Name></cac:PartyName>
  </cac:Party></cac:ContractingParty>
<cac:TenderingProcess><cbc:ProcedureCode>de-restricted-wo-call</cbc:ProcedureCode>
  <cac:NoticeDocumentReference><cbc:ID schemeName="ojs-notice-id">00615938-2024</cbc:ID></cac:NoticeDocumentReference>
</cac:TenderingProcess>
<cac:ProcurementProject><cbc:Name>Straßenbau</cbc:Name>
  <cac:RealizedLocation><cac:Address><cbc:CityName>99084 Anger 5, Erfurt</cbc:CityName>
    <cbc:CountrySubentityCode>DE212</cbc:CountrySubentityCode></cac:Address></cac:RealizedLocation>
</cac:ProcurementProject>"""
    record = parse_eforms(notice(body), source="doe")
    assert record.buyer_name == "Stadt Musterstadt, Tiefbauamt"
    assert (record.town, record.postal_code) == ("Erfurt", "99084")
    assert record.procedure_type == "limited_tender"
    assert record.referenced_notice_ids == ("615938-2024",)
    # NUTS says Bayern (DE212), the postcode 99084 is Erfurt, Thüringen: the postcode decides.
    assert record.bundesland == "Thüringen"
    # Dispatched 1 March, to be published 20 March: the publication date counts.
    assert record.published_at.date() == date(2024, 3, 20)


def test_place_only_in_free_text_and_abroad():
    body = """<cbc:NoticeTypeCode>cn-standard</cbc:NoticeTypeCode>
<cac:ContractingParty><cac:Party><cac:PartyName><cbc:Name>Landkreis Harz</cbc:Name></cac:PartyName>
  <cac:PostalAddress><cbc:CountrySubentityCode>DEE09</cbc:CountrySubentityCode></cac:PostalAddress></cac:Party>
</cac:ContractingParty>
<cac:ProcurementProject><cbc:Name>Mähwerk</cbc:Name>
  <cac:RealizedLocation><cbc:Description languageID="DEU">Bauhof, Sternstraße 11, 38820 Halberstadt</cbc:Description>
  </cac:RealizedLocation></cac:ProcurementProject>"""
    record = parse_eforms(notice(body, root="ContractNotice"), source="doe")
    assert (record.town, record.postal_code, record.bundesland) == ("Halberstadt", "38820", "Sachsen-Anhalt")

    abroad = body.replace(
        '<cbc:Description languageID="DEU">Bauhof, Sternstraße 11, 38820 Halberstadt</cbc:Description>',
        "<cac:Address><cbc:CityName>Wien</cbc:CityName><cbc:CountrySubentityCode>AT130</cbc:CountrySubentityCode>"
        "<cac:Country><cbc:IdentificationCode>AUT</cbc:IdentificationCode></cac:Country></cac:Address>",
    )
    record = parse_eforms(notice(abroad, root="ContractNotice"), source="doe")
    assert (record.town, record.country) == ("Wien", "AUT")
    assert record.bundesland == ""  # not the buyer's Sachsen-Anhalt


def test_own_publication_number_is_read_without_leading_zeros():
    extension = (
        '<efac:Publication><efbc:NoticePublicationID schemeName="ojs-notice-id">00615938-2024'
        "</efbc:NoticePublicationID><efbc:PublicationDate>2024-10-11+02:00</efbc:PublicationDate></efac:Publication>"
    )
    record = parse_eforms(
        notice("<cbc:NoticeTypeCode>cn-standard</cbc:NoticeTypeCode>", root="ContractNotice", extension=extension),
        source="ted",
    )
    assert record.publication_number == "615938-2024"


# --- per lot: winners are the signed tenders of that lot (tests/data/ted/awards/README.md) -------

AWARDS = DATA / "ted" / "awards"


def awards_of(name: str):
    return parse_eforms((AWARDS / name).read_bytes(), source="ted")


def won(lot_id: str, name: str, supplier_id: str, town: str, country: str, value: str | None, **rest) -> Award:
    return Award(
        lot_id=lot_id,
        supplier_name=name,
        supplier_id=supplier_id,
        supplier_town=town,
        supplier_country=country,
        value=Decimal(value) if value is not None else None,
        **rest,
    )


def test_losers_listed_in_a_lot_result_never_win_and_a_contract_counts_for_its_own_lots():
    """TED 191534-2024 (real): every lot result lists the winning and the losing tender, one contract
    names four lots' tenders plus the lot-2 winner, the results of lots 3 and 5 list each other's tenders.
    Exactly one row per lot (22 before), each with that lot's winner, tender value and tender count."""
    record = awards_of("ted_2024-OJS065-00191534_can-standard_5-lots_losers-listed.xml")
    belgo = ("Belgo Facility Services", "0832584553", "Neder-Over-Heembeek", "BEL")
    signed = {"currency": "EUR", "date": date(2024, 3, 4)}
    assert record.awards == (
        won("LOT-0001", *belgo, "8819.09", tenders_received=6, **signed),
        won("LOT-0002", "M&G CLEANING", "0879639451", "Zaventem", "BEL", "13768.11", tenders_received=5, **signed),
        won("LOT-0003", *belgo, "11016.45", tenders_received=4, **signed),
        won("LOT-0004", *belgo, "11807.88", tenders_received=4, **signed),
        won("LOT-0005", *belgo, "9317.85", tenders_received=5, **signed),
    )
    assert record.suppliers == ("Belgo Facility Services", "M&G CLEANING")
    assert record.status is TenderStatus.AWARDED


def test_one_contract_over_six_lots_gives_one_row_per_lot_with_that_lots_tender_value():
    """TED 215550-2024 (real): one contract names the six winning tenders, one per lot (36 rows before)."""
    record = awards_of("ted_2024-OJS072-00215550_can-standard_6-lots_one-contract.xml")
    values = ("5797.2", "2144443.98", "4165928", "4993456", "172447.8", "3061342.5")
    assert record.awards == tuple(
        won(
            f"LOT-000{n}",
            "Astrazeneca Kft.",
            "PL5263446902",
            "Budapest",
            "HUN",
            value,
            currency="PLN",
            date=date(2024, 1, 30),
        )
        for n, value in enumerate(values, start=1)
    )
    assert record.suppliers == ("Astrazeneca Kft.",)


def test_two_contracts_over_five_lots_and_a_lot_closed_without_winner():
    """TED 611835-2024 (real): CON-0001 (DVIT) lots 1, 4, 6; CON-0002 (3D-ICT) lots 2, 3; lot 5 clos-nw."""
    record = awards_of("ted_2024-OJS198-00611835_can-standard_6-lots_two-contracts.xml")
    dvit = ("DVIT", "0461145522", "9420 - Erpe-Mere", "BEL")
    ict = ("3D-ICT", "0898973234", "2000 - Antwerpen", "BEL")
    signed = {"currency": "EUR", "date": date(2024, 10, 7)}
    assert record.awards == (
        won("LOT-0001", *dvit, "4535.88", tenders_received=3, **signed),
        won("LOT-0002", *ict, "447.97", tenders_received=4, **signed),
        won("LOT-0003", *ict, "1209", tenders_received=3, **signed),
        won("LOT-0004", *dvit, "714", tenders_received=2, **signed),
        Award(lot_id="LOT-0005", status=AwardStatus.NOT_AWARDED, tenders_received=2),
        won("LOT-0006", *dvit, "767.3", tenders_received=3, **signed),
    )


def test_several_winners_of_one_lot_each_get_their_row():
    """eForms SDK example can_23_contracts (based on TED 125030-2020): one lot, two contracts, two winners."""
    record = awards_of("eforms-sdk_can_23_contracts.xml")
    on = {"currency": "GBP", "tenders_received": 5, "date": date(2020, 2, 19)}
    assert record.awards == (
        won("LOT-0000", "Jacobs", "222 222 222", "Birkenhead", "GBR", "2000000", **on),
        won("LOT-0000", "Phoenix commercial collections", "333 333 333", "Bolton", "GBR", "1000000", **on),
    )


def test_veat_without_lot_result_reads_the_winner_from_the_contract():
    """eForms SDK example veat_23 (subtype 28, based on TED 20684-2023): no LotResult at all; the decision
    date of the contract, not the placeholder 2000-01-01 of the root TenderResult."""
    record = awards_of("eforms-sdk_veat_23.xml")
    assert record.awards == (
        won("LOT-0000", "Stadtwerke Neckargemünd GmbH", "", "Neckargemünd", "DEU", None, date=date(2022, 10, 25)),
    )
    assert record.status is TenderStatus.AWARDED


def test_veat_lot_result_without_outcome_code_keeps_the_group_lead():
    """eForms SDK example veat_24 (subtype 25, based on TED 192449-2020)."""
    record = awards_of("eforms-sdk_veat_24.xml")
    assert record.awards == (won("LOT-0000", "Invacare Ltd", "", "Bridgend", "GBR", None, date=date(2020, 4, 15)),)
    assert record.suppliers == ("Direct Healthcare Services Ltd", "Harvest Healthcare Ltd", "Invacare Ltd")


def test_contract_covering_a_lot_its_tender_was_not_filed_under():
    """eForms SDK example veat_81 (subtype 27): both lot results name CON-0001, its only tender names LOT-0001."""
    record = awards_of("eforms-sdk_veat_81.xml")
    assert record.awards == (
        won("LOT-0001", "New Org", "", "Patra", "GRC", None),
        won("LOT-0002", "New Org", "", "Patra", "GRC", None),
    )


def _unsigned(*tenders: tuple[str, str, str]) -> str:
    """CONSTRUCTED: a selec-w lot result listing ``tenders`` (id, rank, party) without any contract."""
    listed = "".join(f"<efac:LotTender><cbc:ID>{t}</cbc:ID></efac:LotTender>" for t, _, _ in tenders)
    lot_tenders = "".join(
        f"<efac:LotTender><cbc:ID>{t}</cbc:ID>{f'<cbc:RankCode>{rank}</cbc:RankCode>' if rank else ''}"
        f"<efac:TenderingParty><cbc:ID>{party}</cbc:ID></efac:TenderingParty>"
        "<efac:TenderLot><cbc:ID>LOT-0001</cbc:ID></efac:TenderLot></efac:LotTender>"
        for t, rank, party in tenders
    )
    parties = "".join(
        f"<efac:TenderingParty><cbc:ID>{party}</cbc:ID><efac:Tenderer><cbc:ID>ORG-{party}</cbc:ID></efac:Tenderer>"
        f"</efac:TenderingParty>"
        for _, _, party in tenders
    )
    orgs = "".join(
        f"<efac:Organization><efac:Company><cac:PartyIdentification><cbc:ID>ORG-{party}</cbc:ID>"
        f"</cac:PartyIdentification><cac:PartyName><cbc:Name>{party} GmbH</cbc:Name></cac:PartyName>"
        "</efac:Company></efac:Organization>"
        for _, _, party in tenders
    )
    return (
        "<efac:NoticeResult><efac:LotResult><cbc:TenderResultCode>selec-w</cbc:TenderResultCode>"
        f"{listed}<efac:TenderLot><cbc:ID>LOT-0001</cbc:ID></efac:TenderLot></efac:LotResult>"
        f"{lot_tenders}{parties}</efac:NoticeResult><efac:Organizations>{orgs}</efac:Organizations>"
    )


def test_without_contract_the_tender_ranked_first_wins_and_unranked_tenders_never_do():
    """CONSTRUCTED from the eForms SDK structure: BT-171 Tender Rank (cbc:RankCode) when no contract is named."""
    ranked = parse_eforms(
        notice("", extension=_unsigned(("TEN-1", "2", "Zweiter"), ("TEN-2", "1", "Erster"))), source="ted"
    )
    assert [(a.lot_id, a.supplier_name) for a in ranked.awards] == [("LOT-0001", "Erster GmbH")]
    assert ranked.suppliers == ("Erster GmbH",)

    unranked = parse_eforms(notice("", extension=_unsigned(("TEN-1", "", "Eins"), ("TEN-2", "", "Zwei"))), source="ted")
    assert unranked.awards == (Award(lot_id="LOT-0001"),)  # awarded, to whom the notice does not say
    assert unranked.suppliers == ()

    only = parse_eforms(
        notice(
            "",
            extension=_unsigned(
                ("TEN-1", "", "Einzig"),
            ),
        ),
        source="ted",
    )
    assert [a.supplier_name for a in only.awards] == ["Einzig GmbH"]


def test_one_row_per_lot_and_winner_however_many_of_its_tenders_are_signed():
    """CONSTRUCTED: one party's two tenders for one lot (a variant too) under one contract stay one row."""
    result = _unsigned(("TEN-1", "", "Bau"), ("TEN-2", "", "Bau")).replace(
        "</efac:NoticeResult>",
        "<efac:SettledContract><cbc:ID>CON-1</cbc:ID><efac:LotTender><cbc:ID>TEN-1</cbc:ID></efac:LotTender>"
        "<efac:LotTender><cbc:ID>TEN-2</cbc:ID></efac:LotTender></efac:SettledContract></efac:NoticeResult>",
    )
    record = parse_eforms(notice("", extension=result), source="ted")
    assert [(a.lot_id, a.supplier_name) for a in record.awards] == [("LOT-0001", "Bau GmbH")]


def test_a_tender_counted_for_its_lot_result_is_not_counted_again_for_its_own_empty_lot():
    """Doffin 2022-927623 (real, converted from TED XML to eForms): the one lot result (lot id "MISSING",
    the converter's) names both contracts; the tenders name no lot. Two winners, two rows - not four."""
    record = awards_of("doffin_2022-927623_can-social_one-lot-result-two-contracts.xml")
    assert [(a.lot_id, a.supplier_name, a.value, a.tenders_received, a.date) for a in record.awards] == [
        ("MISSING", "Avarn Security AS", Decimal("138000000.00"), 3, date(2022, 10, 14)),
        ("MISSING", "Securitas AS", Decimal("3000000.00"), 3, date(2022, 10, 14)),
    ]


def test_a_lots_group_tender_wins_the_group_s_lot_not_a_lot_named_glo():
    """eForms SDK can_24_maximal: TEN-0001 is filed under the lots group GLO-0001 (LOT-0001 + LOT-0002,
    BT-13714 allows a group, BT-13713 of a lot result does not); LOT-0001's result lists it under CON-0001,
    LOT-0002 closed without winner. The consortium (lead Gyro Soft SA) won LOT-0001 beside Competitor."""
    record = awards_of("eforms-sdk_can_24_maximal_lots-group-tender.xml")
    assert [(a.lot_id, a.status, a.supplier_name, a.value) for a in record.awards] == [
        ("LOT-0001", AwardStatus.AWARDED, "Gyro Soft SA", Decimal("9999999.99")),
        ("LOT-0001", AwardStatus.AWARDED, "Competitor", Decimal("9999999.99")),
        ("LOT-0002", AwardStatus.NOT_AWARDED, "", None),
    ]
    assert all(not a.lot_id.startswith("GLO") for a in record.awards)


def _grouped(result_lot: str, tender_lot: str) -> bytes:
    """CONSTRUCTED: lots LOT-0001 and LOT-0002 in group GLO-0001; one signed tender of party ``Bau``."""
    terms = (
        "<cac:TenderingTerms><cac:LotDistribution><cac:LotsGroup><cbc:LotsGroupID>GLO-0001</cbc:LotsGroupID>"
        "<cac:ProcurementProjectLotReference><cbc:ID>LOT-0001</cbc:ID></cac:ProcurementProjectLotReference>"
        "<cac:ProcurementProjectLotReference><cbc:ID>LOT-0002</cbc:ID></cac:ProcurementProjectLotReference>"
        "</cac:LotsGroup></cac:LotDistribution></cac:TenderingTerms>"
    )
    lot_result = (
        "<efac:LotResult><cbc:TenderResultCode>selec-w</cbc:TenderResultCode>"
        "<efac:LotTender><cbc:ID>TEN-1</cbc:ID></efac:LotTender><efac:SettledContract><cbc:ID>CON-1</cbc:ID>"
        f"</efac:SettledContract><efac:TenderLot><cbc:ID>{result_lot}</cbc:ID></efac:TenderLot></efac:LotResult>"
        if result_lot
        else ""
    )
    result = (
        f"<efac:NoticeResult>{lot_result}<efac:LotTender><cbc:ID>TEN-1</cbc:ID><cac:LegalMonetaryTotal>"
        '<cbc:PayableAmount currencyID="EUR">1000</cbc:PayableAmount></cac:LegalMonetaryTotal>'
        "<efac:TenderingParty><cbc:ID>TPA-1</cbc:ID></efac:TenderingParty>"
        f"<efac:TenderLot><cbc:ID>{tender_lot}</cbc:ID></efac:TenderLot></efac:LotTender>"
        "<efac:SettledContract><cbc:ID>CON-1</cbc:ID><cbc:IssueDate>2024-05-02</cbc:IssueDate>"
        "<efac:LotTender><cbc:ID>TEN-1</cbc:ID></efac:LotTender></efac:SettledContract>"
        "<efac:TenderingParty><cbc:ID>TPA-1</cbc:ID><efac:Tenderer><cbc:ID>ORG-1</cbc:ID></efac:Tenderer>"
        "</efac:TenderingParty></efac:NoticeResult><efac:Organizations><efac:Organization><efac:Company>"
        "<cac:PartyIdentification><cbc:ID>ORG-1</cbc:ID></cac:PartyIdentification><cac:PartyName>"
        "<cbc:Name>Bau GmbH</cbc:Name></cac:PartyName></efac:Company></efac:Organization></efac:Organizations>"
    )
    return notice(terms, extension=result)


def test_a_result_or_a_contract_under_a_lots_group_stands_for_the_group_s_lots():
    """CONSTRUCTED: a lot result filed under GLO-0001 (invalid for BT-13713, seen in the wild) and a VEAT-like
    signed group tender without any lot result both give the group's lots; the value counts once."""
    for result_lot in ("GLO-0001", ""):
        record = parse_eforms(_grouped(result_lot, "GLO-0001"), source="ted")
        assert [(a.lot_id, a.supplier_name, a.value) for a in record.awards] == [
            ("LOT-0001", "Bau GmbH", None),
            ("LOT-0002", "Bau GmbH", None),
        ], result_lot
    # A group tender won for one lot only is that lot's value.
    one = parse_eforms(_grouped("LOT-0002", "GLO-0001"), source="ted")
    assert [(a.lot_id, a.value, a.date) for a in one.awards] == [("LOT-0002", Decimal("1000"), date(2024, 5, 2))]


def test_a_contract_naming_another_lot_s_tender_takes_the_lot_s_own_tender_of_that_party():
    """eForms SDK can-social_24: LOT-0001 clos-nw (its tender TEN-0001 lost); LOT-0002's result lists its own
    tender TEN-0002 (Kapa, 100000 EUR) and CON-0001, which names TEN-0001 (Kapa's lot-1 tender); LOT-0003 open."""
    record = awards_of("eforms-sdk_can-social_24.xml")
    assert record.awards == (
        Award(lot_id="LOT-0001", status=AwardStatus.NOT_AWARDED, tenders_received=3),
        won("LOT-0002", "Kapa", "kap", "Luxembourg", "LUX", "100000", currency="EUR", tenders_received=2),
        Award(lot_id="LOT-0003", status=AwardStatus.OPEN),
    )
    assert record.suppliers == ("Kapa",)


def test_a_foreign_buyer_s_postcode_names_no_bundesland():
    """Real TED notices whose buyer sits abroad and whose place of performance is not stated: the buyer's
    postcode looks German (97110 Pointe-à-Pitre would be Bavarian, 21027 Ispra Hamburg's) and names no Land."""
    guadeloupe = awards_of("ted_2024-OJS074-00219998_pin-cfc_foreign-buyer-postcode-97110.xml")
    ispra = awards_of("ted_2023-OJS167-00524889_can-standard_foreign-buyer-postcode-21027.xml")
    assert (guadeloupe.bundesland, guadeloupe.postal_code, guadeloupe.nuts_codes) == ("", "", ())
    assert (ispra.bundesland, ispra.postal_code) == ("", "")
