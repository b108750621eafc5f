"""cosinex Center hosts (DTVP ``/Center``, ``/VMPCenter``): the JSON search the result page itself uses.

Why a module of its own: Center hosts have no server-rendered result list; the page builds it
in the browser from a JSON search (request and answer shape in :mod:`.selectors`). The search
needs the token the page carries; this crawl gets it like a browser session would. When no
token can be had, or the search refuses it, the run ends in the state "nicht unterstützt:
Ergebnisliste nur im Browser" (:class:`BrowserOnly`, FetchRun "blocked" with reason
"browser_only") with the reason, never as a green run with zero tenders. An answer whose shape
is not the known one is a changed layout (:class:`~sources.adapters.yields.LayoutChanged`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from bs4 import BeautifulSoup

from kernel.links import portal_references_from_urls
from kernel.network import Blocked, Fetcher, HttpStatusError, detect_wall
from kernel.normalise import END_OF_DAY, parse_german_datetime, parse_iso_datetime
from kernel.records import NoticeKind, NoticeRecord
from kernel.vocabulary.legal_basis import legal_basis_code, legal_basis_in_text
from kernel.vocabulary.provenance import Origin
from sources.adapters.base import FetchedBatch
from sources.adapters.html import absolute_url, parse_html, text_of
from sources.adapters.yields import LayoutChanged, PageYield, SamplePage
from sources.conditional import ConditionalFetcher

from . import selectors
from .parse import notice_kind, notice_status

__all__ = ["BrowserOnly", "CenterSearch", "center_record", "is_center"]

BROWSER_ONLY = "nicht unterstützt: Ergebnisliste nur im Browser"
_WITHOUT_DEADLINE = frozenset({NoticeKind.AWARD, NoticeKind.PRIOR_INFORMATION, NoticeKind.CANCELLATION})


class BrowserOnly(Blocked):
    """The host's result list exists only in the browser: the JSON search cannot be reached."""

    reason = "browser_only"

    def __init__(self, url: str, why: str) -> None:
        super().__init__(url, "browser-only")
        self.message = f"{BROWSER_ONLY}: {why} ({url}). This is not an empty result."
        self.args = (self.message,)


def is_center(base_url: str) -> bool:
    return base_url.rstrip("/").endswith(selectors.CENTER_PATHS)


class CenterSearch:
    def __init__(self, *, source: str, settings: dict[str, Any], fetcher: Fetcher | ConditionalFetcher) -> None:
        self.source = source
        self.settings = settings
        self.base_url: str = settings["base_url"]
        self.fetcher = fetcher
        self.requests = 0
        self.bytes = 0

    def run(self) -> Iterator[FetchedBatch]:
        token = self._token()
        url = f"{self.base_url}/{selectors.CENTER_SEARCH_PATH}"
        seen: set[str] = set()
        for page in range(1, self.settings["max_pages"] + 1):
            body = {
                "pageNumber": page,
                "pageSize": selectors.CENTER_PAGE_SIZE,
                "searchText": "",
                "publicationTypes": selectors.CENTER_PUBLICATION_TYPES,
                "contractingRules": None,
                "cpvCodes": None,
                "location": None,
                "sort": selectors.CENTER_SORT,
            }
            try:
                result = self.fetcher.post_json(url, body, headers={selectors.CENTER_TOKEN_HEADER: token})
            except HttpStatusError as exc:
                if exc.status in (401, 403):
                    raise BrowserOnly(url, f"the JSON search refused the page's token (HTTP {exc.status})") from exc
                if page == 1:
                    raise
                yield FetchedBatch(missing=(f"{url} page {page}: {exc.reason}: {exc}",), requests=1)
                return
            batch, all_pages = self._page(result.body, result.final_url, page, seen)
            yield batch
            if page >= all_pages:
                return
            if page == self.settings["max_pages"]:
                yield FetchedBatch(
                    missing=(f"stopped at max_pages={page}; search pages {page + 1}..{all_pages} were not read",)
                )

    def _token(self) -> str:
        """The search token from the page, visiting each token page up to twice (one session)."""
        tried = []
        for path in selectors.CENTER_TOKEN_PAGES:
            url = f"{self.base_url}/{path}"
            for _ in range(selectors.CENTER_TOKEN_VISITS):
                result = self.fetcher.get(url)
                self.requests += 1
                self.bytes += len(result.body)
                page = parse_html(result.body, content_type=result.content_type, label=url)
                element = page.soup.select_one(selectors.CENTER_TOKEN_INPUT)
                token = str(element.get("value") or "").strip() if element is not None else ""
                if token:
                    return token
            tried.append(url)
        raise BrowserOnly(
            tried[0], f"no search token ({selectors.CENTER_TOKEN_INPUT}) on {', '.join(tried)} without a login"
        )

    def _page(self, body: bytes, url: str, page: int, seen: set[str]) -> tuple[FetchedBatch, int]:
        scope = f"search page {page}"
        sample = SamplePage.of(url=url, body=body, content_type="application/json")
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            data = None
        projects = data.get("projects") if isinstance(data, dict) else None
        if not isinstance(projects, list):
            page_yield = PageYield.of(page=url, layout="unknown", parsed=0, rejected_reasons=())
            raise LayoutChanged(url, page_yield=page_yield, sample=sample, detail="no 'projects' list in the answer")
        records: list[NoticeRecord] = []
        rejected: list[str] = []
        for project in projects:
            record, reason = center_record(project, source=self.source, base_url=self.base_url)
            if record is None:
                rejected.append(reason)
            elif record.source_notice_id not in seen:
                seen.add(record.source_notice_id)
                records.append(record)
        page_yield = PageYield.of(
            page=url, layout="json", parsed=len(projects) - len(rejected), rejected_reasons=rejected
        )
        if page_yield.all_rejected:
            raise LayoutChanged(url, page_yield=page_yield, sample=sample)
        all_pages = data.get("allPages")
        batch = FetchedBatch(
            records=tuple(records),
            problems=tuple(f"{url}: project {reason}; skipped" for reason in rejected),
            bytes=len(body) + (self.bytes if page == 1 else 0),
            requests=1 + (self.requests if page == 1 else 0),
            scope=scope,
            yields=(page_yield,),
            sample=sample if rejected else None,
        )
        return batch, int(all_pages) if _whole_number(all_pages) else page


