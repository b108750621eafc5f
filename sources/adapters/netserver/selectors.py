"""Every piece of NetServer (AI Vergabe@Net) markup the adapter relies on, in one place.

Last known structure, from public scrapers and portal documentation (2023-2026), not a
contract: when a live page differs, change it here and nothing else. The constructed test
pages in ``tests/data/portals/netserver/`` follow exactly these values.
"""

from __future__ import annotations

import re

# -- URLs (relative to the host's ``/NetServer/`` base) ------------------------------------------

SEARCH_PATH = "PublicationSearchControllerServlet"
SEARCH_QUERY = {"function": "SearchPublications", "Gesetzesgrundlage": "All"}
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
# Direct ``td`` cells of a row, in order (0-based).
CELL_PUBLISHED = 0
CELL_TITLE = 1
CELL_BUYER = 2
CELL_PROCEDURE = 3
CELL_LEGAL_FRAMEWORK = 4
CELL_DEADLINE = 5
MIN_CELLS = 6
# Class names that confirm the positions above where a row carries them.
CELL_CLASSES = {CELL_TITLE: "tender", CELL_BUYER: "tenderAuthority", CELL_DEADLINE: "tenderDeadline"}
# A page is a result page when it has the result table or says that nothing was found.
RESULT_MARKER = re.compile(
    r"tableHorizontalHeader|Keine (?:Ergebnisse|Bekanntmachungen|Ausschreibungen|Eintr(?:ä|&auml;)ge) gefunden"
    r"|Es wurden keine",
    re.IGNORECASE,
)
NO_RESULTS_TEXT = re.compile(
    r"Keine (?:Ergebnisse|Bekanntmachungen|Ausschreibungen|Einträge) gefunden|Es wurden keine", re.IGNORECASE
)
# Links carrying ``Start=<offset>``: paging; the next page is the smallest Start above the current.
PAGING_LINK = "a[href*='Start=']"

# -- detail page --------------------------------------------------------------------------------

DETAIL_MARKER = "tableContractNotice"
DETAIL_TABLES = "table.tableContractNotice"
DETAIL_SECTION_HEAD = "tr.tableNoticeHead"
DETAIL_HEADING = "#pagePublicationDetails h2, .col-lg-12 > h2"
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
    "value": ("Gesamtwert der Beschaffung", "Geschätzter Auftragswert", "Geschätzter Gesamtwert", "Auftragswert"),
    "deadline": (
        "Ablauf der Angebotsfrist",
        "Angebotsfrist",
        "Schlusstermin für den Eingang der Angebote",
        "Frist für den Eingang der Angebote",
    ),
    "questions": ("Frist für Bieterfragen", "Bieterfragen bis"),
    "published": ("Tag der Veröffentlichung", "Veröffentlichungsdatum", "Tag der Absendung dieser Bekanntmachung"),
    "procedure": ("Verfahrensart", "Vergabeart"),
}
