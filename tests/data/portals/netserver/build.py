"""Write the CONSTRUCTED NetServer test pages in this folder (see README.md).

Run from the repository root: ``.venv/bin/python tests/data/portals/netserver/build.py``.
The pages follow the documented structure (``tests/data/portals/README.md``) and the
selectors in ``sources/adapters/netserver/selectors.py``; they are not saved portal pages.
Each page is written in the encoding its ``<meta>`` declares (the only declaration:
the test server sends ``Content-Type: text/html`` without charset).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARK = (
    "<!-- CONSTRUCTED TEST PAGE, not saved from a portal: built by build.py from the documented\n"
    "     NetServer structure (tests/data/portals/README.md). See README.md in this folder. -->\n"
)
SEARCH = (
    "PublicationSearchControllerServlet?function=SearchPublications&amp;Gesetzesgrundlage=All"
    "&amp;Category=InvitationToTender&amp;thContext=publications"
)

# The first id is real: the DÖE eForms-DE fixture links this TenderOID on www.tender24.de.
NOTICES = [
    {
        "oid": "54321-Tender-1a09ee5f4b7-72f9ab694e623ec2",
        "published": "15.09.2026",
        "title": "MICADO Integral Field Unit II",
        "buyer": "Max-Planck-Institut für extraterrestrische Physik (MPE)",
        "procedure": "Offenes Verfahren",
        "law": "VgV",
        "deadline": "20.10.2026 12:00",
        "detail": {
            "encoding": "windows-1252",
            "reference": "MPE-2026-0815",
            "description": "Entwicklung, Bau und Test der Integral Field Unit für das Instrument MICADO "
            "am Extremely Large Telescope (ELT) – Lieferung nach Garching.",
            "cpv": ["38433000-9 Spektrometer"],
            "place": "85748 Garching b. München\nNUTS-Code: DE21H",
            "value": "",
            "questions": "13.10.2026 12:00",
        },
    },
    {
        "oid": "54321-Tender-19a2b3c4d5e-0a1b2c3d4e5f6789",
        "published": "14.09.2026",
        "title": "Sanierung der Sporthalle Süd – Dachabdichtung und Wärmedämmung",
        "buyer": "Stadt Göppingen – Hochbauamt",
        "procedure": "Öffentliche Ausschreibung",
        "law": "VOB/A",
        "deadline": "06.10.2026 10:30",
        "detail": {
            "encoding": "windows-1252",
            "reference": "HBA-2026-117",
            "description": "Erneuerung der „Dachabdichtung“ (ca. 2.400 m²) einschließlich Wärmedämmung, "
            "Entwässerung und Blitzschutz; Kostenrahmen rund 480.000 € netto.",
            "cpv": ["45261210-9 Dachdeckerarbeiten", "45321000-3 Wärmedämmarbeiten"],
            "place": "73033 Göppingen\nNUTS-Code: DE114",
            "value": "480.000,00 €",
            "questions": "29.09.2026 12:00",
        },
    },
    {
        "oid": "54321-NetTender-18f0e1d2c3b-1122334455667788",
        "published": "12.09.2026",
        "title": "Lieferung von Büromöbeln für das Landratsamt",
        "buyer": "Landkreis Esslingen",
        "procedure": "Beschränkte Ausschreibung",
        "law": "UVgO",
        "deadline": "30.09.2026 23:59",
        "detail": {
            "encoding": "utf-8",
            "reference": "LRA-ES-2026-44",
            "description": "Schreibtische, Rollcontainer und Bürostühle für 120 Arbeitsplätze; Lieferung "
            "und Montage frei Verwendungsstelle Pulverwiesen 11, Esslingen.",
            "cpv": ["39130000-2 Büromöbel"],
            "place": "73728 Esslingen am Neckar\nNUTS-Code: DE113",
            "value": "Wert: 95.000,00 EUR",
            "questions": "",
        },
    },
    {
        "oid": "54321-Tender-17e6d5c4b3a-99aabbccddeeff00",
        "published": "11.09.2026",
        "title": "Unterhaltsreinigung Grundschule Weißenhof",
        "buyer": "Landeshauptstadt Stuttgart, Amt für Hochbau",
        "procedure": "Verhandlungsvergabe",
        "law": "UVgO",
        "deadline": "28.09.2026 09:00",
        "detail": {
            "encoding": "iso-8859-1",
            "reference": "LHS-65-2026-301",
            "description": "Unterhalts- und Grundreinigung von 3.150 m² Schulfläche ab 01.01.2027.",
            "cpv": ["90911200-8 Gebäudereinigung"],
            "place": "70191 Stuttgart\nNUTS-Code: DE111",
            "value": "",
            "questions": "",
        },
    },
    {
        "oid": "54321-Tender-16d5c4b3a29-0011223344556677",
        "published": "10.09.2026",
        "title": "Straßenbeleuchtung: LED-Umrüstung im Ortsteil Öschelbronn",
        "buyer": "Gemeinde Niefern-Öschelbronn",
        "procedure": "Freihändige Vergabe",
        "law": "VOL",
        "deadline": "25.09.2026 11:00",
        "detail": {
            "encoding": "windows-1252",
            "reference": "NÖ-2026-12",
            "description": "Austausch von 212 Leuchtenköpfen gegen LED-Technik inkl. Entsorgung.",
            "cpv": ["34993000-4 Straßenbeleuchtung"],
            "place": "75223 Niefern-Öschelbronn\nNUTS-Code: DE12B",
            "value": "Wert: 61.250,50 EUR",
            "questions": "",
        },
    },
]
# Result pages of two rows (page_size=2): Start=0, 2, 4.
PAGES = [
    ("results_start0_cp1252.html", "windows-1252", "ISO-8859-1", 0, NOTICES[0:2]),
    ("results_start2_utf8.html", "utf-8", "utf-8", 2, NOTICES[2:4]),
    ("results_start4_latin1.html", "iso-8859-1", "iso-8859-1", 4, NOTICES[4:5]),
]


def head(title: str, charset: str) -> str:
    return (
        f'{MARK}<!DOCTYPE html>\n<html lang="de">\n<head>\n'
        f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">\n'
        f"<title>{escape(title)}</title>\n</head>\n"
    )


def result_page(start: int, charset: str, notices: list[dict]) -> str:
    rows = "".join(
        f'<tr class="tableRow clickable-row publicationDetail" data-oid="{n["oid"]}" '
        f'data-category="InvitationToTender">\n'
        f'  <td>{n["published"]}</td>\n  <td class="tender">{escape(n["title"])}</td>\n'
        f'  <td class="tenderAuthority">{escape(n["buyer"])}</td>\n'
        f'  <td class="tenderType">{escape(n["procedure"])}</td>\n  <td class="tenderType">{n["law"]}</td>\n'
        f'  <td class="tenderDeadline">{n["deadline"]}</td>\n</tr>\n'
        for n in notices
    )
    links = " ".join(
        f'<a href="{SEARCH}&amp;Start={offset}&amp;Max=2">{offset // 2 + 1}</a>'
        for offset in (0, 2, 4)
        if offset != start
    )
    return (
        head("Bekanntmachungen", charset) + '<body>\n<div id="pageContent">\n<h1>Aktuelle Ausschreibungen</h1>\n'
        '<table class="table tableHorizontalHeader table-hover">\n<thead><tr><th>Erschienen am</th>'
        "<th>Ausschreibung</th><th>Vergabestelle</th><th>Verfahrensart</th><th>Rechtsrahmen</th>"
        "<th>Angebotsfrist</th></tr></thead>\n<tbody>\n"
        + rows
        + f'</tbody>\n</table>\n<div class="browsePages">Seite {start // 2 + 1} von 3 {links}</div>\n'
        "</div>\n</body>\n</html>\n"
    )


def detail_page(notice: dict) -> str:
    d = notice["detail"]
    rows = [
        ("Öffentlicher Auftraggeber (Vergabestelle)", None),
        ("Offizielle Bezeichnung:", notice["buyer"]),
        ("Postleitzahl / Ort:", d["place"].split("\n")[0]),
        ("Auftragsgegenstand", None),
        ("Vergabenummer:", d["reference"]),
        ("Bezeichnung des Auftrags:", notice["title"]),
        ("Beschreibung der Beschaffung:", d["description"]),
        ("Verfahrensart:", notice["procedure"]),
        *[(("CPV-Code Hauptteil:" if i == 0 else "CPV-Code Zusatzteil:"), code) for i, code in enumerate(d["cpv"])],
        ("Ort der Ausführung:", d["place"]),
        *([("Geschätzter Auftragswert:", d["value"])] if d["value"] else []),
        ("Fristen", None),
        ("Ablauf der Angebotsfrist:", notice["deadline"]),
        *([("Frist für Bieterfragen:", d["questions"])] if d["questions"] else []),
        ("Tag der Veröffentlichung:", notice["published"]),
    ]
    tables, current = [], []
    for label, value in rows:
        if value is None:
            if current:
                tables.append(current)
            current = [
                f'<tr class="tableNoticeHead"><td colspan="2"><span class="color-main">{escape(label)}</span></td></tr>'
            ]
        else:
            html_value = "<br>".join(escape(line) for line in value.split("\n"))
            current.append(f"<tr><td>{escape(label)}</td><td>{html_value}</td></tr>")
    tables.append(current)
    body = "\n".join('<table class="table tableContractNotice">\n' + "\n".join(t) + "\n</table>" for t in tables)
    documents = (
        f'<div class="downloadDocuments"><a href="TenderingProcedureDetails?function=_DownloadTenderDocuments'
        f'&amp;TenderOID={notice["oid"]}">Unterlagen zur Ansicht herunterladen</a></div>'
    )
    return (
        head(f"Bekanntmachung: {notice['title']}", d["encoding"])
        + '<body>\n<div id="pagePublicationDetails">\n<div class="col-lg-12"><h1>'
        + escape(notice["procedure"])
        + "</h1><h2>"
        + escape(notice["title"])
        + "</h2></div>\n"
        + body
        + "\n"
        + documents
        + "\n</div>\n</body>\n</html>\n"
    )


LOGIN = (
    head("Anmeldung", "utf-8")
    + '<body><form method="post" action="login"><h1>Anmeldung</h1><label>Benutzername <input name="user"></label>'
    '<label>Passwort <input type="password" name="password"></label><button>Anmelden</button></form></body></html>\n'
)
# A redesign: results as a list of cards instead of the result table (selectors no longer match).
CHANGED_LAYOUT = (
    head("Bekanntmachungen", "utf-8")
    + '<body><div id="pageContent"><h1>Aktuelle Ausschreibungen</h1><div class="publicationList" role="list">\n'
    '<div role="listitem" data-oid="54321-Tender-19a2b3c4d5e-0a1b2c3d4e5f6789"><strong>Sanierung der Sporthalle '
    "Süd – Dachabdichtung und Wärmedämmung</strong> Art: VOB/A, Öffentliche Ausschreibung Vergabestelle: Stadt "
    "Göppingen – Hochbauamt Abgabefrist: 06.10.2026 10:30</div>\n</div></div></body></html>\n"
)
NO_RESULTS = (
    head("Bekanntmachungen", "utf-8")
    + '<body><div id="pageContent"><h1>Vorinformationen</h1><p class="noResults">Es wurden keine '
    "Bekanntmachungen gefunden.</p></div></body></html>\n"
)


def main() -> None:
    for name, encoding, charset, start, notices in PAGES:
        (HERE / name).write_bytes(result_page(start, charset, notices).encode(encoding))
    for notice in NOTICES:
        name = f"detail_{notice['oid']}.html"
        (HERE / name).write_bytes(detail_page(notice).encode(notice["detail"]["encoding"]))
    (HERE / "login.html").write_bytes(LOGIN.encode("utf-8"))
    (HERE / "changed_layout.html").write_bytes(CHANGED_LAYOUT.encode("utf-8"))
    (HERE / "no_results.html").write_bytes(NO_RESULTS.encode("utf-8"))


if __name__ == "__main__":
    main()