def center_record(project: Any, *, source: str, base_url: str) -> tuple[NoticeRecord | None, str]:
    """One project of the JSON search as a notice, or (None, reason)."""
    if not isinstance(project, dict):
        return None, "not an object"
    project_id = text_of(str(project.get("projectId") or ""), limit=200)
    title = text_of(str(project.get("title") or ""), limit=1000)
    if not project_id:
        return None, "without projectId"
    if not title:
        return None, "without title"
    url = _project_room(project.get("links"), base_url) or (
        f"{base_url}/{selectors.CENTER_FORWARD_PATH.format(project_id=project_id)}"
    )
    publication_type = _plain(project.get("publicationType"))
    rule = _plain(project.get("contractingRule"))
    kind = notice_kind(publication_type)  # "ExAnte": prior information, "ExPost": award (selectors)
    refs = portal_references_from_urls([url, f"{base_url}/notice/{project_id}"])
    return (
        NoticeRecord(
            source=source,
            origin=Origin.PORTAL_LIST,
            source_notice_id=project_id,
            kind=kind,
            status=notice_status(kind),
            portal_references=tuple(ref for ref in refs if ref.startswith("cosinex:")),
            title=title,
            buyer_name=text_of(str(project.get("organisationName") or ""), limit=500),
            legal_basis=legal_basis_in_text(rule) or legal_basis_code(rule),
            published_at=_date(project.get("publishingDate")),
            # "relevantDate" is the submission deadline of a tender only: an award's procedure is over and
            # prior information announces no deadline yet (a date there is not one bids are due by).
            submission_deadline=(
                _date(project.get("relevantDate"), deadline=True) if kind not in _WITHOUT_DEADLINE else None
            ),
            url=url,
            payload={
                "format": "cosinex-json",
                "publication_type": publication_type,
                "rule": rule,
                "relevant_date": text_of(str(project.get("relevantDate") or ""), limit=40),
            },
        ),
        "",
    )


def _project_room(links: Any, base_url: str) -> str:
    """The project's link: the key "ENTER_PROJECTROOM" first, then "enterprojectroom", then any key that
    reads the same without case and "_"; a link into a login is no notice URL."""
    if not isinstance(links, dict):
        return ""
    wanted = selectors.CENTER_LINK_KEYS[-1]
    keys = [*selectors.CENTER_LINK_KEYS, *(k for k in links if str(k).replace("_", "").casefold() == wanted)]
    for key in keys:
        url = absolute_url(base_url + "/", str(links.get(key) or ""))
        if url and detect_wall(requested_url=base_url, final_url=url, text="", expected_marker=None) != "login":
            return url
    return ""


def _plain(value: Any) -> str:
    """Text of a JSON string field; one client reads publicationType/contractingRule as HTML, so tags go."""
    text = str(value or "")
    if "<" in text:
        text = BeautifulSoup(text, "html.parser").get_text(" ")
    return text_of(text, limit=200)


def _date(value: Any, *, deadline: bool = False) -> datetime | None:
    if isinstance(value, int | float) and value > 10**11:  # epoch milliseconds
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    text = str(value or "")
    default = END_OF_DAY if deadline else None
    return parse_german_datetime(text, default_time=default) or parse_iso_datetime(text, default_time=default)


def _whole_number(value) -> bool:
    # ASCII digits only: "²" is a digit to str.isdigit() but int() refuses it.
    text = str(value) if isinstance(value, int | str) else ""
    return text.isascii() and text.isdigit()
