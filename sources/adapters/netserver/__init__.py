"""AI Vergabe@Net "NetServer" portals (tender24, Vergabeplattform BW, vmstart, Hessen, Berlin, …).

Why: many Länder and cities publish below-threshold tenders only on these portals. All
of them run the same Java application under ``/NetServer/``, so ONE adapter serves every
host; a Source row names the host by ``base_url``.

Flow (``fetch``), per configured category (default ``InvitationToTender``):

1. Public search ``PublicationSearchControllerServlet?function=SearchPublications&…&Start=<n>&Max=<page_size>``,
   newest first. The page must be a result page: a redirect to a login/consent/error page,
   or a page without the result table (and without the portal's "nothing found" text), is
   ``Blocked`` -> the FetchRun is "blocked", never "zero tenders". A table whose data rows
   no longer match the row selector is ``Blocked("changed-layout")``.
2. Each result row (``data-oid`` = TenderOID; cells date, title, Vergabestelle, procedure
   type, legal framework, deadline ``dd.mm.yyyy HH:MM`` Europe/Berlin) is enriched from its
   detail page ``PublicationControllerServlet?function=Detail&TOID=<oid>&Category=<cat>``
   (label/value rows: description, CPV, place, value, questions deadline, documents link).
3. ``NoticeRecord(source=<Source key>, source_notice_id=<TenderOID>, url=<detail URL>,
   portal_references=("netserver:<oid>",))``: a DÖE/TED notice that links the same
   TenderOID merges into the same tender (merge rule ``portal_reference``).
4. Next page: the smallest ``Start=`` linked from the page above the current one.
   One ``FetchedBatch`` per result page; no cursor (the portal lists what is online now).

Caps and failures (settings ``max_pages``, ``max_bytes``, ``max_details``): reaching a cap
is reported in ``missing`` (run "partial") with what was left out. A result page after the
first that fails goes into ``missing`` and the next offset is tried; two in a row stop the
category; a failing FIRST page fails the run (nothing could be read). A detail page that
fails, is walled or is not a detail page goes into ``missing``; its notice is then recorded
from the row alone if it was never seen before, and left as stored if it was (a row-only
record would blank its stored details). robots.txt is honoured for every page; a denied
detail path stops detail requests for the run.

Conditional requests (``conditional_requests = True``, :mod:`sources.conditional`): result
and detail pages are requested with the validators of the last complete run. An unchanged
result page (304, or the same bytes) means nothing new behind it: its details are skipped;
after a 304 the walk goes on at ``Start + page_size`` only if the last complete run read
that page too (else the list ended there). An unchanged detail page yields no record (the
stored one stands). Pages not fully processed (a detail missing) and the page before a gap
(a failed page, a cap) are forgotten, so the next run reads them again and walks on from
there. Never-seen notices get the detail budget first, so a capped run still makes progress.
A second run against unchanged pages is therefore one conditional request per result page.

Settings: ``base_url`` (``https://<host>/NetServer/``; host in ``allowed_hosts`` if given,
else one of ``KNOWN_HOSTS``), ``categories`` (InvitationToTender, ContractAward,
PriorInformation), ``page_size`` (1-100, default 50), ``max_pages`` (default 10),
``max_bytes`` (default 50 MiB per run), ``max_details`` (default 100 per run; 0 = list
only), ``allowed_hosts``. Unknown keys are refused.

Limits: every selector and label lives in :mod:`.selectors` and is "last known" markup
(no live page was available when it was written). A session cookie the portal sets is
sent back for the rest of the run (the fetcher keeps cookies per run); a ``csrt`` token in
the query is not: hosts that require one answer with a wall, which is reported as blocked. Awards stay
online about ten weeks and there is no archive, so nothing older can be backfilled.
``parse_files`` reads saved result/detail pages (decoded BOM > meta/XML declaration >
UTF-8 > windows-1252) through the same parser.
"""

from .adapter import NetServerAdapter
from .detail import DetailFacts, parse_detail_page
from .options import KNOWN_HOSTS, NetServerSettings, detail_url, search_url
from .parse import ResultPage, ResultRow, parse_result_page
from .record import notice_record

__all__ = [
    "KNOWN_HOSTS",
    "DetailFacts",
    "NetServerAdapter",
    "ResultPage",
    "ResultRow",
    "detail_url",
    "notice_record",
    "parse_detail_page",
    "parse_result_page",
    "search_url",
    "NetServerSettings",
]
