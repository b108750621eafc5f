"""Partner API v1 edges: parse input, call a selector or service, render. Authentication by API key only."""

from __future__ import annotations

import re
from datetime import datetime, time

from django.http import Http404
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.response import Response

from kernel.vocabulary.time_zone import BERLIN
from notifications.api.authentication import ApiKeyAuthentication
from notifications.api.errors import FieldErrors, api_exception_handler
from notifications.api.filter_schema import FILTER_PARAMETERS
from notifications.api.pagination import MatchCursorPagination, PageWithoutCount
from notifications.api.parsers import JsonBodyParser
from notifications.api.renderers import FastJSONRenderer
from notifications.api.selectors import (
    match_list,
    match_reasons_of,
    saved_search_visible_to,
    tender_detail,
    tender_search,
)
from notifications.api.serializers import (
    ErrorSerializer,
    SavedSearchSerializer,
    TenderMatchSerializer,
    TenderSerializer,
)
from notifications.api.throttling import ApiKeyRateThrottle
from notifications.portal.selectors import saved_search_can_edit
from notifications.portal.services import saved_search_create, saved_search_delete, saved_search_update
from tenders.filters import ORDERS, parse_filters
from tenders.models import Tender
from tenders.representation import tender_representations


class PartnerApiView(GenericAPIView):
    """API keys only (no session cookies, hence no CSRF surface), throttled per key, JSON in and out."""

    authentication_classes = [ApiKeyAuthentication]
    parser_classes = [JsonBodyParser]
    renderer_classes = [FastJSONRenderer, BrowsableAPIRenderer]
    permission_classes = [IsAuthenticated]
    throttle_classes = [ApiKeyRateThrottle]
    pagination_class = PageWithoutCount

    def get_exception_handler(self):
        return api_exception_handler


def _errors(*codes: int) -> dict:
    """Every operation may answer 401 (no or bad key) and 429 (rate); plus the listed codes."""
    return {code: ErrorSerializer for code in (*codes, 401, 429)}


ORDER_PARAMETER = OpenApiParameter(
    "order",
    OpenApiTypes.STR,
    enum=list(ORDERS),
    description=(
        "relevance (Standard; ohne Suchbegriff: neueste zuerst), deadline (offene Fristen zuerst, nächste "
        "zuerst; dann abgelaufene, zuletzt abgelaufene zuerst; dann ohne Frist), published"
    ),
)


class TenderListView(PartnerApiView):
    serializer_class = TenderSerializer

    @extend_schema(
        operation_id="tenders_list",
        tags=["Ausschreibungen"],
        summary="Ausschreibungen suchen",
        responses={200: TenderSerializer(many=True), **_errors(400)},
        description="Dieselben Filter wie die Suche im Portal. Seiten ohne Gesamtzahl (next/previous).",
        parameters=[*FILTER_PARAMETERS, ORDER_PARAMETER],
    )
    def get(self, request):
        filters = parse_filters(request.query_params)  # FilterError: 400 by the handler
        order = request.query_params.get("order") or "relevance"
        if order not in ORDERS:
            raise FieldErrors({"order": _("Erlaubt: %(orders)s.") % {"orders": ", ".join(ORDERS)}})
        # A relevance list ranks its candidates where they are read and holds only what this page reads.
        shown = self.paginator.rows_read(request)
        tenders = tender_search(filters=filters, order=order, now=timezone.now(), shown=shown)
        return self.get_paginated_response(tender_representations(tenders=self.paginate_queryset(tenders)))


class TenderDetailView(PartnerApiView):
    serializer_class = TenderSerializer
    pagination_class = None

    @extend_schema(
        operation_id="tenders_retrieve",
        tags=["Ausschreibungen"],
        summary="Eine Ausschreibung mit Quellen und Fassungen",
        description="Alle Portale, auf denen die Ausschreibung erschienen ist, und jede gesehene Fassung.",
        responses={200: TenderSerializer, **_errors(404)},
    )
    def get(self, request, pk: int):
        try:
            tender = tender_detail(tender_id=pk)
        except Tender.DoesNotExist as exc:
            raise Http404 from exc
        return Response(self.get_serializer(tender).data)


