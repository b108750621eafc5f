"""Write the CONSTRUCTED cosinex Satellite test pages in this folder (see README.md).

Run from the repository root: ``.venv/bin/python tests/data/portals/cosinex/satellite/build.py``.
Built from what public clients report about Satellite hosts (shared portals README, section
"What other public clients report about the live pages"); not saved portal pages.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = "/VMPSatellite"
MARK = (
    "<!-- CONSTRUCTED TEST PAGE, not saved from a portal: built by build.py from what public clients\n"
    "     report about cosinex Satellite hosts. See README.md in this folder. -->\n"
)
LIST_PAGER = f"{BASE}/company/welcome.do?method=showTable&amp;fromSearch=1&amp;selectedTablePagePROJECT_RESULT="
# The category pager names no cpvCode: the portal keeps the category in the session.
CATEGORY_PAGER = (
    f"{BASE}/company/announcements/categoryOverview.do?method=showTable&amp;fromSearch=1"
    "&amp;selectedTablePagePROJECT_RESULT="
)

# pid -> (CX id, row, project page). The Humboldt Forum project is REAL: the DÖE notice
# tests/data/doe/eforms-sdk-0.1_cn-standard_legacy-prefixed_17750180-1.xml links CXP4Y9PRGS5 and
# gives title, buyer, deadline (16.05.2022 12:00) and CPV codes 72266000-7 / 72227000-2. All other
# ids, titles, buyers and dates are invented.
PROJECTS = {
    "73001": {
        "cx": "CXP4Y9PRGS5",
        "published": ("12.04.2022", "12.04.2022 um 09:30 Uhr"),
        "deadline": ("16.05.2022", "16.05.2022 um 12:00 Uhr"),
        "title": "Enterprise Architecture Management",
        "type": "VgV Ausschreibung",
        "publisher": "Stiftung Humboldt Forum im Berliner Schloss",
        "page_deadline": "16.05.2022 12:00",
        "cpv": [("72266000-7", "Software-Beratung"), ("72227000-2", "Software-Integrationsberatung")],
        "procedure": "Offenes Verfahren",
    },
    "73002": {
        "cx": "CXUA7B2C3D4E",
        "published": ("11.04.2022", None),
        "deadline": ("nv", "Die Frist ist bei diesem Verfahren nicht vorhanden"),
        "title": "Unterhaltsreinigung städtischer Gebäude, Lose 1–3",
        "type": "UVgO Ausschreibung",
        "publisher": "Stadt Gelsenkirchen – Zentrale Vergabestelle",
        "page_deadline": "nv",
        "cpv": [("90911200-8", "Gebäudereinigung")],
        "procedure": "Öffentliche Ausschreibung",
    },
    "73003": {
        "cx": "CXUB8C3D4E5F",
        "published": ("11.04.2022", None),
        "deadline": ("20.05.2022", None),
        "title": "Straßenbeleuchtung – LED-Umrüstung Süd",
        "type": "VOB/A Ausschreibung",
        "publisher": "Stadt Bottrop",
        "page_deadline": "20.05.2022 10:00",
        "cpv": [("45316110-9", "Installation von Straßenbeleuchtungsanlagen")],
        "procedure": "Öffentliche Ausschreibung",
    },
    "73004": {
        "cx": "CXUC9D4E5F6G",
        "published": ("08.04.2022", None),
        "deadline": ("nv", None),
        "title": "Winterdienst 2022/2023",
        "type": "VgV Vergebener Auftrag",
        "publisher": "Emschergenossenschaft",
        "page_deadline": "nv",
        "cpv": [("90620000-9", "Schneeräumung")],
        "procedure": "Offenes Verfahren",
    },
    "73005": {
        "cx": "CXUD1E6F7G8H",
        "published": ("06.04.2022", "06.04.2022 um 14:15 Uhr"),
        "deadline": ("nv", None),
        "title": "Sanierung Turnhalle Nord – Dachabdichtung",
        "type": "UVgO Aufhebung",
        "publisher": "Stadt Herne",
        "page_deadline": "nv",
        "cpv": [("45261420-4", "Dachabdichtungsarbeiten")],
        "procedure": "Öffentliche Ausschreibung",
    },
}
LIST_PAGES = {1: ["73001", "73002", "73003"], 2: ["73004"]}
CATEGORY_PAGES = {1: ["73001", "73002"], 2: ["73003"]}
# A list with rows of closed procedures in the four-cell shape (Veröffentlicht | Kurzbezeichnung with the
# link | Typ | Veröffentlicher, no Frist cell), as a GIZ-portal client reports them: all readable.
AWARD_ROWS_PAGE = [("open", "73003"), ("closed", "73004"), ("closed", "73005")]


def cell(text: str, title: str | None) -> str:
    return f'<td><abbr title="{escape(title)}">{escape(text)}</abbr></td>' if title else f"<td>{escape(text)}</td>"


def row(pid: str) -> str:
    p = PROJECTS[pid]
    return (
        "<tr>"
        + cell(*p["published"])
        + cell(*p["deadline"])
        + f"<td>{escape(p['title'])}</td><td>{escape(p['type'])}</td><td>{escape(p['publisher'])}</td>"
        + f'<td><a href="{BASE}/public/company/projectForwarding.do?pid={pid}" title="Projekt öffnen">Details</a>'
        + "</td></tr>\n"
    )


def closed_row(pid: str, *, notice_type: str | None = None, link: bool = True) -> str:
    """A four-cell row: no Frist cell; the link sits on the title (the client names no link cell)."""
    p = PROJECTS.get(pid) or PROJECTS["73004"]
    title = escape(p["title"])
    if link:
        title = f'<a href="{BASE}/public/company/projectForwarding.do?pid={pid}">{title}</a>'
    return (
        "<tr>"
        + cell(*p["published"])
        + f"<td>{title}</td><td>{escape(notice_type or p['type'])}</td><td>{escape(p['publisher'])}</td>"
        + "</tr>\n"
    )


def odd_rows() -> str:
    """Rows that are no notice of a known shape: each must be rejected with its reason, none dropped unseen."""
    p = PROJECTS["73004"]
    shifted = (  # a closed procedure's row with an extra link cell: five cells, the columns shifted
        "<tr>"
        + cell(*p["published"])
        + f"<td>Reinigung Hallenbad Ost</td><td>{escape(p['type'])}</td><td>{escape(p['publisher'])}</td>"
        + f'<td><a href="{BASE}/public/company/projectForwarding.do?pid=73008">Details</a></td></tr>\n'
    )
    three_cells = (
        f'<tr><td>05.04.2022</td><td><a href="{BASE}/public/company/projectForwarding.do?pid=73007">'
        "Grünpflege Friedhöfe</a></td><td>Stadt Herne</td></tr>\n"
    )
    return (
        closed_row("73006", notice_type="VgV Ausschreibung")  # four cells, but the Typ names no award
        + closed_row("73009", link=False)  # four cells, award type, no project link
        + three_cells
        + shifted
    )


def pager(page: int, pages: int, target: str, total: int) -> str:
    # Links without href: the portal pages through onclick/setTargetAndSubmit (public clients, 2026).
    links = "".join(
        f'<a href="javascript:void(0);" onclick="setTargetAndSubmit(\'{target}{n}\')">{n}</a> '
        for n in range(1, pages + 1)
        if n != page
    )
    return (
        f'<tr><td colspan="6"><div class="browsePages">Seite: {page} von {pages} - Gesamteinträge: {total} '
        f"{links}</div></td></tr>\n"
    )


def list_page(pids: list[str], page: int, pages: int, target: str, total: int, meta: str, rows: str = "") -> str:
    return (
        f'{MARK}<!DOCTYPE html>\n<html lang="de">\n<head>\n{meta}'
        "<title>Bekanntmachungen</title>\n</head>\n<body>\n<h1>Aktuelle Ausschreibungen</h1>\n"
        '<table class="csx-new-table">\n<thead><tr><th>Veröffentlicht</th><th>Frist</th><th>Kurzbezeichnung</th>'
        "<th>Typ</th><th>Veröffentlicher</th><th></th></tr></thead>\n<tbody>\n"
        + (rows or "".join(row(pid) for pid in pids))
        + pager(page, pages, target, total)
        + "</tbody>\n</table>\n</body>\n</html>\n"
    )


def section(heading: str, groups: list[str]) -> str:
    return (
        f'<div class="sub-headline-container"><h4 class="sub-headline"><span>{escape(heading)}</span>'
        '<a class="help" href="#">?</a></h4></div>\n'
        + "".join(f'<div class="control-group">{group}</div>\n' for group in groups)
    )


def labelled(label: str, value: str) -> str:
    return (
        f'<label class="control-label">{escape(label)}</label>'
        f'<div class="controls"><span class="read-only">{escape(value)}</span></div>'
    )


def project_page(pid: str) -> str:
    p = PROJECTS[pid]
    tab = f"{BASE}/public/company/project/{p['cx']}/de"
    return (
        f'{MARK}<!DOCTYPE html>\n<html lang="de">\n<head>\n'
        '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">\n'
        f"<title>{p['cx']} | {escape(p['title'])} | www.vergabe.metropoleruhr.de</title>\n</head>\n<body>\n"
        '<div id="content">\n<ul class="nav nav-tabs">'
        f'<li class="active"><a href="{tab}/overview">Übersicht</a></li>'
        f'<li><a href="{tab}/processdata/eforms">Verfahrensangaben</a></li>'
        f'<li><a href="{tab}/documents">Vergabeunterlagen</a></li></ul>\n'
        '<div class="csx-project-overview">\n'
        + section("Kurzbezeichnung", [f"<p>{escape(p['title'])}</p>"])
        + section("Abgabefrist", [escape(p["page_deadline"])])
        + section("Auftragsgegenstand", [f"<p><b>{code}</b> {escape(label)}</p>" for code, label in p["cpv"]])
        + section(
            "Vergabestelle",
            [labelled("Offizielle Bezeichnung", p["publisher"]), labelled("Verfahrensart", p["procedure"])],
        )
        + "</div>\n</div>\n</body>\n</html>\n"
    )


def main() -> None:
    latin = '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">\n'
    total = sum(len(pids) for pids in LIST_PAGES.values())
    for page, pids in LIST_PAGES.items():
        html = list_page(pids, page, len(LIST_PAGES), LIST_PAGER, total, latin)
        (HERE / f"list_page{page}_cp1252.html").write_bytes(html.encode("windows-1252"))
    total = sum(len(pids) for pids in CATEGORY_PAGES.values())
    for page, pids in CATEGORY_PAGES.items():
        # No <meta> charset: the server's Content-Type header (ISO-8859-1) is the only declaration.
        html = list_page(pids, page, len(CATEGORY_PAGES), CATEGORY_PAGER, total, "")
        (HERE / f"category_72000000-5_page{page}_cp1252.html").write_bytes(html.encode("windows-1252"))
    spacer = '<tr><td colspan="6">&nbsp;</td></tr>\n'  # a layout row: no text, no link
    rows = [row(pid) if shape == "open" else closed_row(pid) for shape, pid in AWARD_ROWS_PAGE]
    html = list_page([], 1, 1, LIST_PAGER, len(rows), latin, rows=rows[0] + spacer + "".join(rows[1:]))
    (HERE / "list_award_rows_cp1252.html").write_bytes(html.encode("windows-1252"))
    odd = row("73001") + closed_row("73004") + odd_rows()
    html = list_page([], 1, 1, LIST_PAGER, 6, latin, rows=odd)
    (HERE / "list_odd_rows_cp1252.html").write_bytes(html.encode("windows-1252"))
    for pid, project in PROJECTS.items():
        (HERE / f"project_{project['cx']}.html").write_bytes(project_page(pid).encode("windows-1252"))


if __name__ == "__main__":
    main()
