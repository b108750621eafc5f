"""Write the CONSTRUCTED cosinex test pages and the open-data ZIP in this folder (see README.md).

Run from the repository root: ``.venv/bin/python tests/data/portals/cosinex/build.py``.
The pages follow the documented structure (``tests/data/portals/README.md``) and the
selectors in ``sources/adapters/cosinex/selectors.py``; they are not saved portal pages.
"""

from __future__ import annotations

import zipfile
from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
LEGACY_EFORMS = HERE.parents[1] / "doe" / "eforms-sdk-0.1_cn-standard_legacy-prefixed_17750180-1.xml"
MARK = (
    "<!-- CONSTRUCTED TEST PAGE, not saved from a portal: built by build.py from the documented\n"
    "     cosinex structure (tests/data/portals/README.md). See README.md in this folder. -->\n"
)
PAGER = "/Satellite/company/welcome.do?method=showTable&amp;fromSearch=1&amp;selectedTablePagePROJECT_RESULT="

# Titles, types and publishers of the first four rows of page 1 and the first of page 2 are
# real DTVP rows (tests/data/portals/dtvp_search_scraped_to_rss_2023-09-07.xml); the award type,
# ids, dates and deadlines are invented. CXP4Y9PRGS5 and its title, buyer and deadline are real
# (tests/data/doe/eforms-sdk-0.1_cn-standard_legacy-prefixed_17750180-1.xml links it on DTVP).
PAGE_1 = [
    {
        "published": ("07.09.2023", "07.09.2023 um 10:15 Uhr"),
        "deadline": ("28.09.2023", "28.09.2023 um 10:00 Uhr"),
        "title": "Schwarzenbachtal - Freianlagen, Kampfmittelsondierung",
        "type": "VOB/A Ausschreibung",
        "publisher": "Stadt Flensburg - Zentrale Vergabestelle",
        "href": "/Satellite/notice/CXS7YY6YTM1SY43C",
    },
    {
        "published": ("07.09.2023", "07.09.2023 um 09:40 Uhr"),
        "deadline": ("25.09.2023", None),
        "title": "WLAN-Ausstattung",
        "type": "UVgO Ausschreibung",
        "publisher": "Städtisches Krankenhaus Pirmasens",
        "href": "/Satellite/notice/CXP6Z2H4LKQ",
    },
    {
        "published": ("06.09.2023", None),
        "deadline": ("02.10.2023 12:00", None),
        "title": "Jahresabschlussprüfungen",
        "type": "VgV TNW",
        "publisher": "KENFO - Fonds zur Finanzierung der kerntechnischen Entsorgung St.d.ö.R.",
        "href": "/Satellite/public/company/projectForwarding.do?pid=51020",
    },
    {
        "published": ("06.09.2023", None),
        "deadline": ("nv", "Die Frist ist bei diesem Verfahren nicht vorhanden (z.B. EU Vorinformation)"),
        "title": "Reinigungsleistungen BG Klinikum Murnau",
        "type": "VgV Vergebener Auftrag",
        "publisher": "BG Klinikum Murnau gGmbH",
        "href": "/Satellite/notice/CXQ2W8E5R7T",
    },
]
PAGE_2 = [
    {
        "published": ("05.09.2023", None),
        "deadline": ("19.09.2023 11:00", None),
        "title": "Ertüchtigung der ISP Haus 40 Klinikum Neukölln",
        "type": "VOB/A Ausschreibung",
        "publisher": "Vivantes - Netzwerk für Gesundheit GmbH",
        "href": "/Satellite/notice/CXR3T9Y6U1I",
    },
    {
        "published": ("12.04.2022", None),
        "deadline": ("16.05.2022 12:00", None),
        "title": "Enterprise Architecture Management",
        "type": "VgV Ausschreibung",
        "publisher": "Stiftung Humboldt Forum im Berliner Schloss",
        "href": "/Satellite/notice/CXP4Y9PRGS5",
    },
]


def cell(text: str, title: str | None) -> str:
    return f'<td><abbr title="{escape(title)}">{escape(text)}</abbr></td>' if title else f"<td>{escape(text)}</td>"


