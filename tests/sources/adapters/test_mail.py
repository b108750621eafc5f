"""Alert-mail parsing (pure, no database): the constructed .eml fixtures and small variations built here."""

from __future__ import annotations

import email
import email.policy
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from kernel.records import NoticeKind
from kernel.vocabulary.time_zone import BERLIN
from sources.adapters.mail import DEFAULT_HOST_SOURCES, MAIL_VERSION, host_sources_from_rows, parse_alert_mail
from sources.adapters.mail.extract import extract_entries
from sources.adapters.mail.fields import html_to_text, labelled_fields, parse_field_date
from sources.adapters.mail.mime import read_message
from sources.adapters.mail.portals import classify_link

MAIL = Path(__file__).resolve().parents[2] / "data" / "portals" / "mail"
TENDER24_OID = "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2"


def parse(name: str, **kwargs):
    return parse_alert_mail((MAIL / name).read_bytes(), **kwargs)


def by_id(result):
    return {record.source_notice_id: record for record in result.records}


# --- the fixtures ------------------------------------------------------------------------------


def test_tender24_daily_alert_in_iso_8859_1_quoted_printable():
    result = parse("tender24_daily_alert_iso-8859-1_qp.eml")
    assert (result.status, result.portal, result.reason) == ("parsed", "netserver", "")
    assert result.subject == 'Neue Veröffentlichungen zu Ihrem Suchprofil "Tiefbau Hessen"'
    assert result.message_id == "<20260915060012.4711.suchprofil@tender24.de>"
    assert result.date == datetime(2026, 9, 15, 6, 0, 12, tzinfo=BERLIN)
    records = by_id(result)
    assert list(records) == [
        TENDER24_OID,
        "54321-Tender-19a3c5d7e11-0c4f2a9b8e7d6c51",
        "netserver:54321-NetTender-18f2b6a4c90-3e5d7f9a1b2c4d6e",
    ]
    road = records[TENDER24_OID]
    assert (road.source, road.version, road.kind) == ("tender24", MAIL_VERSION, NoticeKind.CONTRACT_NOTICE)
    assert road.title == "Straßenbau - Erneuerung der Fahrbahndecke der Kreisstraße K 12"
    assert road.buyer_name == "Kreisausschuss des Main-Kinzig-Kreises"
    assert road.procedure_type == "public_tender"
    assert road.submission_deadline == datetime(2026, 10, 14, 10, 0, tzinfo=BERLIN)
    assert road.portal_references == (f"netserver:{TENDER24_OID}",)
    # The quoted-printable soft line break inside the URL is undone.
    assert road.url.endswith(f"function=_Details&TenderOID={TENDER24_OID}")
    assert road.payload["mail"]["message_id"] == result.message_id

    sewer = records["54321-Tender-19a3c5d7e11-0c4f2a9b8e7d6c51"]
    assert sewer.buyer_name == "Stadtwerke Gießen AG"
    assert sewer.submission_deadline == datetime(2026, 11, 2, 11, 0, tzinfo=BERLIN)

    # vergabe.hessen.de is polled by no Source: kept under "mail", id prefixed with the portal family.
    basin = records["netserver:54321-NetTender-18f2b6a4c90-3e5d7f9a1b2c4d6e"]
    assert basin.source == "mail" and basin.submission_deadline is None
    assert basin.title == "Neubau eines Regenrückhaltebeckens am Mühlbach"
    assert result.problems == (
        "netserver:54321-NetTender-18f2b6a4c90-3e5d7f9a1b2c4d6e: deadline 'siehe Vergabeunterlagen' "
        "is no date (expected dd.mm.yyyy HH:MM); left empty",
    )


