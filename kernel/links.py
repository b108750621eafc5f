"""Links in foreign notices: which are safe to keep, and the exact cross-portal ids they carry.

Every link a foreign notice brings ends up as an ``href`` somewhere (portal, alert mail,
admin), so only ``http``/``https`` links with a host are kept (``safe_link``), read as browsers
read them (``kernel.urls``); anything else (``javascript:``, ``data:``, ``vbscript:``, relative
or host-less links, control characters that browsers strip before reading the scheme,
``user:pass@`` before the host, a backslash that browsers read as "/") is dropped at the ingest
boundary (``records_links_checked``) with a problem the caller records on its run.

A DÖE/TED notice that links to the portal where the procedure runs identifies
that portal's record exactly; the merge rules use these ids instead of fuzzy
title matching. Everything here is pure and shared by every parser and adapter
that sees URLs (eForms, OCDS, TED, portal pages, RSS, mails), so a link means the
same wherever it is found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from kernel.urls import link_refusal

_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
_COSINEX_ID = re.compile(r"CX[0-9A-Z]{6,}")
_NETSERVER_KEYS = {"tenderoid", "toid"}
_NETSERVER_OID = re.compile(r"\d+-\w*Tender-[\w-]+")
_SAFE_ID = re.compile(r"[\w.-]+")
LINK_FIELDS = ("url", "documents_url")  # the record fields rendered as links


def safe_link(url: object) -> str:
    """``url`` (outer whitespace removed) when it may be stored and rendered as a link, else "".

    The rule is ``kernel.urls.link_refusal``: an http(s) link with a host as browsers read it
    (WHATWG), no user name or password, no control characters, no backslash before the query.
    """
    if not isinstance(url, str) or link_refusal(url) is not None:
        return ""
    return url.strip()


@dataclass(frozen=True)
class LinksChecked:
    records: tuple  # NoticeRecord values, unsafe links emptied
    problems: tuple[str, ...]


def records_links_checked(records: Iterable) -> LinksChecked:
    """The records with every unsafe ``url``/``documents_url`` emptied, and one problem per dropped link."""
    checked, problems = [], []
    for record in records:
        changes = {}
        for name in LINK_FIELDS:
            value = getattr(record, name)
            if value and (refused := link_refusal(value)) is not None:
                changes[name] = ""
                problems.append(
                    f"{record.source}:{record.source_notice_id}: {name} {value[:120]!r} {refused.sentence}; dropped"
                )
        checked.append(record.replace(**changes) if changes else record)
    return LinksChecked(records=tuple(checked), problems=tuple(problems))


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


def urls_in_text(text: str) -> list[str]:
    """Every http(s) or www. link in a text, without trailing punctuation."""
    return [match.rstrip(".,;:)]}") for match in _URL.findall(text)]


def urls_in_json(node: Any, depth: int = 0) -> list[str]:
    """Every link in any string of a JSON document (documents, contact points, free text), in order."""
    if depth > _JSON_DEPTH:  # hostile nesting
        return []
    if isinstance(node, str):
        return _urls_in_string(node)
    urls: list[str] = []
    if isinstance(node, (dict, list)):
        _collect_urls(node, depth, urls)
    return urls


_JSON_DEPTH = 40


def _urls_in_string(text: str) -> list[str]:
    # Most strings hold no link; the substring tests are far cheaper than the pattern.
    return urls_in_text(text) if "://" in text or "www." in text.lower() else []


def _collect_urls(node: dict | list, depth: int, urls: list[str]) -> None:
    # One list filled in place: a document has hundreds of values and a handful of links, and
    # building a list per value cost more than the pattern. A value counts at ``depth + 1``.
    for value in node.values() if isinstance(node, dict) else node:
        if isinstance(value, str):
            if depth < _JSON_DEPTH and ("://" in value or "www." in value.lower()):
                urls.extend(urls_in_text(value))
        elif isinstance(value, (dict, list)) and depth < _JSON_DEPTH:
            _collect_urls(value, depth + 1, urls)


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
