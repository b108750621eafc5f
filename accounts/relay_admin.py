"""Operator console: internal mail servers tenants may use, and the read-only record of every change to that list."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import InternalRelay, InternalRelayChange, RelayProtocol
from accounts.services import internal_relay_delete, internal_relay_entry_check, internal_relay_save

_FIELD_LABELS = {"target": "Host oder Netz", "protocol": "Protokoll", "port": "Port", "note": "Notiz"}


class InternalRelayForm(forms.ModelForm):
    class Meta:
        model = InternalRelay
        fields = ["target", "protocol", "port", "note"]

    def clean(self):
        # The service's own check, shown beside the fields instead of refusing the save.
        cleaned = super().clean()
        fields = ("target", "protocol", "port")
        if any(field in self.errors for field in fields):
            return cleaned  # a field Django already refused (empty, not a number) is reported as such
        target, errors = internal_relay_entry_check(**{field: cleaned.get(field) for field in fields})
        for field, message in errors.items():
            self.add_error(field, message)
        if not errors:
            cleaned["target"] = target
        return cleaned


@admin.register(InternalRelay)
class InternalRelayAdmin(admin.ModelAdmin):
    """Everything not listed stays refused; each save and delete goes through the service, which records it."""

    form = InternalRelayForm
    list_display = ("target", "protocol", "port_text", "note")
    list_filter = ("protocol",)
    search_fields = ("target", "note")

    @admin.display(description=gettext_lazy("Port"), ordering="port")
    def port_text(self, obj) -> str:
        return str(obj.port) if obj.port else _("jeder")

    def save_model(self, request, obj, form, change):
        saved = internal_relay_save(
            relay_id=obj.pk if change else None,
            target=form.cleaned_data["target"],
            protocol=form.cleaned_data["protocol"],
            port=form.cleaned_data["port"],
            note=form.cleaned_data.get("note") or "",
            operator=request.user.get_username(),
        )
        obj.pk = saved.pk  # the console's redirect and log entry name the saved row

    def delete_model(self, request, obj):
        internal_relay_delete(relay_id=obj.pk, operator=request.user.get_username())

    def delete_queryset(self, request, queryset):
        for relay_id in queryset.values_list("pk", flat=True):
            internal_relay_delete(relay_id=relay_id, operator=request.user.get_username())


def _value_text(field: str, value) -> str:
    if value in (None, ""):
        return "—"
    if field == "protocol":
        return str(RelayProtocol(value).label) if value in RelayProtocol.values else str(value)
    return str(value)


def relay_change_text(before: dict | None, after: dict | None) -> str:
    """The change in words, e.g. "Port: 25 → 587" (only what changed; every field for an add or delete)."""
    before, after = before or {}, after or {}
    parts = []
    for field, label in _FIELD_LABELS.items():
        old, new = before.get(field), after.get(field)
        if old != new:
            parts.append(f"{label}: {_value_text(field, old)} → {_value_text(field, new)}")
    return "; ".join(parts) or "—"


@admin.register(InternalRelayChange)
class InternalRelayChangeAdmin(admin.ModelAdmin):
    """Who changed the list of internal mail servers, when, and from what to what. Read-only."""

    list_display = ("changed_at", "operator", "action", "relay_id", "change_text")
    list_filter = ("action",)
    search_fields = ("operator",)
    readonly_fields = ("changed_at", "operator", "action", "relay_id", "change_text")
    fields = readonly_fields

    @admin.display(description=gettext_lazy("Änderung (vorher → nachher)"))
    def change_text(self, obj) -> str:
        return relay_change_text(obj.before, obj.after)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
