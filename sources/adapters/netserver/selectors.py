"""Every piece of NetServer (AI Vergabe@Net) markup the adapter relies on, in one place.

Last known structure, from public scrapers and portal documentation (2023-2026), not a
contract: when a live page differs, change it here and nothing else. The constructed test
pages in ``tests/data/portals/netserver/`` follow exactly these values.

Three list layouts are known (``tests/data/portals/README.md``, "What other public clients
report"): a six-cell table (date, title, Vergabestelle, procedure, legal framework, deadline;
vergabe.autobahn.de, vergabekooperation.berlin, tender24), a five-cell table whose one
``td.tenderType`` holds "Rechtsrahmen, Verfahrensart" (vergabe.landbw.de, vergabe.vmstart.de,
vergabe.stadt-frankfurt.de) and cards (``div[role=listitem][data-oid]``, vergabe.hessen.de).
Cells are read by their class, then by their column's header text, never by position alone.
"""

from __future__ import annotations

import re

# -- URLs (relative to the host's ``/NetServer/`` base) ------------------------------------------

SEARCH_PATH = "PublicationSearchControllerServlet"
# Newest first only when the URL asks for it (public clients report another order otherwise).
SEARCH_QUERY = {"function": "SearchPublications", "Gesetzesgrundlage": "All", "OrderBy": "Publishing", "Order": "desc"}
DETAIL_PATH = "PublicationControllerServlet"
DETAIL_QUERY = {"function": "Detail"}
DETAIL_ID_PARAM = "TOID"
DOCUMENTS_PATH = "TenderingProcedureDetails"
DOCUMENTS_QUERY = {"function": "_DownloadTenderDocuments"}
DOCUMENTS_ID_PARAM = "TenderOID"
CATEGORY_PARAM = "Category"
CONTEXT_PARAM = "thContext"
START_PARAM = "Start"
MAX_PARAM = "Max"

# Category -> thContext of the public search.
CATEGORIES = {
    "InvitationToTender": "publications",
    "ContractAward": "awardPublications",
    "PriorInformation": "preinformations",
}

# -- result page -------------------------------------------------------------------------------

RESULT_TABLE = "table.tableHorizontalHeader"
RESULT_ROW = "tr.tableRow.clickable-row.publicationDetail"
ROW_ID_ATTR = "data-oid"
ROW_CATEGORY_ATTR = "data-category"
# A table row with fewer direct ``td`` cells is a layout row (pager, spacer), not a result.
MIN_CELLS = 5
# Cell roles. A cell's class decides first; "tenderType" cells are refined by their header.
ROLE_PUBLISHED, ROLE_TITLE, ROLE_BUYER, ROLE_TYPE, ROLE_DEADLINE = "published", "title", "buyer", "type", "deadline"
ROLE_PROCEDURE, ROLE_LEGAL, ROLE_COMBINED = "procedure", "legal", "combined"  # kinds of "type" cell
CELL_CLASS_ROLES = {
    "tender": ROLE_TITLE,
    "tenderAuthority": ROLE_BUYER,
    "tenderType": ROLE_TYPE,
    "tenderDeadline": ROLE_DEADLINE,
    "tenderPublication": ROLE_PUBLISHED,
    "publicationDate": ROLE_PUBLISHED,
}
# Header texts (``th`` of the table's header row), matched case-insensitively from the start;
# most specific first: "Rechtsrahmen, Verfahrensart" is one combined column.
HEADER_ROLES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), role)
    for pattern, role in (
        (r"^(Rechtsrahmen|Vergabeordnung|Rechtsgrundlage)\s*[,/]\s*(Verfahrensart|Vergabeart)", ROLE_COMBINED),
        (r"^(Verfahrensart|Vergabeart)\s*[,/]\s*(Rechtsrahmen|Vergabeordnung)", ROLE_COMBINED),
        (r"^(Rechtsrahmen|Vergabeordnung|Rechtsgrundlage|Gesetzesgrundlage)", ROLE_LEGAL),
        (r"^(Verfahrensart|Vergabeart|Verfahren)\b", ROLE_PROCEDURE),
        (r"^(Art)\b", ROLE_TYPE),
        (r"^(nächste Frist|Frist|Abgabefrist|Angebotsfrist|Teilnahmefrist|Ablauf)", ROLE_DEADLINE),
        (r"^(Veröffentlich|Erschienen|Datum|Publiziert)", ROLE_PUBLISHED),
        (r"^(Vergabestelle|Auftraggeber)", ROLE_BUYER),
        (r"^(Ausschreibung|Bezeichnung|Titel|Kurzbezeichnung|Bekanntmachung)", ROLE_TITLE),
    )
)
# A combined "type" cell: "UVgO, Öffentliche Ausschreibung" (legal framework, procedure).
COMBINED_SEPARATOR = re.compile(r"\s*,\s*")

