"""Partner API v1: the team board (stages with counts, cards, decisions and reasons), read and worked.

Thin edges over the board's selectors and services: a key acts for the person who created it, with that
person's rights on the board (every member works every card, as in the portal). A card of another tenant
does not exist here (404); a refused change is a 400 naming its field.
"""

from __future__ import annotations

import re

from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from notifications.api.board_serializers import (
    BoardSerializer,
    CardChangeSerializer,
    CardDecisionSerializer,
    CardDetailSerializer,
    CardSerializer,
    DecisionReasonSerializer,
    StageSerializer,
    card_data,
    stage_data,
)
from notifications.api.errors import FieldErrors
from notifications.api.pagination import MatchCursorPagination
from notifications.api.views import PartnerApiView, _errors, _since_or_400
from notifications.bids.changes import bid_card_change
from notifications.bids.listing import bid_card_list, bid_stage_counts
from notifications.bids.selectors import bid_card_detail, bid_card_exists, bid_stages, decision_reasons
from notifications.models import CardEventKind
from notifications.webhooks.card_events import person_data

TAG = "Angebote"
_ID = re.compile(r"[0-9]{1,18}")
_TRUE, _FALSE = ("1", "true", "ja"), ("", "0", "false", "nein")


class CardCursorPagination(MatchCursorPagination):
    """Last changed first. A card changed while a partner pages moves to the front (it is newer than every row
    seen), so the pages still to come neither repeat nor skip a card; the changed card is found again by
    ``updated_since`` on the next poll."""

    ordering = ("-updated_at", "-id")


class BoardView(PartnerApiView):
    serializer_class = BoardSerializer
    pagination_class = None

    @extend_schema(
        operation_id="board_retrieve",
        tags=[TAG],
        summary="Das Board: Phasen mit Anzahl der Karten",
        description="Jede Phase in der Reihenfolge des Boards, mit allen Karten und den standardmäßig gezeigten.",
        responses={200: BoardSerializer, **_errors()},
    )
    def get(self, request):
        counts = bid_stage_counts(now=timezone.now())
        stages = [{**stage_data(c.stage), "cards": c.cards, "open_cards": c.open_cards} for c in counts]
        return Response({"stages": stages})


class StageListView(PartnerApiView):
    serializer_class = StageSerializer
    pagination_class = None

    @extend_schema(
        operation_id="stages_list",
        tags=[TAG],
        summary="Phasen des Boards",
        description="Legen Administratoren im Portal an; die IDs nimmt PATCH /cards/{id}/ als stage.",
        responses={200: StageSerializer(many=True), **_errors()},
    )
    def get(self, request):
        return Response([stage_data(stage) for stage in bid_stages()])


class DecisionReasonListView(PartnerApiView):
    serializer_class = DecisionReasonSerializer
    pagination_class = None

    @extend_schema(
        operation_id="decision_reasons_list",
        tags=[TAG],
        summary="Gründe für Entscheidungen",
        description="Die wählbaren Gründe; mit include_retired=true auch nicht mehr wählbare (an alten Karten).",
        parameters=[
            OpenApiParameter("include_retired", OpenApiTypes.BOOL, description="auch nicht mehr wählbare Gründe")
        ],
        responses={200: DecisionReasonSerializer(many=True), **_errors(400)},
    )
    def get(self, request):
        retired = _flag(request, "include_retired")
        reasons = decision_reasons(active_only=not retired)
        return Response([{"id": r.pk, "label": r.label, "is_active": r.is_active} for r in reasons])


