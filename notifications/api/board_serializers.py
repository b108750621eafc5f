"""API shapes of the team board: stages with counts, cards with their tender, people, decision and history.

Output is rendered from the board's selectors (``notifications.bids.listing``, ``bids.selectors``); input is
only checked for its form here, every rule (permissions, active people, reasons) is the board's services'.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from rest_framework import serializers

from notifications.models import BidCard, BidDecision, BidStageKind
from notifications.webhooks.card_events import person_data

DECISIONS = [value for value in BidDecision.values if value]


class StageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=BidStageKind.choices,
        help_text="open: in Arbeit; won: gewonnen; lost: verloren; declined: nicht angeboten (die drei letzten "
        "gelten als abgeschlossen)",
    )
    position = serializers.IntegerField(help_text="Reihenfolge auf dem Board")


class BoardStageSerializer(StageSerializer):
    cards = serializers.IntegerField(help_text="Alle Karten in dieser Phase")
    open_cards = serializers.IntegerField(
        help_text="Karten, die das Board ohne „abgeschlossene zeigen“ zeigt (Ausschreibung noch offen); 0 in "
        "abgeschlossenen Phasen"
    )


class BoardSerializer(serializers.Serializer):
    stages = BoardStageSerializer(many=True)


class DecisionReasonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()
    is_active = serializers.BooleanField(help_text="false: nicht mehr wählbar, bleibt an alten Karten")


class ReasonRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()


class PersonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    email = serializers.CharField()
    name = serializers.CharField(help_text="Vor- und Nachname; leer, wenn nicht gepflegt")


class CardTenderSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    buyer_name = serializers.CharField(help_text="Vergabestelle")
    postal_code = serializers.CharField()
    town = serializers.CharField()
    status = serializers.CharField()
    estimated_value = serializers.CharField(allow_null=True, help_text="Geschätzter Wert, Dezimalzahl als Text")
    currency = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True, help_text="Angebotsfrist")
    url = serializers.URLField(help_text="Die Ausschreibung in der API")


class DecisionSerializer(serializers.Serializer):
    value = serializers.ChoiceField(
        choices=BidDecision.choices, help_text="leer: offen; bid: Angebot abgeben; no_bid: kein Angebot"
    )
    label = serializers.CharField()
    reason = ReasonRefSerializer(allow_null=True, help_text="Grund der Entscheidung; null: keiner")


class CardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    stage = StageSerializer()
    tender = CardTenderSerializer()
    owner = PersonSerializer(allow_null=True, help_text="zuständig; null: niemand")
    watchers = PersonSerializer(many=True, help_text="beobachten die Karte")
    due_date = serializers.DateField(allow_null=True, help_text="interner Termin des Teams")
    decision = DecisionSerializer()
    updated_at = serializers.DateTimeField(help_text="letzte Änderung der Karte")
    url = serializers.URLField(help_text="Die Karte in der API")
    portal_url = serializers.URLField(help_text="Die Karte im Portal")


class CommentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    author = PersonSerializer(allow_null=True)
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class CardEventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField(
        help_text="created, stage, owner, watchers, due, decision, comment (und künftige Arten)"
    )
    label = serializers.CharField(help_text="die Art in der Sprache der Anfrage")
    actor = PersonSerializer(allow_null=True, help_text="null: das System (z. B. neuer Treffer)")
    data = serializers.DictField(help_text="was sich geändert hat, z. B. from/to bei einem Phasenwechsel")
    created_at = serializers.DateTimeField()


class CardDetailSerializer(CardSerializer):
    comments = CommentSerializer(many=True, help_text="älteste zuerst")
    events = CardEventSerializer(many=True, help_text="Verlauf, neueste zuerst (höchstens 100)")


class CardChangeSerializer(serializers.Serializer):
    """PATCH: only the fields sent change; each change is recorded in the card's history."""

    stage = serializers.IntegerField(required=False, min_value=1, help_text="ID der neuen Phase")
    owner = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, help_text="ID der zuständigen Person; null: niemand"
    )
    due_date = serializers.DateField(required=False, allow_null=True, help_text="interner Termin; null: keiner")
    watchers = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=200,
        help_text="IDs aller Beobachter (ersetzt die bisherigen)",
    )

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError(_("Mindestens eines der Felder stage, owner, due_date, watchers."))
        return attrs


class CardDecisionSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(
        choices=BidDecision.choices, allow_blank=True, help_text="bid, no_bid oder leer (wieder offen)"
    )
    reason = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="ID eines aktiven Grunds; bei no_bid Pflicht (die Karte geht nach „nicht angeboten“)",
    )


def stage_data(stage) -> dict:
    return {"id": stage.pk, "name": stage.name, "kind": stage.kind, "position": stage.position}


def _text(value) -> str | None:
    return None if value is None else f"{value:.2f}"


def card_data(card: BidCard, *, link) -> dict:
    """A card as the API shows it; ``link`` makes a path absolute (``request.build_absolute_uri``)."""
    tender = card.tender
    reason = card.decision_reason
    return {
        "id": card.pk,
        "stage": stage_data(card.stage),
        "tender": {
            "id": tender.id,
            "title": tender.title,
            "buyer_name": tender.buyer_name or "",
            "postal_code": tender.postal_code or "",
            "town": tender.town or "",
            "status": tender.status or "",
            "estimated_value": _text(tender.estimated_value),
            "currency": tender.currency or "",
            "deadline": tender.submission_deadline,
            "url": link(reverse("api-tender-detail", args=[tender.id])),
        },
        "owner": person_data(card.owner),
        "watchers": [person_data(user) for user in sorted(card.watchers.all(), key=lambda u: u.pk)],
        "due_date": card.due_date,
        "decision": {
            "value": card.decision,
            "label": str(BidDecision(card.decision).label),
            "reason": {"id": reason.pk, "label": reason.label} if reason else None,
        },
        "updated_at": card.updated_at,
        "url": link(reverse("api-card-detail", args=[card.pk])),
        "portal_url": link(reverse("bids:card", args=[card.pk])),
    }
