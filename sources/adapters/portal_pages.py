"""One tender's page on its portal, named by a portal reference: where it is, and what it says. Pure.

An alert mail only points (``netserver:<TenderOID>``, ``cosinex:<CX id>``); what the tender is comes
from the portal's own page, read by the portal Source's adapter code. The page URL is built from the
Source's ``base_url`` and the reference's id, never taken from the mail: the mail chooses which tender,
never which page of which host. A page that does not name the referenced id is refused (a portal
that serves another notice, or a list, under that URL gives nothing).
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from kernel.network import Blocked, FetchResult, detect_wall
from kernel.records import NoticeRecord
from sources.adapters.base import AdapterError
from sources.adapters.cosinex import options as cosinex_options
from sources.adapters.cosinex import parse as cosinex_parse
from sources.adapters.cosinex import selectors as cosinex_selectors
from sources.adapters.html import parse_html
from sources.adapters.netserver import detail as netserver_detail
from sources.adapters.netserver import options as netserver_options
from sources.adapters.netserver import record as netserver_record
from sources.adapters.netserver import selectors as netserver_selectors

__all__ = ["PAGE_FAMILIES", "page_record", "page_url"]

# Portal family of a reference -> adapter type of the Sources that can read its pages.
PAGE_FAMILIES = {"netserver": "netserver", "cosinex": "cosinex"}


def page_url(*, family: str, portal_id: str, base_url: str, link: str = "") -> str:
    """The page of ``portal_id`` on the Source at ``base_url`` ("" for a family without pages)."""
    if family == "netserver":
        category = _query(link, netserver_selectors.CATEGORY_PARAM)
        if category not in netserver_selectors.CATEGORIES:
            category = "InvitationToTender"
        return netserver_options.detail_url(base_url, oid=portal_id, category=category)
    if family == "cosinex":
        return cosinex_options.notice_url(base_url.rstrip("/"), portal_id)
    return ""


def page_record(*, family: str, source: str, base_url: str, portal_id: str, result: FetchResult) -> NoticeRecord:
    """The record of the fetched page; ``Blocked`` for a wall, ``AdapterError`` for a page of something else."""
    page = parse_html(result.body, content_type=result.content_type, label=result.url)
    marker = netserver_selectors.DETAIL_MARKER if family == "netserver" else cosinex_selectors.PROJECT_MARKER
    wall = detect_wall(requested_url=result.url, final_url=result.final_url, text=page.text, expected_marker=marker)
    if wall:
        raise Blocked(result.final_url, wall)
    if family == "netserver":
        facts = netserver_detail.parse_detail_page(page, page_url=result.url)
        if facts is None or portal_id not in (facts.oid, facts.tender_oid):
            raise AdapterError(f"{result.final_url}: not the detail page of {portal_id}", reason="not_the_page")
        return netserver_record.notice_record(source=source, base_url=base_url, row=None, detail=facts, url=result.url)
    project = cosinex_parse.parse_project_page(page, page_url=result.final_url)
    if project is None or project.project_id != portal_id:
        raise AdapterError(f"{result.final_url}: not the project page of {portal_id}", reason="not_the_page")
    return cosinex_parse.notice_record(source=source, base_url=base_url.rstrip("/"), row=None, project=project)


def _query(url: str, name: str) -> str:
    try:
        return dict(parse_qsl(urlsplit(url).query)).get(name, "")
    except ValueError:
        return ""
