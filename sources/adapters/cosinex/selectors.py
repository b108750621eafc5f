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
CATEGORY_LIST_PATH = "company/announcements/categoryOverview.do"  # one CPV category
CATEGORY_QUERY = {"method": "showTable"}
CPV_PARAM = "cpvCode"
# Pages 2..n of a CPV category: the pager's own target is
# "categoryOverview.do?method=showTable&fromSearch=1&selectedTablePagePROJECT_RESULT=<n>" (no cpvCode:
# the portal keeps the category in the session); public clients add cpvCode so that a page stands
# on its own, and so do we: ?method=showTable&cpvCode=<code>&fromSearch=1&selectedTablePagePROJECT_RESULT=<n>.
CATEGORY_PAGE_QUERY = {"fromSearch": "1"}
NOTICE_PATH = "notice/{project_id}"  # short link of a project

# -- announcement list --------------------------------------------------------------------------

RESULT_TABLE = "table.csx-new-table"
PAGER_IN_ROW = "div.browsePages"
# Result rows come in two shapes (role -> cell index); the link may sit in any cell.
# Five or more cells: Veröffentlicht | Frist | Kurzbezeichnung | Typ | Veröffentlicher | link.
MIN_CELLS = 5
COLUMNS = {"published": 0, "deadline": 1, "title": 2, "type": 3, "publisher": 4}
# Four cells: a procedure that is over has no "Frist" cell. A GIZ-portal client (2026, read, not
# copied) reads awarded/closed rows as Veröffentlicht | Kurzbezeichnung | Typ | Veröffentlicher with
# the projectForwarding.do?pid= link in the row. Such a row is read only when its "Typ" names an
# award or a cancellation (:data:`AWARD_ROW_KINDS`); any other four-cell row is rejected with its
# reason, so a shift of the columns is counted, never read into the wrong fields.
AWARD_ROW_CELLS = 4
AWARD_COLUMNS = {"published": 0, "title": 1, "type": 2, "publisher": 3}
PAGE_COUNT = re.compile(r"Seite:?\s*(\d+)\s*von\s*(\d+)", re.IGNORECASE)
# The pager's links have no href: "javascript:void(0)" with onclick="setTargetAndSubmit('…
# selectedTablePagePROJECT_RESULT=<n>')". Without a "Seite: X von Y" text, the highest page such a
# link names tells that the list goes on at least that far.
PAGER_LINKS = "a[onclick], a[href]"
PAGER_TARGET = re.compile(r"selectedTablePagePROJECT_RESULT=(\d+)")
# A page is a list page when it has the table or says that nothing was found.
RESULT_MARKER = re.compile(r"csx-new-table|Keine (?:Ergebnisse|Eintr(?:ä|&auml;)ge|Bekanntmachungen)|Es wurden keine")
NO_RESULTS_TEXT = re.compile(r"Keine (?:Ergebnisse|Einträge|Bekanntmachungen)|Es wurden keine", re.IGNORECASE)
# Project links: ".../notice/CXP4Y9PRGS5", ".../project/CXS7YY6YTM1SY43C/de/overview" or projectForwarding.do?pid=…
PROJECT_ID = re.compile(r"CX[0-9A-Z]{6,}")
FORWARD_PARAM = "pid"
# "Frist" cell values meaning "no deadline" (compared case-insensitively, as prefixes).
NO_DEADLINE = ("nv", "n.v.", "keine", "die frist ist bei diesem verfahren nicht vorhanden")

# "Typ" cell -> what the notice announces (substrings, lower case, first match wins).
# "ExPost"/"ExAnte" are the publication types of the JSON search; public clients (2026: the VMP
# Brandenburg/NRW client of KWB-R/kwb.tenders, and others) name their list labels: "ExAnte" =
# "Beabsichtigte Ausschreibung" (also shown as "Geplante Ausschreibung"), "Tender" = "Ausschreibung",
# "ExPost" = "Vergebener Auftrag".
AWARD_TYPES = (
    "vergebener auftrag",
    "vergebene aufträge",
    "vergabeergebnis",
    "ex-post",
    "ex post",
    "expost",
    "zuschlag",
)
CANCELLATION_TYPES = ("aufhebung", "aufgehoben")
CHANGE_TYPES = ("berichtigung", "änderung")
PRIOR_TYPES = (
    "vorinformation",
    "ex-ante",
    "ex ante",
    "exante",
    "beabsichtigte ausschreibung",
    "geplante ausschreibung",
)
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
    "cpv": (
        "CPV-Code Hauptteil",
        "CPV-Code Zusatzteil",
        "CPV-Codes",
        "CPV-Code",
        "CPV",
        "Auftragsgegenstand",  # Satellite project pages: one control-group per code
        "Subject matter of the contract",
    ),
    "place": ("Haupterfüllungsort", "Erfüllungsort", "Ort der Leistungserbringung", "Ort der Ausführung"),
    "nuts": ("NUTS-Code",),
    "value": ("Geschätzter Gesamtwert", "Geschätzter Wert", "Auftragswert"),
    "deadline": (
        "Schlusstermin für den Eingang der Angebote",
        "Angebotsfrist",
        "Abgabefrist",
        "Schlusstermin für den Eingang der Teilnahmeanträge",
        "Submission deadline",
    ),
    "questions": ("Frist für Bieterfragen", "Bieterfragen bis"),
    "published": ("Veröffentlichungsdatum", "Veröffentlicht am", "Veröffentlicht"),
    "type": ("Bekanntmachungsart", "Art der Bekanntmachung"),
}

