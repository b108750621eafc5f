"""Write the CONSTRUCTED NetServer layout variants in ``variants/`` (see README.md there).

Run from the repository root: ``.venv/bin/python tests/data/portals/netserver/build_variants.py``.
Built from the facts in ``shared/fixtures/portals/README.md``, section "What other public
clients report about the live pages": the five-cell table (vergabe.landbw.de), the six-cell
table without header classes (vergabe.autobahn.de), the card layout (vergabe.hessen.de), a
detail page wrapped in ``#printarea`` with eForms-numbered labels whose documents link carries
a TenderOID other than the list's TOID, and a card-layout detail page under ``#content-section``.
No page was saved from a portal.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent / "variants"
MARK = (
    "<!-- CONSTRUCTED TEST PAGE, not saved from a portal: built by build_variants.py from the facts other\n"
    "     public clients report (shared portals README). See variants/README.md. -->\n"
)

# vergabe.landbw.de: five cells, "Rechtsrahmen, Verfahrensart" in one td.tenderType, "nächste Frist".
LANDBW = [
    {
        "oid": "54321-NetTender-1b2c3d4e5f6-a1b2c3d4e5f60718",
        "tender_oid": "54321-Tender-1b2c3d4e5f6-0f1e2d3c4b5a6978",
        "published": "18.11.2026",
        "title": "Neubau Feuerwehrhaus Weilheim – Rohbauarbeiten",
        "buyer": "Stadt Weilheim an der Teck",
        "type": "VOB/A, Öffentliche Ausschreibung",
        "deadline": "22.12.2026 24:00",
    },
    {
        "oid": "54321-NetTender-1b2c3d4e5f7-b2c3d4e5f6071829",
        "published": "17.11.2026",
        "title": "Lieferung von Streusalz für den Winterdienst 2026/27",
        "buyer": "Landratsamt Göppingen – Straßenbauamt",
        "type": "UVgO, Öffentliche Ausschreibung",
        "deadline": "01.12.2026 10:00",
    },
    {
        "oid": "54321-NetTender-1b2c3d4e5f8-c3d4e5f60718293a",
        "published": "16.11.2026",
        "title": "Planungsleistungen Technische Gebäudeausrüstung Schulzentrum",
        "buyer": "Gemeinde Süßen",
        "type": "VgV, Offenes Verfahren",
        "deadline": "05.01.2027 12:00",
    },
]

# vergabe.autobahn.de: six cells, no header row, classes only; a "24:00" deadline.
AUTOBAHN = [
    {
        "oid": "54321-Tender-1c3d5e7f9a1-1234567890abcdef",
        "published": "20.11.2026",
        "title": "A 8 – Erneuerung der Fahrbahn zwischen AS Merklingen und AS Ulm-West",
        "buyer": "Die Autobahn GmbH des Bundes, Niederlassung Südwest",
        "procedure": "Offenes Verfahren",
        "law": "VOB/A-EU",
        "deadline": "15.01.2027 24:00",
    },
    {
        "oid": "54321-Tender-1c3d5e7f9a2-234567890abcdef1",
        "published": "19.11.2026",
        "title": "Winterdienst-Fahrzeuge: Lieferung von 12 Streuautomaten",
        "buyer": "Die Autobahn GmbH des Bundes, Niederlassung Nordbayern",
        "procedure": "Offenes Verfahren",
        "law": "VgV",
        "deadline": "08.01.2027 11:00",
    },
]

# vergabe.hessen.de: cards, "Art:", "Vergabestelle:", "Abgabefrist:" with dd/mm/yyyy dates.
HESSEN = [
    {
        "oid": "54321-NetTender-1d4e6f8a0b2-3456789abcdef012",
        "published": "21/11/2026",
        "title": "Reinigung der Dienstgebäude des Regierungspräsidiums Darmstadt",
        "buyer": "Regierungspräsidium Darmstadt",
        "type": "UVgO, Öffentliche Ausschreibung",
        "deadline": "14/12/2026 24:00",
    },
    {
        "oid": "54321-NetTender-1d4e6f8a0b3-456789abcdef0123",
        "published": "20/11/2026",
        "title": "Erweiterung der Gesamtschule Kassel-Süd – Elektroarbeiten",
        "buyer": "Stadt Kassel, Amt für Hochbau und Gebäudebewirtschaftung",
        "type": "VOB/A, Beschränkte Ausschreibung",
        "deadline": "09/12/2026 10:00",
    },
]


def head(title: str, charset: str) -> str:
    return (
        f'{MARK}<!DOCTYPE html>\n<html lang="de">\n<head>\n'
        f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">\n'
        f"<title>{escape(title)}</title>\n</head>\n"
    )


def landbw_page() -> str:
    rows = "".join(
        f'<tr class="tableRow clickable-row publicationDetail" data-oid="{n["oid"]}" data-category="InvitationToTender">\n'
        f'  <td>{n["published"]}</td>\n  <td class="tender">{escape(n["title"])}</td>\n'
        f'  <td class="tenderAuthority">{escape(n["buyer"])}</td>\n'
        f'  <td class="tenderType">{escape(n["type"])}</td>\n'
        f'  <td class="tenderDeadline">{n["deadline"]}</td>\n</tr>\n'
        for n in LANDBW
    )
    return (
        head("Vergabeplattform Baden-Württemberg – Bekanntmachungen", "ISO-8859-1")
        + '<body>\n<div id="pageContent">\n<table class="table tableHorizontalHeader">\n<thead><tr>'
        "<th>Veröffentlicht</th><th>Ausschreibung</th><th>Vergabestelle</th>"
        "<th>Rechtsrahmen, Verfahrensart</th><th>nächste Frist</th></tr></thead>\n<tbody>\n"
        + rows
        + '</tbody>\n</table>\n<div class="browsePages">Seite 1 von 2 '
        '<a href="PublicationSearchControllerServlet?function=SearchPublications&amp;Category=InvitationToTender'
        '&amp;thContext=publications&amp;OrderBy=Publishing&amp;Order=desc&amp;Start=3&amp;Max=3&amp;csrt=8f3a1c">2</a>'
        "</div>\n</div>\n</body>\n</html>\n"
    )


def autobahn_page() -> str:
    rows = "".join(
        f'<tr class="tableRow clickable-row publicationDetail" data-oid="{n["oid"]}" data-category="InvitationToTender">'
        f'<td>{n["published"]}</td><td class="tender">{escape(n["title"])}</td>'
        f'<td class="tenderAuthority">{escape(n["buyer"])}</td><td class="tenderType">{escape(n["procedure"])}</td>'
        f'<td class="tenderType">{n["law"]}</td><td class="tenderDeadline">{n["deadline"]}</td></tr>\n'
        for n in AUTOBAHN
    )
    return (
        head("Die Autobahn GmbH des Bundes – Vergabeplattform", "utf-8")
        + '<body><table class="tableHorizontalHeader">\n'
        + rows
        + "</table></body></html>\n"
    )


def hessen_page() -> str:
    cards = "".join(
        f'<div role="listitem" class="card mb-2" data-oid="{n["oid"]}">\n'
        f'  <div class="card-body">\n  <p class="mb-3"><a href="PublicationControllerServlet?function=Detail'
        f'&amp;TOID={n["oid"]}&amp;Category=InvitationToTender">{escape(n["title"])}</a></p>\n'
        f'  <div><span class="font-weight-bold">Veröffentlicht:</span> {n["published"]}</div>\n'
        f'  <div><span class="font-weight-bold">Art:</span> {escape(n["type"])}</div>\n'
        f'  <div><span class="font-weight-bold">Vergabestelle:</span> {escape(n["buyer"])}</div>\n'
        f'  <div><span class="font-weight-bold">Abgabefrist:</span> {n["deadline"]}</div>\n'
        "  </div>\n</div>\n"
        for n in HESSEN
    )
    return (
        head("HAD – Hessische Ausschreibungsdatenbank", "utf-8")
        + '<body>\n<section id="search-form-section">\n<form name="searchForm" action="PublicationSearchControllerServlet">'
        '<input type="hidden" name="function" value="SearchPublications"></form>\n<div role="list">\n'
        + cards
        + "</div>\n</section>\n</body>\n</html>\n"
    )


def landbw_detail() -> str:
    notice = LANDBW[0]
    rows = [
        ("Abschnitt I: Öffentlicher Auftraggeber", None),
        ("I.1) Offizielle Bezeichnung", notice["buyer"]),
        ("I.1) Postanschrift", "Marktplatz 6\n73235 Weilheim an der Teck"),
        ("Abschnitt II: Gegenstand", None),
        ("II.1.1) Bezeichnung des Auftrags", notice["title"]),
        ("II.1.2) CPV-Code Hauptteil", "45210000-2 Bauleistungen im Hochbau"),
        ("II.2.3) Ort der Ausführung", "73235 Weilheim an der Teck\nNUTS-Code: DE116"),
        (
            "II.2.4) Beschreibung der Beschaffung",
            "Rohbau (Erdarbeiten, Beton- und Mauerarbeiten) für ein Feuerwehrhaus mit vier Stellplätzen.",
        ),
        ("II.2.1) Geschätzter Wert ohne MwSt.", "1.250.000,00 EUR"),
        ("Abschnitt IV: Verfahren", None),
        ("IV.1.1) Verfahrensart", "Öffentliche Ausschreibung"),
        ("IV.1.2) Rechtsrahmen", "VOB/A"),
        ("IV.2.2) Schlusstermin für den Eingang der Angebote", notice["deadline"]),
    ]
    body = _tables(rows, css="table tableContractNotice")
    return (
        head(f"Bekanntmachung: {notice['title']}", "ISO-8859-1")
        + '<body>\n<div id="printarea">\n<h2>'
        + escape(notice["title"])
        + "</h2>\n"
        + body
        + f'\n<div class="downloadDocuments"><a href="TenderingProcedureDetails?function=_DownloadTenderDocuments'
        f'&amp;TenderOID={notice["tender_oid"]}">Vergabeunterlagen</a></div>\n'
        f'<form action="PublicationControllerServlet"><input type="hidden" name="TOID" value="{notice["oid"]}"></form>\n'
        "</div>\n</body>\n</html>\n"
    )


def hessen_detail() -> str:
    notice = HESSEN[0]
    rows = [
        ("Vergabestelle", notice["buyer"]),
        ("Vergabenummer", "RPDA-Z3-2026-118"),
        ("Bezeichnung", notice["title"]),
        (
            "Art und Umfang der Leistung",
            "Unterhaltsreinigung von rund 18.400 m² Büroflächen in Darmstadt, Wilhelminenstraße 1–3.",
        ),
        ("Erfüllungsort", "64283 Darmstadt"),
        ("CPV-Code", "90919200-4 Büroreinigung"),
        ("Rechtsrahmen", "UVgO"),
        ("Verfahrensart", "Öffentliche Ausschreibung"),
        ("Abgabefrist", "14.12.2026 24:00"),
    ]
    return (
        head(f"Bekanntmachung: {notice['title']}", "utf-8")
        + '<body>\n<main><section id="content-section">\n<h1>'
        + escape(notice["title"])
        + "</h1>\n"
        + _tables(rows, css="table")
        + f'\n<p><a href="PublicationControllerServlet?function=Detail&amp;TOID={notice["oid"]}'
        '&amp;Category=InvitationToTender">Druckansicht</a></p>\n'
        "</section></main>\n</body>\n</html>\n"
    )


def _tables(rows: list[tuple[str, str | None]], *, css: str) -> str:
    tables, current = [], []
    for label, value in rows:
        if value is None:
            if current:
                tables.append(current)
            current = [f'<tr class="tableNoticeHead"><td colspan="2">{escape(label)}</td></tr>']
        else:
            current.append(
                f"<tr><td>{escape(label)}</td><td>{'<br>'.join(escape(v) for v in value.split(chr(10)))}</td></tr>"
            )
    tables.append(current)
    return "\n".join(f'<table class="{css}">\n' + "\n".join(t) + "\n</table>" for t in tables)


def main() -> None:
    HERE.mkdir(exist_ok=True)
    # landbw: ISO-8859-1 declared in <meta> only, bytes windows-1252 ("–" is 0x96).
    (HERE / "landbw_results_5cells_cp1252.html").write_bytes(landbw_page().encode("windows-1252"))
    (HERE / f"landbw_detail_{LANDBW[0]['oid']}.html").write_bytes(landbw_detail().encode("windows-1252"))
    (HERE / "autobahn_results_6cells_utf8.html").write_bytes(autobahn_page().encode("utf-8"))
    (HERE / "hessen_results_cards_utf8.html").write_bytes(hessen_page().encode("utf-8"))
    (HERE / f"hessen_detail_{HESSEN[0]['oid']}.html").write_bytes(hessen_detail().encode("utf-8"))


if __name__ == "__main__":
    main()