def test_dtvp_alert_html_only_table():
    result = parse("dtvp_alert_html_only.eml")
    assert (result.status, result.portal) == ("parsed", "cosinex")
    assert result.subject == "Suchagent „IT-Dienstleistungen“: 3 neue Bekanntmachungen"
    records = by_id(result)
    assert list(records) == ["CXP4Y9PRGS5", "CXS7YY6YTM1SY43C", "cosinex:CXQ2KD7H4M8"]
    notebooks = records["CXP4Y9PRGS5"]
    assert notebooks.source == "dtvp"
    assert notebooks.title == "Rahmenvertrag Lieferung von Notebooks (Schätzwert 85.000 €)"
    assert notebooks.buyer_name == "Städtisches Klinikum Karlsruhe gGmbH"
    assert notebooks.submission_deadline == datetime(2026, 10, 12, 12, 0, tzinfo=BERLIN)
    assert notebooks.published_at == datetime(2026, 9, 14, tzinfo=BERLIN)
    assert notebooks.portal_references == ("cosinex:CXP4Y9PRGS5",)

    portal = records["CXS7YY6YTM1SY43C"]  # behind a click-tracking redirect
    assert portal.url == "https://www.dtvp.de/Satellite/notice/CXS7YY6YTM1SY43C"
    assert portal.submission_deadline is None  # "nv": no deadline, and no problem
    assert portal.buyer_name == "Landeshauptstadt Düsseldorf – Amt für Digitalisierung"

    award = records["cosinex:CXQ2KD7H4M8"]
    assert (award.source, award.kind) == ("mail", NoticeKind.AWARD)
    assert result.problems == ()


def test_dtad_style_suchprofilergebnisse():
    result = parse("dtad_suchprofilergebnisse.eml")
    assert (result.status, result.portal) == ("parsed", "dtad")
    records = by_id(result)
    assert list(records) == ["dtad:24183467", "dtad:24179012"]
    sewer = records["dtad:24183467"]
    assert sewer.source == "mail"
    assert sewer.title == "Sanierung der Regenwasserkanalisation im Ortsteil Hörde"
    assert sewer.buyer_name == "Stadtentwässerung Dortmund"
    assert (sewer.postal_code, sewer.town) == ("44263", "Dortmund")
    assert sewer.submission_deadline == datetime(2026, 10, 12, 11, 0, tzinfo=BERLIN)
    # The cosinex link of the same notice is a second link of the entry, not a notice of its own.
    assert sewer.portal_references == ("cosinex:CXS7ABCD2QW",)
    assert sewer.payload["mail"]["matched"] == "Kanalsanierung"
    assert sewer.payload["mail"]["category"] == "Bauleistungen / Tiefbau"

    shafts = records["dtad:24179012"]
    assert shafts.kind == NoticeKind.AWARD  # Projektstand: Zuschlag erteilt
    assert (shafts.bundesland, shafts.town) == ("Nordrhein-Westfalen", "")
    # "Frist: 30.09.2026" without a time: the whole day counts, as for portal pages and eForms.
    assert shafts.submission_deadline == datetime(2026, 9, 30, 23, 59, tzinfo=BERLIN)


def test_plain_and_html_alternatives_give_the_same_notices():
    content = read_message((MAIL / "dtad_suchprofilergebnisse.eml").read_bytes())
    from_html = extract_entries(content.html_text, dtad_mode=True)
    from_text = extract_entries(content.text, dtad_mode=True)
    assert [(e.link.notice_id, e.title, e.fields) for e in from_html] == [
        (e.link.notice_id, e.title, e.fields) for e in from_text
    ]


def test_newsletter_of_a_portal_is_ignored_with_a_reason():
    result = parse("newsletter_not_an_alert.eml")
    assert (result.status, result.portal, result.records) == ("ignored", "cosinex", ())
    assert "without notice links or alert wording" in result.reason


def test_broken_mime_is_unparsed_with_the_defects_as_reason():
    result = parse("broken_mime.eml")
    assert result.status == "unparsed" and result.records == ()
    assert result.reason.startswith("broken MIME structure and no notice link found")
    assert "StartBoundaryNotFoundDefect" in result.reason
    assert result.message_id == "" and result.date is None
    assert result.sender == "Vergabe-Alert <alert@vergabe.example.net>"


# --- shapes built here ------------------------------------------------------------------------


def build(*, sender="noreply@tender24.de", subject="Neue Bekanntmachungen", text=None, html=None, **headers):
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "inbox@alpha.example"
    message["Subject"] = subject
    message["Message-ID"] = "<built@test.example>"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    if text is not None:
        message.set_content(text)
    if html is not None:
        if text is None:
            message.set_content(html, subtype="html")
        else:
            message.add_alternative(html, subtype="html")
    return message.as_bytes()


