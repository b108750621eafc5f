"""Market view: a buyer's and a supplier's page and its CSV (public tender data, the same for every tenant)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from notifications.bids.outcome_selectors import competitor_watched
from notifications.portal.market_csv import market_csv
from tenders.market import BUYER, SUPPLIER, market_summary

NAME_LIMIT = 500


def _page(request, role: str):
    name = request.GET.get("name", "")[:NAME_LIMIT]
    summary = market_summary(role=role, name=name)
    # A supplier the team watches shows it; the button adds it to the tenant's watch list (POST, CSRF).
    watched = role == SUPPLIER and competitor_watched(name=summary.name or name)
    return render(request, "portal/market.html", {"summary": summary, "role": role, "name": name, "watched": watched})


def _csv(request, role: str):
    summary = market_summary(role=role, name=request.GET.get("name", "")[:NAME_LIMIT])

    def url_for(tender_id: int) -> str:
        return request.build_absolute_uri(reverse("portal:tender", args=[tender_id]))

    response = HttpResponse(market_csv(summary, url_for=url_for), content_type="text/csv; charset=utf-8")
    prefix = "vergabestelle" if role == BUYER else "bieter"
    stamp = timezone.localtime().strftime("%Y-%m-%d")
    # slugify keeps the header ASCII and free of quotes whatever the name holds.
    filename = f"markt-{prefix}-{slugify(summary.name)[:60] or 'unbekannt'}-{stamp}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_GET
def buyer_page(request):
    return _page(request, BUYER)


@login_required
@require_GET
def supplier_page(request):
    return _page(request, SUPPLIER)


@login_required
@require_GET
def buyer_csv(request):
    return _csv(request, BUYER)


@login_required
@require_GET
def supplier_csv(request):
    return _csv(request, SUPPLIER)
