"""Operator console for sources: health at a glance, fetch now, schedules, the denylist."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from sources.denylist import DENIED_PORTALS
from sources.models import FetchRun, Source
from sources.registry import adapter_types
from sources.schedules import schedules_sync
from sources.selectors import source_health_list


class SourceForm(forms.ModelForm):
    adapter = forms.ChoiceField(choices=())

    class Meta:
        model = Source
        fields = ["key", "name", "adapter", "settings", "is_active", "schedule_minutes", "politeness_seconds", "cursor"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["adapter"].choices = [(t, t) for t in adapter_types()]


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    form = SourceForm
    list_display = (
        "key",
        "name",
        "adapter",
        "is_active",
        "health",
        "last_success_at",
        "last_counts",
        "failures_in_row",
    )
    list_filter = ("is_active", "adapter")
    search_fields = ("key", "name")
    actions = ["fetch_now", "write_schedules"]
    change_list_template = "admin/sources/source/change_list.html"

    def get_queryset(self, request):
        return source_health_list()

    @admin.display(description="Zustand")
    def health(self, obj):
        status = obj.last_run_status or "—"
        colour = {"succeeded": "#11804a", "partial": "#a15c00", "failed": "#b3261e", "blocked": "#b3261e"}.get(
            status, "#5b6474"
        )
        extra = " · wenig Treffer" if obj.last_run_low_yield else ""
        return format_html(
            '<span style="color:{}" title="{}">{}{}</span>', colour, obj.last_run_error or "", status, extra
        )

    @admin.display(description="Letzter Erfolg", ordering="last_success_at")
    def last_success_at(self, obj):
        return obj.last_success_at

    @admin.display(description="abgerufen / neu / geändert")
    def last_counts(self, obj):
        if obj.last_fetched is None:
            return "—"
        return f"{obj.last_fetched} / {obj.last_new} / {obj.last_changed}"

    @admin.display(description="Fehler in Folge", ordering="failures_in_row")
    def failures_in_row(self, obj):
        return obj.failures_in_row

    @admin.action(description="Jetzt abrufen")
    def fetch_now(self, request, queryset):
        from sources.tasks import source_poll_now_task

        ids = list(queryset.filter(is_active=True).values_list("pk", flat=True))
        for source_id in ids:
            transaction.on_commit(lambda source_id=source_id: source_poll_now_task.delay(source_id))
        self.message_user(request, f"{len(ids)} Abruf(e) eingeplant.", messages.SUCCESS)

    @admin.action(description="Zeitpläne schreiben (Celery Beat)")
    def write_schedules(self, request, queryset):
        result = schedules_sync()
        self.message_user(request, f"{result['written']} Zeitpläne geschrieben.", messages.SUCCESS)

    def save_model(self, request, obj, form, change):
        try:
            super().save_model(request, obj, form, change)
        except ValidationError as exc:  # pragma: no cover - clean() already refuses; kept for safety
            self.message_user(request, str(exc), messages.ERROR)

    def get_urls(self):
        return [
            path("denylist/", self.admin_site.admin_view(self.denylist_view), name="sources_denylist"),
            *super().get_urls(),
        ]

    def denylist_view(self, request):
        context = {
            **self.admin_site.each_context(request),
            "title": "Gesperrte Portale (Denylist)",
            "portals": DENIED_PORTALS,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/sources/denylist.html", context)


@admin.register(FetchRun)
class FetchRunAdmin(admin.ModelAdmin):
    list_display = (
        "started_at",
        "source",
        "trigger",
        "scope",
        "status",
        "fetched",
        "new",
        "changed",
        "unchanged",
        "failed",
        "low_yield",
        "error_reason",
    )
    list_filter = ("status", "trigger", "low_yield", "source")
    list_select_related = ("source",)
    search_fields = ("scope", "error")
    show_full_result_count = False
    readonly_fields = [f.name for f in FetchRun._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Quelle")
    def source_link(self, obj):
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:sources_source_change", args=[obj.source_id]), obj.source
        )