def test_unknown_sender_without_notice_links_is_unparsed_not_dropped():
    result = parse_alert_mail(build(sender="info@shop.example", subject="Angebot der Woche", text="Nur heute!"))
    assert result.status == "unparsed"
    assert result.reason.startswith("sender and content belong to no supported portal")


def test_alert_wording_without_a_readable_notice_is_unparsed():
    result = parse_alert_mail(build(text="Ihr Suchprofil hat 3 Treffer. Bitte melden Sie sich an."))
    assert result.status == "unparsed"
    assert "looks like a portal alert" in result.reason


def test_auto_replies_are_ignored():
    raw = build(subject="Abwesenheitsnotiz", text="Bin im Urlaub.", Auto_Submitted="auto-replied")
    assert parse_alert_mail(raw).status == "ignored"


def test_service_bund_links_take_the_page_id_and_the_feed_source():
    text = (
        "Neue Ausschreibungen zu Ihrem Suchauftrag:\n\n"
        "Wartung der Aufzugsanlagen\nVergabestelle: Bundesanstalt für Immobilienaufgaben\n"
        "Angebotsfrist: 05.10.2026 09:30\n"
        "https://www.service.bund.de/IMPORTE/Ausschreibungen/eVergabe/2026/09/4712349.html?nn=1\n"
    )
    result = parse_alert_mail(build(sender="suchauftrag@service.bund.de", text=text))
    (record,) = result.records
    assert (record.source, record.source_notice_id, record.version) == ("service-bund", "4712349", "00")
    assert record.submission_deadline == datetime(2026, 10, 5, 9, 30, tzinfo=BERLIN)


def test_link_first_layout_without_blank_lines_and_a_forwarded_alert():
    html = (
        "<p>1) <a href='https://www.dtvp.de/Satellite/notice/CXAAAAAAA1'>Erstes Projekt</a><br>"
        "Frist: 01.10.2026 12:00<br>Vergabestelle: Stadt A<br>"
        "2) <a href='https://www.dtvp.de/Satellite/notice/CXBBBBBBB2'>Zweites Projekt</a><br>"
        "Frist: 02.10.2026<br>Vergabestelle: Stadt B</p>"
    )
    inner = build(sender="noreply@dtvp.de", subject="Suchagent", html=html)
    expected = [("CXAAAAAAA1", "Erstes Projekt", "Stadt A"), ("CXBBBBBBB2", "Zweites Projekt", "Stadt B")]
    # A proper forward (message/rfc822, 7bit) and one from a client that base64-encodes it.
    for attachment in (email.message_from_bytes(inner, policy=email.policy.default), inner):
        outer = EmailMessage()
        outer["From"] = "kollegin@alpha.example"
        outer["Subject"] = "WG: Suchagent"
        outer.set_content("Zur Info, siehe unten.")
        if isinstance(attachment, bytes):
            outer.add_attachment(attachment, maintype="message", subtype="rfc822")
        else:
            outer.add_attachment(attachment)
        result = parse_alert_mail(outer.as_bytes())
        assert result.status == "parsed"
        assert [(r.source_notice_id, r.title, r.buyer_name) for r in result.records] == expected


def test_repeated_labels_split_title_less_entries():
    text = (
        "Vergabestelle: Stadt A\nFrist: 01.10.2026\n"
        "https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID=1-Tender-a\n"
        "Vergabestelle: Stadt B\nFrist: 02.10.2026\n"
        "https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&TenderOID=2-Tender-b\n"
    )
    entries = extract_entries(text)
    assert [(e.link.notice_id, e.fields["buyer"]) for e in entries] == [
        ("1-Tender-a", "Stadt A"),
        ("2-Tender-b", "Stadt B"),
    ]


def test_a_header_block_of_labels_is_not_mistaken_for_a_notice():
    text = (
        "Kategorie: Bauleistungen\nRegion: Hessen\n\n"
        "Neubau Feuerwehrhaus\nVergabestelle: Gemeinde C\n"
        "https://www.tender24.de/NetServer/TenderingProcedureDetails?TenderOID=3-Tender-c\n"
    )
    (entry,) = extract_entries(text)
    assert (entry.title, entry.fields) == ("Neubau Feuerwehrhaus", {"buyer": "Gemeinde C"})


