"""Which id a feed item is tracked by, and its link without what only tracks the click.

Why not simply the guid: RSS 2.0 makes ``<guid>`` optional and says nothing about what it holds.
Feeds generated from a portal's list often put the item's *title* there (or nothing); a buyer who
corrects a typo in the title would then publish a "new" tender. So, in order:

1. the notice id in a link whose form is known (service.bund.de ``/IMPORTE/Ausschreibungen/…/<id>.html``,
   RIB ``…/DetailsByPlatformIdAndTenderId/platformId/<p>/tenderId/<t>``), from the link or the guid;
2. the guid, unless it is empty or the item's title (or "Titel (Datum)": the title is in it);
3. the link, without tracking parameters (``utm_…``, ``#track=…``), so a campaign tag is no new tender;
4. the guid even when it is the title: better a fragile id than a skipped item.

Limit: a feed whose guid is the title *and* whose link changes with every poll (a session id in the
path) has no stable identity; its items may come back as new tenders.
"""

from __future__ import annotations

import hashlib
import re

from kernel.normalise import clean_text

MAX_NOTICE_ID = 200  # TenderSource.source_notice_id

# Ids are alphanumeric ("432613G349409"); a ";jsessionid=…" path parameter may follow.
SERVICE_BUND_LINK = re.compile(
    r"/IMPORTE/Ausschreibungen/([^/?#;]+)/(\d{4})/(\d{2})/([A-Za-z0-9_.-]+?)\.html?(?:[?#;]|$)"
)
# RIB's tender page, linked by the Vergabeplattform Berlin feeds (one platform serves several buyers).
RIB_LINK = re.compile(r"/DetailsByPlatformIdAndTenderId/platformId/(\d+)/tenderId/(\d+)(?:[/?#;]|$)", re.IGNORECASE)
# A fragment that only tells the site which feed the click came from ("#track=feed-callforbids").
_TRACKING_FRAGMENT = re.compile(r"#track=[^#]*$", re.IGNORECASE)
# Query parameters of web analytics and campaign links: never part of which page is meant.
_TRACKING_PARAMETER = re.compile(
    r"^(?:utm_\w+|mtm_\w+|pk_\w+|piwik_\w+|wt_\w+|wt\.\w+|fbclid|gclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi)$",
    re.IGNORECASE,
)


def without_tracking(url: str) -> str:
    """``url`` without a ``#track=…`` fragment and without analytics parameters in its query."""
    url = _TRACKING_FRAGMENT.sub("", url or "")
    head, question, rest = url.partition("?")
    if not question:
        return url
    query, hash_mark, fragment = rest.partition("#")
    kept = [pair for pair in query.split("&") if pair and not _TRACKING_PARAMETER.match(pair.split("=", 1)[0])]
    return head + (f"?{'&'.join(kept)}" if kept else "") + (f"#{fragment}" if hash_mark else "")


def notice_id(*, link: str, guid: str, title: str) -> str:
    """The id an item is tracked by (see the module docstring); "" when it has neither link nor guid."""
    for candidate in (link, guid):
        found = _known_link_id(candidate)
        if found:
            return found
    value = guid if guid and not guid_is_title(guid, title) else (link or guid)
    if len(value) > MAX_NOTICE_ID:
        return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()
    return value


def guid_is_title(guid: str, title: str) -> bool:
    """Whether a guid is (or starts with) the item's title: it changes when the title does."""
    folded_guid, folded_title = _fold(guid), _fold(title)
    return bool(folded_title) and (folded_guid == folded_title or folded_guid.startswith(folded_title))


def _known_link_id(url: str) -> str:
    match = SERVICE_BUND_LINK.search(url or "")
    if match:
        return match.group(4)
    match = RIB_LINK.search(url or "")
    if match:
        return f"rib:{match.group(1)}-{match.group(2)}"
    return ""


def _fold(text: str) -> str:
    return " ".join(clean_text(text).casefold().split())
