"""Exact cross-portal ids hidden in links (NetServer TenderOID, cosinex CX ids).

A DÖE/TED notice that links to the portal where the procedure runs identifies
that portal's record exactly; the merge rules use these ids instead of fuzzy
title matching. :func:`portal_references_from_urls` is pure and shared by every
adapter that sees URLs (eForms, OCDS, portal pages, mails).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from urllib.parse import parse_qsl, urlsplit

from lxml import etree

_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
_COSINEX_ID = re.compile(r"CX[0-9A-Z]{6,}")
_NETSERVER_KEYS = {"tenderoid", "toid"}
_NETSERVER_OID = re.compile(r"\d+-\w*Tender-[\w-]+")
_SAFE_ID = re.compile(r"[\w.-]+")


def portal_references_from_urls(urls: Iterable[str | None]) -> tuple[str, ...]:
    """``"netserver:<TenderOID>"`` / ``"cosinex:<CX id>"`` for every portal link, deduplicated, in order.

    NetServer (Vergabe@Net): query parameter ``TenderOID`` or ``TOID`` (any case) on a
    ``/NetServer/`` path, or on any path when the value has NetServer's
    ``<digits>-…Tender-…`` shape. cosinex (DTVP and the Vergabemarktplätze): a path
    segment or query value that is ``CX`` followed by at least six of [0-9A-Z].
    ``&amp;`` left over from HTML is tolerated; unparsable strings are skipped.
    """
    refs: list[str] = []
    for url in urls:
        if url:
            refs.extend(_references_in_url(url))
    return tuple(dict.fromkeys(refs))


def document_urls(root: etree._Element) -> Iterator[str]:
    """Every URL in any element text: URI elements, EndpointIDs and links pasted into free text."""
    for el in root.iter(etree.Element):
        if el.text and len(el.text) > 4:
            for match in _URL.findall(el.text):
                yield match.rstrip(".,;:)]}")


def _references_in_url(url: str) -> list[str]:
    # Nearly every link names neither portal; substring tests spare those the URL parse
    # ("%" keeps percent-encoded keys and values on the exact path).
    lowered = url.lower()
    if "CX" not in url and "toid" not in lowered and "tenderoid" not in lowered and "%" not in url:
        return []
    try:
        parts = urlsplit(url.strip().replace("&amp;", "&"))
        query = parse_qsl(parts.query)
    except ValueError:
        return []
    on_netserver = "/netserver" in parts.path.lower()
    refs = [
        f"netserver:{value}"
        for key, value in query
        if key.lower() in _NETSERVER_KEYS
        and _SAFE_ID.fullmatch(value)
        and (on_netserver or _NETSERVER_OID.fullmatch(value))
    ]
    candidates = [*parts.path.split("/"), *(value for _, value in query)]
    refs.extend(f"cosinex:{c}" for c in candidates if _COSINEX_ID.fullmatch(c))
    return refs
