"""API shapes. Tenders are rendered by ``tenders.selectors.tender_representation`` (the one public shape);
the serializers here declare that shape for the OpenAPI schema and validate input. They never write.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from kernel.vocabulary.provenance import Origin
from notifications.api.filter_schema import TenderFiltersSerializer
from notifications.models import SavedSearch, TenderMatch
from tenders.filter_fields import FILTER_NAMES
from tenders.filters import STATUSES, FilterError, TenderFilters, parse_filters
from tenders.representation import tender_representation

FILTER_KEYS = FILTER_NAMES


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="maschinenlesbar, z. B. invalid_filters, not_found, throttled")
    message = serializers.CharField()
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Parameter (verschachtelt mit Punkt, z. B. filters.cpv) -> Meldungen",
    )


class ErrorSerializer(serializers.Serializer):
    """The shape of every error response."""

    error = ErrorDetailSerializer()


class LotSerializer(serializers.Serializer):
    lot_id = serializers.CharField()
    title = serializers.CharField()
    cpv_codes = serializers.ListField(child=serializers.CharField())
    estimated_value = serializers.CharField(allow_null=True, help_text="Dezimalzahl als Text")


class NutsRegionSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="NUTS-Code, z. B. DE212")
    name = serializers.CharField(
        help_text="Amtlicher Name, z. B. München, Kreisfreie Stadt; bei ausländischen Regionen der Staat; "
        "leer, wenn unbekannt"
    )


class TenderSourceSerializer(serializers.Serializer):
    portal = serializers.CharField(help_text="Schlüssel der Quelle, z. B. doe, ted")
    notice_id = serializers.CharField()
    url = serializers.URLField(allow_null=True)
    merge_rule = serializers.CharField(help_text="Warum diese Bekanntmachung der Ausschreibung zugeordnet wurde")
    latest_version = serializers.CharField()
    first_seen_at = serializers.DateTimeField()


class TenderVersionSerializer(serializers.Serializer):
    source = serializers.CharField()
    notice_id = serializers.CharField()
    version = serializers.CharField()
    kind = serializers.CharField()
    published_at = serializers.DateTimeField(allow_null=True)
    changes = serializers.DictField(help_text="Feld -> [alt, neu] gegenüber der vorigen Fassung")


class BuyerSerializer(serializers.Serializer):
    name = serializers.CharField()
    id = serializers.CharField(help_text="Leitweg-ID, USt-IdNr. oder Registernummer; leer wenn unbekannt")
    street = serializers.CharField()
    postal_code = serializers.CharField()
    town = serializers.CharField()
    country = serializers.CharField(help_text="ISO 3166-1 alpha-3, z. B. DEU")
    email = serializers.CharField()
    phone = serializers.CharField()


class DeadlineSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["angebotsfrist", "teilnahmefrist", "fragenfrist", "eroeffnungstermin"])
    label = serializers.CharField(
        help_text="Angebotsfrist, Teilnahmefrist, Fragenfrist oder Eröffnungstermin (Öffnung der Angebote, keine Frist)"
    )
    datetime = serializers.DateTimeField()
    lot = serializers.CharField(allow_null=True, help_text="Los, für das die Frist gilt; null = alle Lose")


class AwardSerializer(serializers.Serializer):
    lot = serializers.CharField(allow_null=True)
    status = serializers.CharField(
        help_text="awarded: Zuschlag erteilt; not_awarded: ohne Zuschlag beendet; open: noch offen"
    )
    supplier_name = serializers.CharField(allow_null=True)
    supplier_id = serializers.CharField(allow_null=True)
    supplier_town = serializers.CharField(allow_null=True)
    supplier_country = serializers.CharField(allow_null=True)
    value = serializers.CharField(allow_null=True, help_text="Auftragswert (Zuschlag), Dezimalzahl als Text")
    currency = serializers.CharField(allow_null=True)
    tenders_received = serializers.IntegerField(allow_null=True, help_text="Anzahl eingegangener Angebote")
    date = serializers.DateField(allow_null=True, help_text="Vertragsschluss oder Zuschlagsentscheidung")


class NoticeRefSerializer(serializers.Serializer):
    source = serializers.CharField(help_text="Schlüssel der Quelle, z. B. doe, ted, ein Portal oder ein Feed")
    notice_id = serializers.CharField()
    version = serializers.CharField()
    kind = serializers.CharField(help_text="contract_notice, change, award, cancellation, prior_information")
    origin = serializers.ChoiceField(
        choices=[origin.value for origin in Origin],
        help_text="Rang der Quelle: amtliche Bekanntmachung > Detailseite > Ergebnisliste > RSS-Feed > Mail",
    )
    published_at = serializers.DateTimeField(allow_null=True)


class ConflictSerializer(serializers.Serializer):
    field = serializers.ChoiceField(
        choices=["title", "buyer_name", "submission_deadline", "estimated_value", "postal_code", "town", "bundesland"]
    )
    value = serializers.CharField(help_text="Was die schwächere Quelle angibt (Zeitpunkte ISO 8601, Werte als Text)")
    source = NoticeRefSerializer()
    chosen_value = serializers.CharField(help_text="Der angezeigte Wert")
    chosen_source = NoticeRefSerializer()


class TenderSerializer(serializers.Serializer):
    """Declares ``tender_representation`` for the schema; rendering is delegated to it."""

    id = serializers.IntegerField()
    ocid = serializers.CharField(allow_null=True)
    procedure_id = serializers.CharField(allow_null=True)
    title = serializers.CharField()
    description = serializers.CharField()
    buyer_name = serializers.CharField()
    buyer_id = serializers.CharField()
    procedure_type = serializers.CharField()
    procedure_type_label = serializers.CharField()
    status = serializers.ChoiceField(choices=STATUSES)
    cpv_codes = serializers.ListField(child=serializers.CharField())
    cpv_divisions = serializers.ListField(child=serializers.CharField())
    nuts = serializers.ListField(child=serializers.CharField())
    nuts_regions = NutsRegionSerializer(many=True, help_text="Die NUTS-Codes aus nuts, je mit Namen")
    bundesland = serializers.CharField()
    postal_code = serializers.CharField()
    town = serializers.CharField()
    estimated_value = serializers.CharField(allow_null=True, help_text="Dezimalzahl als Text, z. B. 125000.00")
    currency = serializers.CharField(allow_null=True)
    published_at = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True, help_text="Angebotsfrist (Europe/Berlin mit Offset)")
    questions_deadline = serializers.DateTimeField(allow_null=True)
    lots = LotSerializer(many=True)
    documents_url = serializers.URLField(allow_null=True)
    buyer = BuyerSerializer()
    legal_basis = serializers.CharField(allow_null=True, help_text="Code, z. B. vgv, vob-a-eu, uvgo, sektvo")
    legal_basis_label = serializers.CharField(allow_null=True, help_text="z. B. VgV, VOB/A-EU, UVgO")
    above_eu_threshold = serializers.BooleanField(allow_null=True, help_text="Oberschwellenvergabe; null = unbekannt")
    contract_nature = serializers.ChoiceField(choices=["works", "supplies", "services"], allow_null=True)
    country = serializers.CharField(allow_null=True, help_text="Land des Leistungsorts, ISO 3166-1 alpha-3")
    main_cpv = serializers.CharField(allow_null=True, help_text="Haupt-CPV-Code (8 Ziffern)")
    deadlines = DeadlineSerializer(many=True)
    ted_publication_number = serializers.CharField(allow_null=True, help_text="TED-Veröffentlichungsnummer")
    ted_url = serializers.URLField(allow_null=True)
    contract_start = serializers.DateField(allow_null=True)
    contract_end = serializers.DateField(allow_null=True)
    contract_duration = serializers.CharField(allow_null=True, help_text="ISO-8601-Dauer, z. B. P24M")
    framework_agreement = serializers.BooleanField(allow_null=True, help_text="Rahmenvereinbarung")
    awards = AwardSerializer(many=True)
    fields_source = serializers.DictField(
        child=NoticeRefSerializer(),
        help_text="Feld -> Bekanntmachung (Quelle, Version), aus der der angezeigte Wert stammt",
    )
    conflicts = ConflictSerializer(many=True, help_text="Abweichende Angaben schwächerer Quellen")
    first_seen_at = serializers.DateTimeField()
    last_seen_at = serializers.DateTimeField()
    sources = TenderSourceSerializer(many=True)
    versions = TenderVersionSerializer(many=True)

    def to_representation(self, instance):
        return tender_representation(instance)


@extend_schema_field(TenderFiltersSerializer)
class TenderFiltersField(serializers.Field):
    """A saved search's filters: parsed by the same rules as the portal's search form."""

    def to_internal_value(self, data) -> TenderFilters:
        if not isinstance(data, dict):
            raise serializers.ValidationError(_('Ein Objekt mit Filtern erwartet, z. B. {"q": "Dach"}.'))
        unknown = sorted(set(data) - set(FILTER_KEYS))
        if unknown:
            raise serializers.ValidationError(
                {key: _("Unbekannter Filter; erlaubt: %(keys)s.") % {"keys": ", ".join(FILTER_KEYS)} for key in unknown}
            )
        params = {}
        for key, value in data.items():
            values = value if isinstance(value, list) else [value]
            if any(isinstance(v, (dict, list, bool)) for v in values):
                raise serializers.ValidationError({key: _("Text, Zahl oder eine Liste davon erwartet.")})
            params[key] = [str(v) for v in values if v is not None]
        try:
            return parse_filters(params)
        except FilterError as exc:
            raise serializers.ValidationError(exc.errors) from exc

    def to_representation(self, value):
        return value if isinstance(value, dict) else value.to_json()


class SavedSearchSerializer(serializers.ModelSerializer):
    # DRF's own message names the Python type the body parsed to ("… aber list erhalten").
    default_error_messages = {"invalid": gettext_lazy("Erwartet wird ein JSON-Objekt mit den Feldern des Suchprofils.")}

    filters = TenderFiltersField()
    owner = serializers.EmailField(source="owner.email", read_only=True)
    is_own = serializers.SerializerMethodField(help_text="Nur eigene Suchprofile können geändert werden.")

    class Meta:
        model = SavedSearch
        fields = [
            "id",
            "name",
            "filters",
            "is_shared",
            "instant_alert",
            "email_enabled",
            "is_active",
            "active_since",
            "owner",
            "is_own",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "active_since", "owner", "is_own", "created_at", "updated_at"]

    def get_is_own(self, obj) -> bool:
        request = self.context.get("request")
        return request is not None and obj.owner_id == request.user.pk


class SavedSearchRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class WordHitsSerializer(serializers.Serializer):
    field = serializers.ChoiceField(choices=["title", "buyer", "description", "lots", "cpv_labels"])
    words = serializers.ListField(
        child=serializers.CharField(), help_text="Die getroffenen Wörter, wie dort geschrieben"
    )


class CpvReasonSerializer(serializers.Serializer):
    filter = serializers.CharField(help_text="CPV-Code des Suchprofils")
    code = serializers.CharField(help_text="CPV-Code der Ausschreibung darin (derselbe oder ein untergeordneter)")


class FilterReasonSerializer(serializers.Serializer):
    filter = serializers.CharField(help_text="Filter des Suchprofils, z. B. bundesland, plz, value_min, status")
    value = serializers.CharField(help_text="Der Wert der Ausschreibung, der ihn erfüllt")


class MatchReasonsSerializer(serializers.Serializer):
    words = WordHitsSerializer(many=True, help_text="Welche Suchwörter welches Feld getroffen haben")
    only_cpv_label = serializers.BooleanField(help_text="Die Suchwörter treffen nur eine CPV-Bezeichnung")
    cpv = CpvReasonSerializer(many=True)
    filters = FilterReasonSerializer(many=True)


class TenderMatchSerializer(serializers.ModelSerializer):
    saved_search = SavedSearchRefSerializer()
    tender = TenderSerializer()
    match_reasons = serializers.SerializerMethodField(help_text="Warum gefunden; null bei unlesbaren Filtern")

    class Meta:
        model = TenderMatch
        fields = ["id", "saved_search", "matched_at", "notified_at", "match_reasons", "tender"]
        read_only_fields = fields

    @extend_schema_field(MatchReasonsSerializer(allow_null=True))
    def get_match_reasons(self, obj) -> dict | None:
        # Computed per page by the view (notifications.api.selectors.match_reasons_of), never per row here.
        return self.context.get("match_reasons", {}).get(obj.pk)
