"""The link scan of an eForms notice: every text, links with or without a scheme, in any case."""

from __future__ import annotations

from sources.parsers.eforms import parse_eforms
from sources.parsers.eforms.links import document_urls
from sources.parsers.eforms.tree import parse_root

from .test_eforms import notice


def test_links_without_scheme_are_found_in_any_case_in_free_text_and_after_child_elements() -> None:
    body = (
        "<cac:ProcurementProject>"
        '<cbc:Description languageID="DEU">Unterlagen: WWW.Vergabe.Example/Akte-1 (ab Montag)</cbc:Description>'
        "<cbc:Note>Siehe<cbc:X/> Www.evergabe.example/x und https://portal.example/y</cbc:Note>"
        "</cac:ProcurementProject>"
        "<cbc:Note>Keine Adresse: www ohne Punkt, Gewerke 1.2 und 3.4</cbc:Note>"
    )

    urls = list(document_urls(parse_root(notice(body))))

    assert urls == ["WWW.Vergabe.Example/Akte-1", "Www.evergabe.example/x", "https://portal.example/y"]


def test_a_netserver_link_without_scheme_in_a_description_is_a_portal_reference() -> None:
    body = (
        '<cac:ProcurementProject><cbc:Description languageID="DEU">Abruf unter '
        "WWW.TENDER24.DE/NetServer/TenderingProcedureDetails?function=_Details&amp;TenderOID=54321-Tender-18c1e4"
        "</cbc:Description></cac:ProcurementProject>"
    )

    record = parse_eforms(notice(body), source="ted")

    assert record.portal_references == ("netserver:54321-Tender-18c1e4",)
