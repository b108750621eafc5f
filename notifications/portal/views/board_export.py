"""The team board as CSV (``/angebote/export.csv``): the cards the board shows, with its ``meine``/``alle``."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from notifications.bids.listing import bid_card_export
from notifications.portal.board_csv import board_csv


@login_required
@require_GET
def board_export(request):
    cards = bid_card_export(
        user=request.user,
        mine=request.GET.get("meine") == "1",
        include_closed=request.GET.get("alle") == "1",
        now=timezone.now(),
    )

    def url_for(card_id: int) -> str:
        return request.build_absolute_uri(reverse("bids:card", args=[card_id]))

    response = HttpResponse(board_csv(cards, url_for=url_for), content_type="text/csv; charset=utf-8")
    stamp = timezone.localtime().strftime("%Y-%m-%d")
    response["Content-Disposition"] = f'attachment; filename="angebote-{stamp}.csv"'
    response["Cache-Control"] = "private, no-store"
    return response