class SavedSearchListView(PartnerApiView):
    serializer_class = SavedSearchSerializer

    @extend_schema(
        operation_id="saved_searches_list",
        tags=["Suchprofile"],
        summary="Eigene und im Unternehmen geteilte Suchprofile",
        description="Ein Schlüssel handelt für die Person, die ihn angelegt hat: deren Suchprofile und die geteilten.",
        responses={200: SavedSearchSerializer(many=True), **_errors(400)},
    )
    def get(self, request):
        page = self.paginate_queryset(saved_search_visible_to(user=request.user))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        operation_id="saved_searches_create",
        tags=["Suchprofile"],
        summary="Suchprofil anlegen (findet Ausschreibungen ab jetzt)",
        description="Filter wie bei der Suche; gehört der Person, die den Schlüssel angelegt hat.",
        responses={201: SavedSearchSerializer, **_errors(400)},
    )
    def post(self, request):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        # A refusal (duplicate name, no filter) is an ApplicationError: 400 by the exception handler.
        saved_search = saved_search_create(owner=request.user, **serializer.validated_data)
        return Response(self.get_serializer(saved_search).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(
        operation_id="saved_searches_retrieve",
        summary="Ein Suchprofil",
        description="Eigene oder geteilte Suchprofile; andere antworten 404.",
        responses={200: SavedSearchSerializer, **_errors(404)},
    ),
    put=extend_schema(
        operation_id="saved_searches_update",
        summary="Eigenes Suchprofil ersetzen",
        description="Geteilte Suchprofile anderer sind nur lesbar (403).",
        responses={200: SavedSearchSerializer, **_errors(400, 403, 404)},
    ),
    patch=extend_schema(
        operation_id="saved_searches_partial_update",
        summary="Eigenes Suchprofil ändern (Reaktivierung: Treffer ab jetzt)",
        description="Nur übergebene Felder ändern sich. Geteilte Suchprofile anderer sind nur lesbar (403).",
        responses={200: SavedSearchSerializer, **_errors(400, 403, 404)},
    ),
    delete=extend_schema(
        operation_id="saved_searches_destroy",
        summary="Eigenes Suchprofil löschen",
        description="Löscht auch die Treffer des Suchprofils.",
        responses={204: None, **_errors(403, 404)},
    ),
)
@extend_schema(tags=["Suchprofile"])
class SavedSearchDetailView(PartnerApiView):
    serializer_class = SavedSearchSerializer
    pagination_class = None

    def _visible(self, pk: int):
        saved_search = saved_search_visible_to(user=self.request.user).filter(pk=pk).first()
        if saved_search is None:
            raise Http404
        return saved_search

    def _editable(self, pk: int):
        saved_search = self._visible(pk)
        if not saved_search_can_edit(user=self.request.user, saved_search=saved_search):  # the portal's rule
            raise PermissionDenied(
                _("Nur eigene Suchprofile (und als Administrator geteilte) können geändert oder gelöscht werden.")
            )
        return saved_search

    def get(self, request, pk: int):
        return Response(self.get_serializer(self._visible(pk)).data)

    def put(self, request, pk: int):
        return self._update(request, pk, partial=False)

    def patch(self, request, pk: int):
        return self._update(request, pk, partial=True)

    def _update(self, request, pk: int, *, partial: bool):
        saved_search = self._editable(pk)
        serializer = self.get_serializer(saved_search, data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        saved = saved_search_update(saved_search=saved_search, actor=request.user, **serializer.validated_data)
        # The saved state, even when the change took the profile out of the caller's sight
        # (an admin making someone's shared profile private): the write succeeded, so 200.
        return Response(self.get_serializer(saved).data)

    def delete(self, request, pk: int):
        saved_search_delete(saved_search=self._editable(pk), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _since_or_400(raw: str | None) -> datetime | None:
    """ISO date or datetime; without an offset it means Europe/Berlin."""
    if not raw:
        return None
    try:
        value = parse_datetime(raw)
        if value is None and (day := parse_date(raw)) is not None:
            value = datetime.combine(day, time.min)
    except ValueError:
        value = None
    if value is None:
        raise FieldErrors({"since": _("Datum oder Zeitpunkt im ISO-Format, z. B. 2026-05-01T08:00:00+02:00.")})
    return value if timezone.is_aware(value) else value.replace(tzinfo=BERLIN)


class MatchListView(PartnerApiView):
    serializer_class = TenderMatchSerializer
    pagination_class = MatchCursorPagination

    @extend_schema(
        operation_id="matches_list",
        tags=["Treffer"],
        responses={200: TenderMatchSerializer(many=True), **_errors(400)},
        summary="Treffer der sichtbaren Suchprofile, neueste zuerst",
        description=(
            "Zum Abholen neuer Treffer: since = Zeitpunkt der letzten Abfrage. Seiten per Cursor: dem Link "
            "next folgen, bis er null ist; neue Treffer während des Blätterns verschieben keine Seite."
        ),
        parameters=[
            OpenApiParameter("saved_search", OpenApiTypes.INT, description="nur Treffer dieses Suchprofils"),
            OpenApiParameter("since", OpenApiTypes.DATETIME, description="nur Treffer ab diesem Zeitpunkt"),
        ],
    )
    def get(self, request):
        saved_search_id = None
        if raw := request.query_params.get("saved_search"):
            visible = saved_search_visible_to(user=request.user)
            if not re.fullmatch(r"[0-9]{1,18}", raw) or not visible.filter(pk=int(raw)).exists():
                raise FieldErrors({"saved_search": _("Unbekanntes Suchprofil.")})
            saved_search_id = int(raw)
        since = _since_or_400(request.query_params.get("since"))
        page = self.paginate_queryset(match_list(user=request.user, saved_search_id=saved_search_id, since=since))
        serializer = self.get_serializer(page, many=True, context=self.get_serializer_context())
        serializer.context["match_reasons"] = match_reasons_of(matches=page)
        return self.get_paginated_response(serializer.data)
