"""Every piece of cosinex Vergabemarktplatz markup the adapter relies on, in one place.

Last known structure (DTVP and the VMP hosts, public scrapers and documentation 2023-2026),
not a contract: when a live page differs, change it here and nothing else. The constructed
test pages in ``tests/data/portals/cosinex/`` follow exactly these values.
"""

from __future__ import annotations

import re

# -- URLs (relative to the host's base, e.g. https://www.dtvp.de/Satellite) ----------------------

LIST_PATH = "company/welcome.do"  # page 1: the newest announcements
PAGE_QUERY = {"method": "showTable", "fromSearch": "1"}  # pages 2..n add PAGE_PARAM=<n>
PAGE_PARAM = "selectedTablePagePROJECT_RESULT"
CATEGORY_LIST_PATH = "company/announcements/categoryOverview.do"  # one CPV category, no paging
CATEGORY_QUERY = {"method": "showTable"}
CPV_PARAM = "cpvCode"
NOTICE_PATH = "notice/{project_id}"  # short link of a project

# -- announcement list --------------------------------------------------------------------------

RESULT_TABLE = "table.csx-new-table"
PAGER_IN_ROW = "div.browsePages"
MIN_CELLS = 5
CELL_PUBLISHED = 0
CELL_DEADLINE = 1
CELL_TITLE = 2
CELL_TYPE = 3
CELL_PUBLISHER = 4
PAGE_COUNT = re.compile(r"Seite:?\s*(\d+)\s*von\s*(\d+)", re.IGNORECASE)
# A page is a list page when it has the table or says that nothing was found.
RESULT_MARKER = re.compile(r"csx-new-table|Keine (?:Ergebnisse|Eintr(?:ä|&auml;)ge|Bekanntmachungen)|Es wurden keine")
NO_RESULTS_TEXT = re.compile(r"Keine (?:Ergebnisse|Einträge|Bekanntmachungen)|Es wurden keine", re.IGNORECASE)
# Project links: ".../notice/CXP4Y9PRGS5", ".../project/CXS7YY6YTM1SY43C/de/overview" or projectForwarding.do?pid=…
PROJECT_ID = re.compile(r"CX[0-9A-Z]{6,}")
FORWARD_PARAM = "pid"
# "Frist" cell values meaning "no deadline" (compared case-insensitively, as prefixes).
NO_DEADLINE = ("nv", "n.v.", "keine", "die frist ist bei diesem verfahren nicht vorhanden")

# "Typ" cell -> what the notice announces (substrings, lower case, first match wins).
AWARD_TYPES = ("vergebener auftrag", "vergebene aufträge", "vergabeergebnis", "ex-post", "ex post", "zuschlag")
CANCELLATION_TYPES = ("aufhebung", "aufgehoben")
CHANGE_TYPES = ("berichtigung", "änderung")
PRIOR_TYPES = ("vorinformation", "ex-ante", "ex ante")
# Contracting rules that prefix the "Typ" cell ("VOB/A Ausschreibung", "VgV Vergebener Auftrag").
RULE_PREFIX = re.compile(r"^(VOB/A|VOB|VgV|UVgO|VOL/A|VOL|SektVO|VSVgV|KonzVgV|EU|national)\b[\s,:-]*", re.IGNORECASE)

# -- saved detail pages (overview) ----------------------------------------------------------------

DETAIL_HEADING = "h1"
CANONICAL_LINKS = "link[rel=canonical][href], meta[property='og:url'][content]"
LABELS = {
    "title": ("Kurzbezeichnung", "Bezeichnung", "Titel"),
    "description": (
        "Kurzbeschreibung",
        "Art und Umfang der Leistung",
        "Umfang der Beschaffung",
        "Beschreibung der Beschaffung",
        "Beschreibung",
    ),
    "buyer": ("Offizielle Bezeichnung", "Auftraggeber", "Vergabestelle", "Veröffentlicher"),
    "reference": ("Vergabenummer", "Aktenzeichen", "Projekt-ID"),
    "procedure": ("Verfahrensart", "Vergabeverfahren"),
    "cpv": ("CPV-Code Hauptteil", "CPV-Code Zusatzteil", "CPV-Codes", "CPV-Code", "CPV"),
    "place": ("Haupterfüllungsort", "Erfüllungsort", "Ort der Leistungserbringung", "Ort der Ausführung"),
    "nuts": ("NUTS-Code",),
    "value": ("Geschätzter Gesamtwert", "Geschätzter Wert", "Auftragswert"),
    "deadline": (
        "Schlusstermin für den Eingang der Angebote",
        "Angebotsfrist",
        "Abgabefrist",
        "Schlusstermin für den Eingang der Teilnahmeanträge",
    ),
    "questions": ("Frist für Bieterfragen", "Bieterfragen bis"),
    "published": ("Veröffentlichungsdatum", "Veröffentlicht am", "Veröffentlicht"),
    "type": ("Bekanntmachungsart", "Art der Bekanntmachung"),
}
