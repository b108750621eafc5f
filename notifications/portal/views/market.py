"""Market view: a buyer's and a supplier's page (public tender data, the same for every tenant)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from tenders.market import buyer_market, supplier_market


@login_required
@require_GET
def buyer_page(request):
    summary = buyer_market(name=request.GET.get("name", "")[:500])
    return render(request, "portal/market.html", {"summary": summary, "role": "buyer"})


@login_required
@require_GET
def supplier_page(request):
    summary = supplier_market(name=request.GET.get("name", "")[:500])
    return render(request, "portal/market.html", {"summary": summary, "role": "supplier"})
