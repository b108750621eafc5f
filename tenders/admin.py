"""Operator console for tenders: fast on millions of rows (no full counts, no N+1, full-text search)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.postgres.search import SearchQuery
from django.urls import reverse
from django.utils.html import format_html

from tenders.models import Tender, TenderSource, TenderVersion
from tenders.services import tender_split_source


class TenderSourceInline(admin.TabularInline):
    model = TenderSource
    extra = 0
    can_delete = False
    fields = ("source", "source_notice_id", "link", "merge_rule", "latest_version", "first_seen_at", "split")
    readonly_fields = fields

    @admin.display(description="URL")
    def link(self, obj):
        return (
            format_html('<a href="{}" rel="noopener noreferrer" target="_blank">öffnen</a>', obj.url)
            if obj.url
            else "—"
        )

    @admin.display(description="Abtrennen")
    def split(self, obj):
        url = reverse("admin:tenders_tendersource_changelist") + f"?id={obj.pk}"
        return format_html('<a href="{}">als eigene Ausschreibung abtrennen…</a>', url)

    def has_add_permission(self, request, obj=None):
        return False


class TenderVersionInline(admin.TabularInline):
    model = TenderVersion
    extra = 0
    can_delete = False
    fields = ("source", "source_notice_id", "version", "kind", "published_at", "changes", "seen_at")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).defer("record")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Tender)
class TenderAdmin(admin.ModelAdmin):
    list_display = ("title_short", "buyer_name", "status", "submission_deadline", "published_at", "bundesland")
    list_filter = ("status", "bundesland")
    search_fields = ("=ocid", "=procedure_id")
    show_full_result_count = False
    list_per_page = 50
    inlines = [TenderSourceInline, TenderVersionInline]
    readonly_fields = [f.name for f in Tender._meta.fields if f.name != "search_vector"]
    exclude = ("search_vector",)

    @admin.display(description="Titel")
    def title_short(self, obj):
        return obj.title[:90]

    def get_search_results(self, request, queryset, search_term):
        """Words go through the GIN-indexed tsvector; ids (OCID, procedure id) stay exact."""
        if not search_term:
            return queryset, False
        exact, _ = super().get_search_results(request, queryset, search_term)
        words = queryset.filter(search_vector=SearchQuery(search_term, config="german", search_type="websearch"))
        return exact | words, False

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(TenderSource)
class TenderSourceAdmin(admin.ModelAdmin):
    list_display = ("source", "source_notice_id", "tender_link", "merge_rule", "latest_version", "last_seen_at")
    list_filter = ("source", "merge_rule")
    search_fields = ("=source_notice_id", "=id")
    list_select_related = ("tender",)
    show_full_result_count = False
    actions = ["split_into_own_tender"]
    readonly_fields = [f.name for f in TenderSource._meta.fields]

    @admin.display(description="Ausschreibung")
    def tender_link(self, obj):
        url = reverse("admin:tenders_tender_change", args=[obj.tender_id])
        return format_html('<a href="{}">{}</a>', url, obj.tender.title[:70])

    @admin.action(description="Als eigene Ausschreibung abtrennen")
    def split_into_own_tender(self, request, queryset):
        for source in queryset:
            try:
                new_tender = tender_split_source(tender_source_id=source.pk)
            except ValueError as exc:
                self.message_user(request, f"{source}: {exc}", messages.WARNING)
            else:
                self.message_user(request, f"{source} ist jetzt Ausschreibung #{new_tender.pk}.", messages.SUCCESS)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