def test_a_charset_the_body_contradicts_is_recovered():
    message = EmailMessage()
    message["From"] = "noreply@tender24.de"
    message["Subject"] = "Suchprofil"
    message.set_content(
        "Straßenbau Süd\nVergabestelle: Gemeinde Öhringen\n"
        "https://www.tender24.de/NetServer/TenderingProcedureDetails?TenderOID=9-Tender-x\n".encode("latin-1"),
        maintype="text",
        subtype="plain",
        cte="quoted-printable",
    )
    message.set_param("charset", "utf-8")  # a lie: the bytes are ISO-8859-1
    result = parse_alert_mail(message.as_bytes())
    (record,) = result.records
    assert (record.title, record.buyer_name) == ("Straßenbau Süd", "Gemeinde Öhringen")
    assert any("does not fit the body" in problem for problem in result.problems)


# --- building blocks --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            f"https://www.tender24.de/NetServer/TenderingProcedureDetails?function=_Details&amp;TenderOID={TENDER24_OID}",
            ("netserver", TENDER24_OID, f"netserver:{TENDER24_OID}"),
        ),
        ("https://www.dtvp.de/Satellite/notice/CXP4Y9PRGS5", ("cosinex", "CXP4Y9PRGS5", "cosinex:CXP4Y9PRGS5")),
        (
            "https://t.example/r?url=https%3A%2F%2Fwww.dtvp.de%2FSatellite%2Fnotice%2FCXP4Y9PRGS5",
            ("cosinex", "CXP4Y9PRGS5", "cosinex:CXP4Y9PRGS5"),
        ),
        (
            "https://www.service.bund.de/IMPORTE/Ausschreibungen/bi/2026/09/4712346.html",
            ("service-bund", "4712346", ""),
        ),
        ("https://www.service.bund.de/Content/DE/Home/homepage_node.html", None),
        ("https://www.tender24.de/NetServer/?function=Searchprofile", None),
        ("mailto:info@dtvp.de", None),
    ],
)
def test_classify_link(url, expected):
    link = classify_link(url)
    assert (None if link is None else (link.portal, link.notice_id, link.reference)) == expected


def test_dtad_mode_skips_legal_and_settings_links():
    assert classify_link("https://www.dtad.de/newsletter/abmelden?id=7", dtad_mode=True) is None
    assert classify_link("https://www.dtad.de/", dtad_mode=True) is None
    assert classify_link("https://www.dtad.de/details/x-24183467", dtad_mode=True).notice_id == "24183467"


def test_labelled_fields_on_lines_and_joined_by_commas():
    assert labelled_fields("Typ: VgV Ausschreibung, Veröffentlicher: Stadt A, Abt. B") == {
        "procedure": "VgV Ausschreibung",
        "buyer": "Stadt A, Abt. B",
    }
    assert labelled_fields("Ablauf der Angebotsfrist: 01.10.2026 12:00\nOrt: 10115 Berlin") == {
        "deadline": "01.10.2026 12:00",
        "place": "10115 Berlin",
    }


def test_field_dates():
    assert parse_field_date("01.10.2026 12:00").value == datetime(2026, 10, 1, 12, 0, tzinfo=BERLIN)
    assert parse_field_date("nv").value is None and parse_field_date("nv").problem == ""
    assert "is no date" in parse_field_date("31.02.2026").problem


def test_html_to_text_keeps_inline_markup_on_one_line_and_drops_scripts():
    html = "<p>Vergabestelle: <strong>A &amp; B</strong><br>Frist:\n<b>01.10.2026</b></p><script>x()</script>"
    assert html_to_text(html) == "Vergabestelle: A & B\nFrist: 01.10.2026"


def test_host_sources_come_from_source_settings():
    rows = [
        ("hessen", {"base_url": "https://vergabe.hessen.de/NetServer/"}),
        ("tender24", {"base_url": "https://www.tender24.de/NetServer/"}),
        ("broken", {"base_url": "http://[::1"}),
    ]
    mapping = host_sources_from_rows(rows)
    assert mapping["vergabe.hessen.de"] == "hessen" and mapping["tender24.de"] == "tender24"
    assert DEFAULT_HOST_SOURCES.items() <= mapping.items()
    result = parse("tender24_daily_alert_iso-8859-1_qp.eml", host_sources=mapping)
    assert by_id(result)["54321-NetTender-18f2b6a4c90-3e5d7f9a1b2c4d6e"].source == "hessen"
