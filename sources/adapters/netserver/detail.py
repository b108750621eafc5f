"""NetServer detail pages -> ``DetailFacts``. Pure.

Every selector and label comes from :mod:`.selectors`. A page is read inside ``#printarea``/``#content-section``
when it has such a wrapper, else from its ``.tableContractNotice`` tables.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import parse_qsl, urlsplit

from sources.adapters.html import (
    HtmlPage,
    LabelValues,
    NoticeFacts,
    absolute_url,
    label_value_pairs,
    notice_facts,
    text_of,
)

from . import selectors
from .parse import SAFE_ID, TITLE_LIMIT


@dataclass(frozen=True)
class DetailFacts:
    oid: str
    facts: NoticeFacts = NoticeFacts()
    category: str = ""  # from the page's own links, when they name one
    documents_url: str = ""
    tender_oid: str = ""  # TenderOID of the documents link; DÖE notices link this one
    legal_framework: str = ""  # as shown ("VgV", "UVgO", …)


def refused_link_problems(page: HtmlPage, *, page_url: str, where: str) -> list[str]:
    """A problem per documents link of a detail page that is not http(s) (javascript:, data:, …)."""
    hrefs = [(a.get("href") or "").strip() for a in page.soup.select(selectors.DOCUMENTS_LINK)]
    return [
        f"{where}: documents link dropped (only http/https links are kept): {href[:120]}"
        for href in hrefs
        if href and href[0] != "#" and not absolute_url(page_url, href)
    ]


def parse_detail_page(page: HtmlPage, *, page_url: str) -> DetailFacts | None:
    """The facts of a detail page, or None when it has no notice rows or names no TOID/TenderOID.

    Rows are read inside ``#printarea``/``#content-section`` when the page has such a wrapper,
    else from the ``.tableContractNotice`` tables; numbered labels ("II.2.1) Geschätzter Wert")
    match their plain spelling.
    """
    containers = page.soup.select(selectors.DETAIL_WRAPPERS) or page.soup.select(selectors.DETAIL_TABLES)
    if not containers:
        return None
    links = [absolute_url(page_url, a.get("href")) for a in page.soup.select(selectors.DOCUMENTS_LINK)]
    tender_oid = next((oid for link in links if (oid := _query_value(link, selectors.DOCUMENTS_ID_PARAM))), "")
    oid = _page_oid(page, page_url) or tender_oid
    if not oid:
        return None
    values = LabelValues.of(label_value_pairs(containers))
    if not values.pairs:
        return None
    facts = notice_facts(values, selectors.LABELS)
    if not facts.title:
        facts = replace(facts, title=text_of(page.soup.select_one(selectors.DETAIL_HEADING), limit=TITLE_LIMIT))
    return DetailFacts(
        oid=oid,
        facts=facts,
        category=_page_category(page),
        documents_url=next((link for link in links if link), ""),
        tender_oid=tender_oid if SAFE_ID.fullmatch(tender_oid) else "",
        legal_framework=text_of(values.get(selectors.LABELS["legal_basis"]), limit=200),
    )


def _query_value(url: str, name: str) -> str:
    """The value of query parameter ``name`` (any case) in ``url``; "" if absent."""
    try:
        query = parse_qsl(urlsplit(url.replace("&amp;", "&")).query)
    except ValueError:
        return ""
    return next((value.strip() for key, value in query if key.lower() == name.lower()), "")


def _page_oid(page: HtmlPage, page_url: str) -> str:
    """The publication's TOID: from the page URL, a link or form field naming it; never the TenderOID.

    The TenderOID of the documents link may be another string than the list's TOID
    ("…-NetTender-…" vs "…-Tender-…"); it is kept apart as ``tender_oid``.
    """
    candidates = [page_url, *(str(a.get("href")) for a in page.soup.find_all("a", href=True))]
    for url in candidates:
        value = _query_value(url, selectors.DETAIL_ID_PARAM)
        if SAFE_ID.fullmatch(value):
            return value
    for element in page.soup.find_all("input", attrs={"name": selectors.DETAIL_ID_PARAM}):
        value = str(element.get("value") or "").strip()
        if SAFE_ID.fullmatch(value):
            return value
    for element in page.soup.find_all("input", attrs={"name": selectors.DOCUMENTS_ID_PARAM}):
        value = str(element.get("value") or "").strip()
        if SAFE_ID.fullmatch(value):
            return value
    return ""


def _page_category(page: HtmlPage) -> str:
    for a in page.soup.find_all("a", href=True):
        query = dict(parse_qsl(urlsplit(str(a["href"]).replace("&amp;", "&")).query))
        if query.get(selectors.CATEGORY_PARAM) in selectors.CATEGORIES:
            return query[selectors.CATEGORY_PARAM]
    return ""
