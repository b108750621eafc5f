"""Partner API v1: a buyer's and a supplier's market summary, the figures of the portal's market page.

Rendered from ``tenders.market.market_summary``, the read behind the page and its CSV, so the three
cannot disagree. Amounts are decimal text per currency, each with its origin (``award`` or ``estimate``).
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from notifications.api.errors import FieldErrors
from notifications.api.serializers import ErrorSerializer
from notifications.api.views import PartnerApiView
from tenders.market import BUYER, SUPPLIER, MarketSummary, market_summary

NAME_LIMIT = 500
ORIGINS = ["award", "estimate"]


class AmountSerializer(serializers.Serializer):
    value = serializers.CharField(help_text="Dezimalzahl als Text, auf Cent gerundet")
    currency = serializers.CharField(help_text="ISO 4217, z. B. EUR, PLN")
    origin = serializers.ChoiceField(choices=ORIGINS, help_text="award: Zuschlagswert; estimate: Schätzwert")


class AwardLineSerializer(serializers.Serializer):
    lot_id = serializers.CharField(help_text="leer, wenn die Bekanntmachung keine Lose nennt")
    supplier_name = serializers.CharField()
    value = serializers.CharField(allow_null=True, help_text="Zuschlagswert des Loses, Dezimalzahl als Text")
    currency = serializers.CharField(allow_null=True)


class MarketRowSerializer(serializers.Serializer):
    tender_id = serializers.IntegerField()
    title = serializers.CharField()
    buyer_name = serializers.CharField()
    published_at = serializers.DateTimeField(allow_null=True)
    url = serializers.URLField(help_text="Die Ausschreibung in der API")
    portal_url = serializers.URLField(help_text="Die Ausschreibung im Portal")
    winners = serializers.ListField(child=serializers.CharField())
    awards = AwardLineSerializer(many=True, help_text="Jedes Los mit Bieter einmal; beim Bieter nur seine Lose")
    amounts = AmountSerializer(many=True, help_text="Je Währung eine Summe; leer ohne bekannten Wert")


class MarketTotalSerializer(serializers.Serializer):
    origin = serializers.ChoiceField(choices=ORIGINS)
    currency = serializers.CharField()
    tenders = serializers.IntegerField(help_text="Ausschreibungen mit einem Wert dieser Herkunft und Währung")
    sum = serializers.CharField(help_text="Dezimalzahl als Text")
    median = serializers.CharField(help_text="Median je Ausschreibung, Dezimalzahl als Text")


class YearCountSerializer(serializers.Serializer):
    year = serializers.IntegerField()
    tenders = serializers.IntegerField()


class PartnerCountSerializer(serializers.Serializer):
    name = serializers.CharField()
    tenders = serializers.IntegerField()


class MarketSummarySerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=[BUYER, SUPPLIER])
    name = serializers.CharField()
    tenders_total = serializers.IntegerField(help_text="Alle Ausschreibungen, nicht nur die zusammengefassten")
    tenders_summarised = serializers.IntegerField(help_text="Die neuesten, aus denen Werte und Partner stammen")
    by_year = YearCountSerializer(many=True)
    totals = MarketTotalSerializer(many=True, help_text="Je Herkunft und Währung; nie umgerechnet oder gemischt")
    tenders_without_value = serializers.IntegerField()
    partners = PartnerCountSerializer(many=True, help_text="Bieter einer Vergabestelle, Auftraggeber eines Bieters")
    rows = MarketRowSerializer(many=True)


def _text(value) -> str | None:
    return None if value is None else f"{value:.2f}"


def _summary_data(summary: MarketSummary, *, link) -> dict:
    rows = [
        {
            "tender_id": row.tender.id,
            "title": row.tender.title,
            "buyer_name": row.tender.buyer_name,
            "published_at": row.tender.published_at,
            "url": link(reverse("api-tender-detail", args=[row.tender.id])),
            "portal_url": link(reverse("portal:tender", args=[row.tender.id])),
            "winners": row.winners,
            "awards": [
                {
                    "lot_id": line.lot_id,
                    "supplier_name": line.supplier_name,
                    "value": _text(line.value),
                    "currency": line.currency or None,
                }
                for line in row.awards
            ],
            "amounts": [
                {"value": _text(amount.value), "currency": amount.currency, "origin": amount.origin}
                for amount in row.amounts
            ],
        }
        for row in summary.rows
    ]
    return {
        "role": summary.role,
        "name": summary.name,
        "tenders_total": summary.total,
        "tenders_summarised": len(summary.rows),
        "by_year": [{"year": year, "tenders": count} for year, count in summary.by_year],
        "totals": [
            {
                "origin": total.origin,
                "currency": total.currency,
                "tenders": total.tenders,
                "sum": _text(total.total),
                "median": _text(total.median),
            }
            for total in summary.totals
        ],
        "tenders_without_value": summary.without_value,
        "partners": [{"name": name, "tenders": count} for name, count in summary.partners],
        "rows": rows,
    }


NAME_PARAMETER = OpenApiParameter(
    "name",
    OpenApiTypes.STR,
    required=True,
    description="Name wie in den Bekanntmachungen; Schreibweisen (Groß/klein, Umlaute, Rechtsform) werden gefaltet",
)


class _MarketView(PartnerApiView):
    serializer_class = MarketSummarySerializer
    pagination_class = None
    role = BUYER

    def get(self, request):
        name = (request.query_params.get("name") or "").strip()
        if not name or len(name) > NAME_LIMIT:
            raise FieldErrors({"name": _("Ein Name mit 1 bis %(limit)s Zeichen.") % {"limit": NAME_LIMIT}})
        summary = market_summary(role=self.role, name=name)
        return Response(_summary_data(summary, link=request.build_absolute_uri))


def _schema(operation_id: str, summary: str, description: str):
    errors = {code: ErrorSerializer for code in (400, 401, 429)}
    return extend_schema(
        operation_id=operation_id,
        tags=["Markt"],
        summary=summary,
        description=description,
        parameters=[NAME_PARAMETER],
        responses={200: MarketSummarySerializer, **errors},
    )


class BuyerMarketView(_MarketView):
    role = BUYER

    @_schema(
        "market_buyer_retrieve",
        "Markt einer Vergabestelle",
        "Ausschreibungen pro Jahr, Zuschläge an, Summen und Mediane je Währung und Herkunft (Zuschlagswert oder "
        "Schätzwert) über die neuesten Ausschreibungen; dieselben Zahlen wie die Seite im Portal und ihr CSV.",
    )
    def get(self, request):
        return super().get(request)


class SupplierMarketView(_MarketView):
    role = SUPPLIER

    @_schema(
        "market_supplier_retrieve",
        "Markt eines Bieters",
        "Gewonnene Ausschreibungen, nur die Lose des Bieters gezählt, Summen und Mediane je Währung; Schätzwerte "
        "zählen nicht (sie gelten für die ganze Ausschreibung). Dieselben Zahlen wie die Seite im Portal und ihr CSV.",
    )
    def get(self, request):
        return super().get(request)
