"""DTVP (Deutsches Vergabeportal) through its public CPV list pages.

Why: DTVP's cosinex Center builds its result list in the browser; the JSON search behind it
(``sources.adapters.cosinex.center``) was reported unreliable and incomplete by a client that
checked the live site on 4/5 Sep 2026, and no public client reports it working now. The complete
public list is DTVP's WordPress site: one archive per CPV category,
``https://dtvp.de/ausschreibungen/cpv/<slug>-<cpv>/`` (16 entries a page, ``/page/<n>/`` while the
head names a ``link[rel=next]``), a detail page per entry.

Not an adapter of its own: a DTVP Source stays a cosinex Source (alert mails, portal page requests
and the Center search go by its ``base_url``); the cosinex adapter reads the public list instead of
the host's own list when ``list_source`` is "dtvp_public", or "auto" on a ``base_url`` of DTVP
(:mod:`.options`). ``list_source`` "portal" keeps the Center JSON search, which ends blocked with
its reason ("browser_only") where it does not answer.

Entries (``article[role=article]``, id ``post_<n>``): title and detail link in ``h5.title a``,
Vergabestelle, Verfahrensart and deadline after the icons ``bi-house``, ``bi-book``,
``bi-calendar-check`` (place after ``bi-geo-alt``). The notice's identity is the cosinex CX id
the detail link names (else its detail page), written as portal reference ``cosinex:<CX>``, so an
entry merges with the DÖE/TED notice that links the same project. Detail pages (``h1``,
``div.dtvp21-cc-oc-desc-content``, ``h6`` labels "CPV-Code", "Abgabefrist", "Vergabeart",
"Mandant", "Ort der Ausführung") add description, CPV codes and place. Budgets, teasers and
layout drift: :mod:`.crawl`.

Limits: every selector is in :mod:`.selectors`, from one public client's description of the live
pages (no live page was available when this was written; the test pages are constructed). That the
detail link names the CX id is this reader's assumption, checked per row: an entry whose link and
page name none is rejected with that reason, visible in the yield report.
"""

from .crawl import DtvpPublicList
from .options import PublicListSettings, public_list_active
from .parse import DetailPage, ListPage, ListRow, notice_record, parse_detail_page, parse_list_page

__all__ = [
    "DetailPage",
    "DtvpPublicList",
    "ListPage",
    "ListRow",
    "PublicListSettings",
    "notice_record",
    "parse_detail_page",
    "parse_list_page",
    "public_list_active",
]