def _flag(request, name: str) -> bool:
    raw = (request.query_params.get(name) or "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise FieldErrors({name: _("Erlaubt: true oder false.")})


def _card_filters(request) -> dict:
    filters: dict = {"user": request.user, "include_closed": _flag(request, "include_closed")}
    if raw := request.query_params.get("stage"):
        if not _ID.fullmatch(raw) or int(raw) not in {stage.pk for stage in bid_stages()}:
            raise FieldErrors({"stage": _("Diese Phase gibt es nicht.")})
        filters["stage_id"] = int(raw)
    if raw := request.query_params.get("owner"):
        if raw == "me":
            filters["owner_id"] = request.user.pk
        elif _ID.fullmatch(raw):
            filters["owner_id"] = int(raw)
        else:
            raise FieldErrors({"owner": _("Erlaubt: me oder die ID einer Person.")})
    try:
        filters["updated_since"] = _since_or_400(request.query_params.get("updated_since"))
    except FieldErrors as exc:
        raise FieldErrors({"updated_since": exc.detail["since"]}) from exc
    return filters


class CardListView(PartnerApiView):
    serializer_class = CardSerializer
    pagination_class = CardCursorPagination

    @extend_schema(
        operation_id="cards_list",
        tags=[TAG],
        summary="Karten des Boards, zuletzt geänderte zuerst",
        description=(
            "Wie das Board: ohne include_closed fehlen Karten in abgeschlossenen Phasen und Karten, deren "
            "Ausschreibung abgelaufen, vergeben oder aufgehoben ist. Zum Abholen von Änderungen: updated_since = "
            "Zeitpunkt der letzten Abfrage. Seiten per Cursor: dem Link next folgen, bis er null ist."
        ),
        parameters=[
            OpenApiParameter("stage", OpenApiTypes.INT, description="nur Karten dieser Phase"),
            OpenApiParameter("owner", OpenApiTypes.STR, description="me (die Person des Schlüssels) oder eine ID"),
            OpenApiParameter(
                "include_closed", OpenApiTypes.BOOL, description="auch abgeschlossene Karten und Ausschreibungen"
            ),
            OpenApiParameter(
                "updated_since", OpenApiTypes.DATETIME, description="nur Karten, die sich seitdem geändert haben"
            ),
        ],
        responses={200: CardSerializer(many=True), **_errors(400)},
    )
    def get(self, request):
        page = self.paginate_queryset(bid_card_list(**_card_filters(request), now=timezone.now()))
        return self.get_paginated_response([card_data(card, link=request.build_absolute_uri) for card in page])


def _known_or_404(card_id: int) -> None:
    # Another tenant's card id is "not found" before the body is parsed or validated (no 400/415 telling it apart).
    if not bid_card_exists(card_id=card_id):
        raise Http404


def _detail_data(request, card_id: int) -> dict:
    detail = bid_card_detail(card_id=card_id)
    if detail is None:
        raise Http404
    link = request.build_absolute_uri
    data = card_data(detail.card, link=link)
    data["comments"] = [
        {"id": c.pk, "author": person_data(c.author), "text": c.text, "created_at": c.created_at}
        for c in detail.comments
    ]
    data["events"] = [
        {
            "id": e.pk,
            "kind": e.kind,
            "label": str(CardEventKind(e.kind).label) if e.kind in CardEventKind.values else e.kind,
            "actor": person_data(e.actor),
            "data": e.data,
            "created_at": e.created_at,
        }
        for e in detail.events
    ]
    return data


# The body's fields as ``bid_card_change`` names them: PATCH and the decision POST are one service.
CHANGE_ARGUMENTS = {"stage": "stage_id", "owner": "owner_id", "due_date": "due_date", "watchers": "watcher_ids"}
DECISION_ARGUMENTS = {"decision": "decision", "reason": "reason_id"}


def _card_changed(request, pk: int, serializer_class, arguments: dict) -> Response:
    _known_or_404(pk)
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    changes = {arguments[name]: value for name, value in serializer.validated_data.items()}
    bid_card_change(card_id=pk, actor=request.user, **changes)
    return Response(_detail_data(request, pk))


class CardDetailView(PartnerApiView):
    serializer_class = CardDetailSerializer
    pagination_class = None

    @extend_schema(
        operation_id="cards_retrieve",
        tags=[TAG],
        summary="Eine Karte mit Ausschreibung, Personen, Entscheidung, Kommentaren und Verlauf",
        responses={200: CardDetailSerializer, **_errors(404)},
    )
    def get(self, request, pk: int):
        return Response(_detail_data(request, pk))

    @extend_schema(
        operation_id="cards_partial_update",
        tags=[TAG],
        summary="Karte verschieben, zuweisen, Termin oder Beobachter setzen",
        description=(
            "Nur übergebene Felder ändern sich; alle oder keine (bei einem Fehler bleibt die Karte, wie sie war). "
            "Jede Änderung steht im Verlauf; ein Phasenwechsel sendet das Webhook-Ereignis card.stage_changed."
        ),
        request=CardChangeSerializer,
        responses={200: CardDetailSerializer, **_errors(400, 404)},
    )
    def patch(self, request, pk: int):
        return _card_changed(request, pk, CardChangeSerializer, CHANGE_ARGUMENTS)


class CardDecisionView(PartnerApiView):
    serializer_class = CardDecisionSerializer
    pagination_class = None

    @extend_schema(
        operation_id="cards_decision_create",
        tags=[TAG],
        summary="Angebot oder kein Angebot entscheiden",
        description=(
            "no_bid braucht einen Grund und verschiebt die Karte in die erste Phase „nicht angeboten“. Sendet die "
            "Webhook-Ereignisse card.decided und, wenn die Karte die Phase wechselt, card.stage_changed."
        ),
        request=CardDecisionSerializer,
        responses={200: CardDetailSerializer, **_errors(400, 404)},
    )
    def post(self, request, pk: int):
        return _card_changed(request, pk, CardDecisionSerializer, DECISION_ARGUMENTS)