# -- Satellite project pages (the page behind a list row's projectForwarding.do?pid=<n>) ---------
#
# Reported by public clients (2026, GIZ/NRW/Niedersachsen pages; read, not copied):
# ``public/company/projectForwarding.do?pid=<n>`` answers 302 to
# ``public/company/project/<CX…>/de/overview`` (an unknown pid: 404, empty body); the page's
# <title> starts with the CX id ("CX… | <title> | <host>"). The page is built from divs:
#
#   <div class="sub-headline-container"><h4 class="sub-headline"><span>Abgabefrist</span></h4></div>
#   <div class="control-group">28.09.2023 10:00</div>                 ("nv" = no deadline)
#   <div class="sub-headline-container"><h4 class="sub-headline"><span>Auftragsgegenstand</span></h4></div>
#   <div class="control-group"><p><b>45112000-5</b> Aushub- und Erdbewegungsarbeiten</p></div>
#
# i.e. a section is the heading's container plus the ``.control-group`` siblings up to the next
# heading container; inside a group, ``label.control-label`` + ``.controls`` are label/value pairs.
# The documents are a tab linking ``…/project/<CX>/de/documents`` ("Vergabeunterlagen").
FORWARD_PATH = "public/company/projectForwarding.do"
PROJECT_IN_URL = re.compile(r"/project/(CX[0-9A-Z]{6,})(?:/|$)")
PROJECT_TITLE = re.compile(r"^\s*(CX[0-9A-Z]{6,})\s*\|")
# A project page (any of the old dl/table pages or the div layout): not a login or error page.
PROJECT_MARKER = re.compile(r"sub-headline|control-group|/project/CX")
SECTION_CONTAINER_CLASS = "sub-headline-container"
SECTION_HEADING = "h4.sub-headline"
SECTION_VALUE_CLASS = "control-group"
CONTROL_GROUP = "div.control-group"
CONTROL_LABEL = "label.control-label"
CONTROL_VALUE = ".controls"
DOCUMENTS_LINK = "a[href*='/documents']"

# -- Center hosts (DTVP /Center, /VMPCenter): the JSON search the result page itself calls -------
#
# Center hosts build the result list in the browser; a plain GET of the list returns an empty
# shell. Public clients (2026: a DTVP client and an evergabe.nrw client, read, not copied) read
# the list through the JSON search the page uses:
#
# 1. GET a search page in a session (cookies kept for the run); the page carries the search token
#    in ``<input id="token" value="…">``. One client reports the token only on the SECOND visit
#    within the same session, so the page is visited at most twice before another page is tried.
# 2. POST ``{base}/api/v2/project/search`` with header ``X-JWT: <token>`` and a JSON body:
#      {"pageNumber": 1, "pageSize": 100, "searchText": "",
#       "publicationTypes": ["ExAnte", "Tender"], "contractingRules": null, "cpvCodes": null, "location": null,
#       "sort": {"order": [{"property": "PROJECT_PUBLICATION_DATE_LNG", "direction": "DESC"}]}}
# 3. The answer: {"projects": [{"projectId", "title", "publishingDate", "relevantDate",
#    "organisationName", "contractingRule", "publicationType", "links": {"ENTER_PROJECTROOM" or
#    "enterprojectroom"}, …}],
#    "allPages": n, "countOfAllDataSets": m}. Dates were seen as "dd.mm.yyyy[ HH:MM]".
#
# Not independently verified (no live access when written). Without a token, or when the search
# answers 401/403, the run ends in the state "nicht unterstützt: Ergebnisliste nur im Browser".
# The constructed fixture ``tests/data/portals/cosinex/center/`` follows exactly this shape.
CENTER_PATHS = ("/Center", "/VMPCenter")
# Another client (raedmokdad/PVProjects, portals/cosinex.py @ d8ffe8ee, 2026) takes the token from
# "categoryOverview.do?method=show" (after a visit of company/welcome.do in the same session).
CENTER_TOKEN_PAGES = (
    "common/project/search.do?method=showExtendedSearch&fromExternal=true",
    "company/announcements/categoryOverview.do?method=showCategoryOverview",
    "company/announcements/categoryOverview.do?method=show",
)
CENTER_TOKEN_VISITS = 2  # per token page
CENTER_TOKEN_INPUT = "input#token"  # noqa: S105 (a selector, not a secret)
CENTER_SEARCH_PATH = "api/v2/project/search"
CENTER_TOKEN_HEADER = "X-JWT"  # noqa: S105 (a header name)
CENTER_PAGE_SIZE = 100
CENTER_SORT = {"order": [{"property": "PROJECT_PUBLICATION_DATE_LNG", "direction": "DESC"}]}
# Prior information ("ExAnte", recorded as NoticeKind.PRIOR_INFORMATION) and tenders, as the public
# clients ask; awards ("ExPost") are not asked for (no client reads them from this search).
CENTER_PUBLICATION_TYPES = ["ExAnte", "Tender"]
# The project's link in the answer: "ENTER_PROJECTROOM" (upper case, read first by one client) or
# "enterprojectroom"; keys are compared in this order, then without regard to case and "_".
CENTER_LINK_KEYS = ("ENTER_PROJECTROOM", "enterprojectroom")
CENTER_FORWARD_PATH = "public/company/projectForwarding.do?pid={project_id}"
