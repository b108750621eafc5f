"""The result list (Trefferliste) and its CSV export: same URL parameters, same filter builder.

The keywords are compiled once per request (``tenders.fulltext.keyword_query_build``) and that one
``KeywordQuery`` serves the rows, the count and the highlighting.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from notifications.portal.csv_export import ROW_CAP, csv_lines
from notifications.portal.forms import SearchForm, bound_form, parse_search, search_params
from notifications.portal.reasons import reasons_view
from notifications.portal.result_list import result_page
from notifications.portal.selectors import (
    export_rows,
    portal_tender_hits,
    portal_tender_search,
    source_choices,
)
from tenders.fulltext import keyword_query_build
from tenders.highlighting import Highlighter, tender_highlights
from tenders.match_reasons import match_reasons
from tenders.pagination import PAGE_PARAMETERS, EstimatedCountPaginator
from tenders.suggestions import query_suggestion

PAGE_SIZE = 25


def wants_fragment(request) -> bool:
    """An htmx request that swaps part of the page (not a history restore, which needs the whole page)."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


@login_required
@require_GET
def search(request):
    parsed = parse_search(request.GET)
    form = bound_form(SearchForm, request.GET, portals=source_choices(), errors=parsed.errors)
    page = None
    if parsed.is_valid:
        keywords = keyword_query_build(q=parsed.filters.q)
        page = result_page(
            user=request.user,
            parsed=parsed,
            keywords=keywords,
            now=timezone.now(),
            params=request.GET,
            per_page=PAGE_SIZE,
        )
        # "Warum gefunden" and the marks share one highlighter: the page's words are stemmed once.
        highlighter = Highlighter(keywords)
        shown = {"tenders": page.object_list, "language": get_language(), "description_attr": "description_head"}
        reasons = match_reasons(filters=parsed.filters, keywords=keywords, highlighter=highlighter, **shown)
        highlights = tender_highlights(q=keywords, highlighter=highlighter, **shown)
        for tender in page.object_list:
            tender.highlight = highlights[tender.pk]
            tender.reasons = reasons_view(reasons[tender.pk], with_filters=False)
    # "Meinten Sie …" only when the keywords found nothing: a suggestion costs a vocabulary lookup.
    suggestion = (
        query_suggestion(q=parsed.filters.q)
        if page is not None and parsed.filters.q and not page.paginator.count
        else ""
    )
    query = urlencode(search_params(parsed))
    context = {
        "form": form,
        "parsed": parsed,
        "page": page,
        "query": query,
        "q": parsed.filters.q if parsed.is_valid else "",
        "profile_query": urlencode(parsed.filters.to_params()),
        "has_filters": not parsed.filters.is_empty or bool(parsed.triage),
        "more_filters": any(name not in ("q", "order") for name, _value in search_params(parsed)),
        "suggestion": suggestion,
        "suggestion_query": urlencode([(k, suggestion if k == "q" else v) for k, v in search_params(parsed)]),
    }
    fragment = wants_fragment(request)
    # htmx swaps only 2xx responses, so the fragment with the error list is sent as 200.
    status = 200 if parsed.is_valid or fragment else 400
    template = "portal/_results.html" if fragment else "portal/search.html"
    response = render(request, template, context, status=status)
    if fragment and parsed.is_valid:
        # The address bar shows the search without the form's empty fields (static/js/portal.js drops
        # them from the request too); invalid input keeps the URL as typed so it can be corrected.
        shown = [(name, request.GET[name]) for name in PAGE_PARAMETERS if request.GET.get(name, "1") != "1"]
        params = search_params(parsed) + shown
        response["HX-Push-Url"] = reverse("portal:search") + (f"?{urlencode(params)}" if params else "")
    patch_vary_headers(response, ("HX-Request",))
    return response


@login_required
@require_GET
def search_export(request):
    parsed = parse_search(request.GET)
    if not parsed.is_valid:
        return redirect(f"{reverse('portal:search')}?{request.GET.urlencode()}")
    search_args = {
        "user": request.user,
        "filters": parsed.filters,
        "triage": parsed.triage,
        "now": timezone.now(),
        "keywords": keyword_query_build(q=parsed.filters.q),
    }
    queryset = portal_tender_search(**search_args, order=parsed.order)
    every_match = portal_tender_hits(**search_args)
    # No unbounded COUNT(*) for a broad search, and counted in one index order whatever the rows' order.
    counted = EstimatedCountPaginator(queryset, ROW_CAP, count_basis=every_match)

    def url_for(tender_id: int) -> str:
        return request.build_absolute_uri(reverse("portal:tender", args=[tender_id]))

    rows = export_rows(queryset, url_for=url_for, cap=ROW_CAP)
    response = StreamingHttpResponse(
        csv_lines(rows, total=counted.count, cap=ROW_CAP, total_is_estimate=counted.is_estimate),
        content_type="text/csv; charset=utf-8",
    )
    stamp = timezone.localtime().strftime("%Y-%m-%d")
    response["Content-Disposition"] = f'attachment; filename="ausschreibungen-{stamp}.csv"'
    response["Cache-Control"] = "private, no-store"
    return response