def list_page(page: int, charset: str, rows: list[dict]) -> str:
    body = "".join(
        "<tr>"
        + cell(*row["published"])
        + cell(*row["deadline"])
        + f"<td>{escape(row['title'])}</td><td>{escape(row['type'])}</td><td>{escape(row['publisher'])}</td>"
        + f'<td><a href="{row["href"]}" title="Projekt öffnen">Details</a></td></tr>\n'
        for row in rows
    )
    other = 2 if page == 1 else 1
    return (
        f'{MARK}<!DOCTYPE html>\n<html lang="de">\n<head>\n'
        f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">\n'
        "<title>Bekanntmachungen</title>\n</head>\n<body>\n<h1>Aktuelle Ausschreibungen</h1>\n"
        '<table class="csx-new-table">\n<thead><tr><th>Veröffentlicht</th><th>Frist</th><th>Kurzbezeichnung</th>'
        "<th>Typ</th><th>Veröffentlicher</th><th></th></tr></thead>\n<tbody>\n"
        + body
        + f'<tr><td colspan="6"><div class="browsePages">Seite: {page} von 2 '
        f'<a href="{PAGER}{other}">{other}</a></div></td></tr>\n</tbody>\n</table>\n</body>\n</html>\n'
    )


PROJECT = (
    MARK + '<!DOCTYPE html>\n<html lang="de">\n<head>\n<meta charset="utf-8">\n'
    '<link rel="canonical" href="https://www.dtvp.de/Satellite/public/company/project/CXS7YY6YTM1SY43C/de/overview">\n'
    "<title>Schwarzenbachtal - Freianlagen, Kampfmittelsondierung</title>\n</head>\n<body>\n"
    "<h1>Schwarzenbachtal - Freianlagen, Kampfmittelsondierung</h1>\n<dl>\n"
    "<dt>Vergabenummer</dt><dd>FL-2023-0917</dd>\n"
    "<dt>Bekanntmachungsart</dt><dd>VOB/A Ausschreibung</dd>\n"
    "<dt>Verfahrensart</dt><dd>Öffentliche Ausschreibung</dd>\n"
    "<dt>Offizielle Bezeichnung</dt><dd>Stadt Flensburg<br>Zentrale Vergabestelle<br>Rathausplatz 1</dd>\n"
    "<dt>Kurzbeschreibung</dt><dd>Kampfmittelsondierung auf ca. 1,8 ha Freianlagen im Schwarzenbachtal "
    "einschließlich Dokumentation; Räumung von Verdachtspunkten nach Aufwand (€-Einheitspreise).</dd>\n"
    "<dt>CPV-Code Hauptteil</dt><dd>45112000-5 Aushub- und Erdbewegungsarbeiten</dd>\n"
    "<dt>CPV-Code Zusatzteil</dt><dd>71351914-3 Archäologische Dienste</dd>\n"
    "<dt>Erfüllungsort</dt><dd>24937 Flensburg<br>NUTS-Code: DEF01</dd>\n"
    "<dt>Geschätzter Wert</dt><dd>185.000,00 EUR</dd>\n"
    "<dt>Schlusstermin für den Eingang der Angebote</dt><dd>28.09.2023 10:00</dd>\n"
    '</dl>\n<p><a href="/Satellite/public/company/project/CXS7YY6YTM1SY43C/de/documents">Vergabeunterlagen</a></p>\n'
    "</body>\n</html>\n"
)
EMPTY = (
    MARK + '<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8"><title>Bekanntmachungen</title></head>\n'
    "<body><h1>Aktuelle Ausschreibungen</h1><p>Es wurden keine Bekanntmachungen gefunden.</p></body></html>\n"
)
LOGIN = (
    MARK + '<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8"><title>Anmelden</title></head>\n'
    '<body><form action="login-actions/authenticate" method="post"><input name="username">'
    '<input type="password" name="password"><button>Anmelden</button></form></body></html>\n'
)


def main() -> None:
    (HERE / "list_page1_cp1252.html").write_bytes(list_page(1, "ISO-8859-1", PAGE_1).encode("windows-1252"))
    (HERE / "list_page2_utf8.html").write_bytes(list_page(2, "utf-8", PAGE_2).encode("utf-8"))
    (HERE / "project_CXS7YY6YTM1SY43C.html").write_bytes(PROJECT.encode("utf-8"))
    (HERE / "list_empty.html").write_bytes(EMPTY.encode("utf-8"))
    (HERE / "login.html").write_bytes(LOGIN.encode("utf-8"))
    info = zipfile.ZipInfo("17750180-1.xml", date_time=(2022, 4, 13, 3, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(HERE / "opendata_eforms.zip", "w") as archive:
        archive.writestr(info, LEGACY_EFORMS.read_bytes())


if __name__ == "__main__":
    main()
