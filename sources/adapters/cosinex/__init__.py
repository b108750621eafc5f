"""cosinex Vergabemarktplatz hosts: DTVP, evergabe-online, Niedersachsen, Brandenburg, NRW, VMPs.

Why: the Deutsches Vergabeportal and the state/municipal Vergabemarktplätze all run
cosinex software; below-threshold notices of many federal and municipal buyers appear
only there. ONE adapter serves every host; a Source row names it by ``base_url``.

Flow (``fetch``), the first that applies:

0. A Center host (``/Center``, ``/VMPCenter``) without ``cpv_codes``: the JSON search the page
   itself uses, with the token the page carries (:mod:`.center`), for prior information
   ("ExAnte", recorded as ``NoticeKind.PRIOR_INFORMATION``) and tenders; without a token the run
   ends "nicht unterstützt: Ergebnisliste nur im Browser" (blocked, reason "browser_only").
1. ``opendata_url`` set: the host's open-data export (a ZIP of eForms-DE XML, licence
   DL-DE-Zero) is read with the hardened ZIP reader of the DÖE adapter and every member
   parsed by ``sources.parsers.eforms.parse_eforms``: legally binding data, CPV codes and
   deadlines with time of day, no HTML at all. A non-ZIP answer is ``AdapterError("bad_zip")``.
2. ``cpv_codes`` set: the announcement list of each CPV category
   (``company/announcements/categoryOverview.do?method=showTable&cpvCode=…``), pages 2..n with
   ``&fromSearch=1&selectedTablePagePROJECT_RESULT=<n>``.
3. Otherwise the newest announcements: ``company/welcome.do`` (page 1), then
   ``welcome.do?method=showTable&fromSearch=1&selectedTablePagePROJECT_RESULT=<n>``.

Either list is walked up to the "Seite: X von Y" count (without it: the highest page the pager's
onclick targets name; the pager has no ``href``) or ``max_pages`` (pages left out are named in
``missing``). One walk serves both (:mod:`.crawl`).

List rows (``table.csx-new-table``: Veröffentlicht | Frist ``dd.mm.yyyy[ HH:MM]`` or ``nv`` |
Kurzbezeichnung | Typ | Veröffentlicher | link; rows of procedures that are over lack the Frist
cell and are read when their Typ names an award or a cancellation) become ``NoticeRecord(source=<Source key>,
source_notice_id=<CX project id>, url=<base>/notice/<CX>, portal_references=("cosinex:<CX>",))``,
so a DÖE/TED notice linking the same project merges into the same tender. Rows that link only
``projectForwarding.do?pid=<n>`` (Satellite hosts) keep the pid as their id on every run; their
project page (div/``.control-group`` layout, ``h4.sub-headline`` sections), read within the
``max_details`` budget, adds the CX id as portal reference, the CX short link, the documents
link, CPV codes and the deadline ("nv": none). Rows beyond the budget wait for a later run
and are counted as ``details_pending`` in the yield report (rules in :mod:`.crawl`). The "Typ"
decides the kind: "Vergebener Auftrag"/"Vergabeergebnis"/ex-post are awards, "Aufhebung" a
cancellation, "Vorinformation"/"Beabsichtigte Ausschreibung" prior information; a leading
contracting rule (VOB/A, VgV, UVgO, …) is kept in the payload. Every other row of the table is a
known layout row (header, pager, spacer, "nothing found") or a rejected row whose reason is counted
in the page's yield report and named in the run's problems: no row is dropped unseen.

Walls and failures: a redirect to ``id.dtvp.de``/``openid-connect``/login, consent or error
pages, or a page without the list table (and without a "nothing found" text), is ``Blocked``
(FetchRun "blocked", never "zero tenders"). A failing first page fails the run; later pages
that fail go into ``missing`` (two in a row stop the walk). A page that repeats the rows of an
earlier one (hosts that page only within a session) ends the walk with a ``missing`` entry.

Conditional requests (:mod:`sources.conditional`): list pages and the export are requested
with the validators of the last complete run; an unchanged page (304 or the same bytes)
yields no records, and after a 304 the walk goes on only to pages the last complete run read.
The page before a gap (a failed page, a cap) is forgotten, so the next run walks on from there.

Settings: ``base_url`` (``https://<host>/<Satellite|Center|VMPSatellite|VMPCenter>``; host in
``allowed_hosts`` if given, else ``KNOWN_HOSTS``), ``opendata_url``, ``cpv_codes``,
``max_pages`` (default 10, per list), ``max_bytes`` (default 50 MiB per run), ``max_details``
(project pages per run for pid rows, default 100; 0 = rows only), ``allowed_hosts``. A host that
answers only under its ``www.`` name (Metropole Ruhr: the bare name fails TLS) is refused
without it, with the right form in the message.

Limits: every selector and label lives in :mod:`.selectors` ("last known" markup; no live
page was available when it was written). Project pages are fetched only for pid rows (a CX row
already has its identity); behind a login they are skipped for the run and the rows recorded on
their own. ``parse_files`` reads SAVED project overview pages (label/value rows or the div
layout) and joins them with list rows of the same CX project; a saved Satellite project page
cannot be joined with a pid row (the page does not name its pid) and stands alone under its CX id.
The fetcher keeps the session cookies of a run, which the Center JSON search needs. DTVP pages are
``noindex`` and some hosts disallow everything in robots.txt; the Fetcher honours that.
"""

from .adapter import CosinexAdapter
from .options import KNOWN_HOSTS, CosinexSettings, list_url
from .parse import ListPage, ListRow, ProjectPage, notice_kind, notice_record, parse_list_page, parse_project_page

__all__ = [
    "KNOWN_HOSTS",
    "CosinexAdapter",
    "ListPage",
    "ListRow",
    "ProjectPage",
    "list_url",
    "notice_kind",
    "notice_record",
    "parse_list_page",
    "parse_project_page",
    "CosinexSettings",
]
