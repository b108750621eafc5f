"""Every piece of DTVP public-list markup the reader relies on, in one place.

Last known structure, from one public client that states it checked the live site on 4/5 Sep 2026
(trh2mbf846-commits/Crawler, ``backend/app/agents/connector/dtvp.py`` @ a9810cc1; read, not copied;
summarised in the shared portals README, "DTVP: the public list pages"). Not a contract: when a
live page differs, change it here and nothing else. The constructed test pages in
``tests/data/portals/dtvp/`` follow exactly these values.
"""

from __future__ import annotations

import re

# -- URLs ------------------------------------------------------------------------------------------

# The WordPress site at the host root (the client reads https://dtvp.de/…; the cosinex
# applications stay under www.dtvp.de/Satellite and /Center).
DEFAULT_LIST_ROOT = "https://dtvp.de/ausschreibungen/cpv"
PUBLIC_HOSTS = ("dtvp.de", "www.dtvp.de")
# A category page is "<root>/<slug>-<cpv with check digit>/"; pages 2..n add "page/<n>/".
CATEGORY_PATH = "{root}/{category}/"
PAGE_PATH = "{root}/{category}/page/{page}/"
CATEGORY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*-(\d{8}-\d)")
# The categories that client found and read (its breadcrumbs, 4 Sep 2026): IT services,
# engineering offices, management consultancy. Slugs follow WordPress (umlauts as ae/oe/ue).
DEFAULT_CATEGORIES = (
    "it-dienste-beratung-software-entwicklung-internet-und-hilfestellung-72000000-5",
    "dienstleistungen-von-ingenieurbueros-71300000-1",
    "unternehmens-und-managementberatung-und-zugehoerige-dienste-79400000-8",
)
ENTRIES_PER_PAGE = 16  # as reported; only informative (paging follows rel=next)

# -- list pages ------------------------------------------------------------------------------------

ENTRY = 'article[role="article"]'
ENTRY_ID_PREFIX = "post_"
TITLE_LINK = "h5.title a"
# Each value follows its icon inside the same parent element ("<span><i class="bi bi-house"></i> …</span>").
ICON_BUYER = "i.bi-house"
ICON_PROCEDURE = "i.bi-book"
ICON_DEADLINE = "i.bi-calendar-check"
ICON_PLACE = "i.bi-geo-alt"
# Teaser entries for non-members are blurred: their text is not the notice's. Kept out, counted.
BLURRED_CLASS = "is-blurred"
BLURRED = ".is-blurred"
NEXT_PAGE = "link[rel=next][href]"
# A list page: an entry or the WordPress "nothing found" text.
LIST_MARKER = re.compile(r"""role=["']article["']|Keine Ausschreibungen|Nichts gefunden|keine Ergebnisse""", re.I)
NO_RESULTS_TEXT = re.compile(r"Keine Ausschreibungen|Nichts gefunden|Es wurden keine|keine Ergebnisse", re.I)
# Words the deadline line may carry before its date ("Frist: 28.09.2026 12:00").
NO_DEADLINE = ("keine", "nv", "n.v.", "-")

# -- the CX id -------------------------------------------------------------------------------------

# The cosinex project id in the detail link: a path segment or query value "CX…", or the end of a
# WordPress slug ("…-cxp4y9prgs5"); slugs are lower case, the id is upper case everywhere else.
CX_IN_LINK = re.compile(r"(?:^|-)(cx[0-9a-z]{6,})$", re.IGNORECASE)
CX_ID = re.compile(r"CX[0-9A-Z]{6,}")
SATELLITE_NOTICE = "https://www.dtvp.de/Satellite/notice/{project_id}"

# -- detail pages ----------------------------------------------------------------------------------

DETAIL_TITLE = "h1"
DETAIL_DESCRIPTION = "div.dtvp21-cc-oc-desc-content"
DETAIL_LABEL = "h6"
DETAIL_MARKER = re.compile(r"dtvp21-cc-oc-desc-content|<h6", re.IGNORECASE)
DETAIL_LINKS = "a[href], link[rel=canonical][href]"
# h6 label -> field; the value is the label's next sibling element (a <p> on the pages seen).
LABELS = {
    "cpv": ("CPV-Code", "CPV-Codes"),
    "deadline": ("Abgabefrist", "Angebotsfrist"),
    "procedure": ("Vergabeart", "Verfahrensart"),
    "buyer": ("Mandant", "Vergabestelle"),
    "place": ("Ort der Ausführung",),
}
