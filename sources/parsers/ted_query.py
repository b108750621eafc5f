"""What Tender Radar asks TED's Search API v3 for: German notices of a publication window, page by page.

One request returns up to 250 notices with exactly the fields we ask for (``TED_FIELDS``), anonymously; the
answer is read by ``sources.parsers.ted_json``. The field names beyond those present in the saved fixture are
taken from public TED clients, not from the live field list: TED answers 400 for unknown names, so a rename there
fails loudly, not silently.
"""

from __future__ import annotations

from datetime import date
from typing import Any

__all__ = ["MAX_PAGE_SIZE", "TED_FIELDS", "ted_query_for_germany", "ted_search_body"]

MAX_PAGE_SIZE = 250  # TED's documented maximum "limit"

TED_FIELDS: tuple[str, ...] = (
    "publication-number",
    "notice-identifier",
    "procedure-identifier",
    "change-notice-version-identifier",
    "notice-type",
    "form-type",
    "publication-date",
    "notice-title",
    "title-proc",
    "description-proc",
    "identifier-lot",
    "title-lot",
    "description-lot",
    "buyer-name",
    "buyer-country",
    "buyer-internet-address",
    "procedure-type",
    "classification-cpv",
    "place-of-performance",
    "place-of-performance-city-lot",
    "place-of-performance-post-code-lot",
    "place-of-performance-country-lot",
    "estimated-value-proc",
    "estimated-value-cur-proc",
    "estimated-value-lot",
    "estimated-value-cur-lot",
    "deadline-receipt-tender-date-lot",
    "deadline-receipt-tender-time-lot",
    "deadline-receipt-request-date-lot",
    "deadline-receipt-request-time-lot",
    "document-url-lot",
    "submission-url-lot",
    "winner-name",
    "winner-identifier",
    "winner-city",
    "winner-country",
    "tender-value",
    "tender-value-cur",
    "received-submissions-type-code",
    "received-submissions-type-val",
    "buyer-post-code",
    "buyer-city",
    "buyer-email",
    "contract-nature",
    "contract-duration-start-date-lot",
    "contract-duration-end-date-lot",
)


def ted_query_for_germany(*, published_from: date, published_to: date) -> str:
    """Expert query for notices bought in or performed in Germany, publication dates inclusive.

    ``buyer-country`` and ``place-of-performance-country-lot`` are result fields of the saved
    fixture; that both are searchable with ``=`` follows public clients, not TED's docs.
    """
    if published_from > published_to:
        raise ValueError("published_from is after published_to")
    return (
        "(buyer-country=DEU OR place-of-performance-country-lot=DEU)"
        f" AND publication-date>={published_from:%Y%m%d} AND publication-date<={published_to:%Y%m%d}"
    )


def ted_search_body(*, query: str, page_size: int, iteration_token: str | None, fields: tuple[str, ...]) -> dict:
    """Body for POST /v3/notices/search in ITERATION mode (no 15,000-result ceiling of page mode).

    ``scope`` "ALL" so award and expired notices of the date window come back too.
    """
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError(f"page_size must be within 1..{MAX_PAGE_SIZE}, got {page_size}")
    body: dict[str, Any] = {
        "query": query,
        "fields": list(fields),
        "limit": page_size,
        "scope": "ALL",
        "checkQuerySyntax": False,
        "paginationMode": "ITERATION",
    }
    if iteration_token:
        body["iterationNextToken"] = iteration_token
    return body