# Card layout (vergabe.hessen.de): one block per notice, labelled lines inside.
CARD = "div[role=listitem][data-oid]"
CARD_ANY = "[role=listitem]"  # cards without a data-oid are rejected rows, not "nothing"
CARD_TITLE = "p.mb-3"
CARD_LABELS = {
    ROLE_TYPE: ("Art",),
    ROLE_BUYER: ("Vergabestelle", "Auftraggeber"),
    ROLE_DEADLINE: ("Abgabefrist", "Angebotsfrist", "Frist"),
    ROLE_PUBLISHED: ("Veröffentlicht", "Veröffentlichung", "Erschienen am", "Datum"),
}
# Cards print dates as dd/mm/yyyy.
SLASH_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")

# Layout names recorded on the run (FetchRun.layout, yield report).
LAYOUT_TABLE = "table-{cells}"
LAYOUT_CARDS = "cards"
LAYOUT_EMPTY = "empty"
LAYOUT_UNKNOWN = "unknown"
# A page is a result page when it has the result table or says that nothing was found.
RESULT_MARKER = re.compile(
    r"tableHorizontalHeader|role=[\"']?listitem"
    r"|Keine (?:Ergebnisse|Bekanntmachungen|Ausschreibungen|Eintr(?:ä|&auml;)ge) gefunden|Es wurden keine",
    re.IGNORECASE,
)
NO_RESULTS_TEXT = re.compile(
    r"Keine (?:Ergebnisse|Bekanntmachungen|Ausschreibungen|Einträge) gefunden|Es wurden keine", re.IGNORECASE
)
# Links carrying ``Start=<offset>``: paging; the next page is the smallest Start above the current.
PAGING_LINK = "a[href*='Start=']"

# -- detail page --------------------------------------------------------------------------------

DETAIL_MARKER = re.compile(r"tableContractNotice|id=[\"']?(?:printarea|content-section)")
# The notice's label/value rows: inside a wrapper when the page has one (``#printarea`` on some hosts,
# ``#content-section`` on the card layout), else the contract-notice tables themselves.
DETAIL_WRAPPERS = "#printarea, #content-section"
DETAIL_TABLES = "table.tableContractNotice"
DETAIL_SECTION_HEAD = "tr.tableNoticeHead"
DETAIL_HEADING = "#pagePublicationDetails h2, .col-lg-12 > h2, #content-section h1, #content-section h2"
DOCUMENTS_LINK = ".downloadDocuments a[href]"

# Label spellings per field, most specific first (matched case- and colon-insensitively).
LABELS = {
    "title": ("Bezeichnung des Auftrags", "Bezeichnung", "Titel", "Kurzbezeichnung"),
    "description": (
        "Beschreibung der Beschaffung",
        "Kurze Beschreibung",
        "Art und Umfang der Leistung",
        "Auftragsgegenstand",
        "Beschreibung",
    ),
    "buyer": ("Offizielle Bezeichnung", "Vergabestelle", "Auftraggeber", "Name und Anschrift"),
    "reference": ("Vergabenummer", "Aktenzeichen"),
    "cpv": ("CPV-Code Hauptteil", "CPV-Code Zusatzteil", "CPV-Codes", "CPV-Code", "CPV"),
    "place": ("Ort der Ausführung", "Erfüllungsort", "Ort der Leistungserbringung", "Hauptort der Ausführung"),
    "nuts": ("NUTS-Code",),
    "value": (
        "Gesamtwert der Beschaffung",
        "Geschätzter Auftragswert",
        "Geschätzter Gesamtwert",
        "Geschätzter Wert",
        "Auftragswert",
    ),
    "deadline": (
        "Ablauf der Angebotsfrist",
        "Angebotsfrist",
        "Schlusstermin für den Eingang der Angebote",
        "Frist für den Eingang der Angebote",
        "Abgabefrist",
    ),
    "questions": ("Frist für Bieterfragen", "Bieterfragen bis"),
    "published": ("Tag der Veröffentlichung", "Veröffentlichungsdatum", "Tag der Absendung dieser Bekanntmachung"),
    "procedure": ("Verfahrensart", "Vergabeart"),
    "legal_basis": ("Rechtsrahmen", "Rechtsgrundlage", "Vergabeordnung", "Verfahrensordnung"),
}
