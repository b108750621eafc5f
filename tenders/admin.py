"""Operator console for tenders: fast on millions of rows (no full counts, no N+1, full-text search).

List pages never run an unbounded ``COUNT(*)`` (see ``EstimatedCountPaginator``),
never ask the database for the distinct values of a big column (filters list
fixed choices), and load related rows in one query per page.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Count, F, Prefetch, Window
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from config.edges import admin_refusal
from kernel.errors import ApplicationError
from kernel.records import NoticeKind
from kernel.vocabulary.regions import BUNDESLAENDER
from kernel.vocabulary.synonyms import SynonymEntry
from tenders.conflict_admin import conflicts_html, lineage_html
from tenders.models import SynonymGroup, Tender, TenderSource, TenderVersion
from tenders.pagination import EstimatedCountPaginator
from tenders.selectors import synonym_group_admin_search, tender_admin_search, tender_source_keys, version_order
from tenders.services import tender_split_source
from tenders.services.synonyms import synonym_group_problems, synonym_group_save, synonym_groups_lock
from tenders.templatetags.external_links import external_link_html


def _is_changelist(request) -> bool:
    match = getattr(request, "resolver_match", None)
    return bool(match and match.url_name and match.url_name.endswith("_changelist"))


class BundeslandFilter(admin.SimpleListFilter):
    """Fixed choices: the default filter would scan the whole table for distinct values on every page view."""

    title = "Bundesland"
    parameter_name = "bundesland"

    def lookups(self, request, model_admin):
        return [(name, name) for name in sorted(BUNDESLAENDER.values())]

    def queryset(self, request, queryset):
        return queryset.filter(bundesland=self.value()) if self.value() else queryset


class PortalFilter(admin.SimpleListFilter):
    """The portal keys that have notices, read by a loose index scan instead of DISTINCT over every notice."""

    title = "Portal"
    parameter_name = "portal"

    def lookups(self, request, model_admin):
        return [(key, key) for key in tender_source_keys()]

    def queryset(self, request, queryset):
        return queryset.filter(source=self.value()) if self.value() else queryset


class NoticeKindFilter(admin.SimpleListFilter):
    title = "Art"
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return [(kind.value, kind.value) for kind in NoticeKind]

    def queryset(self, request, queryset):
        return queryset.filter(kind=self.value()) if self.value() else queryset


class TenderSourceInline(admin.TabularInline):
    model = TenderSource
    extra = 0
    can_delete = False
    fields = ("source", "source_notice_id", "link", "merge_rule", "latest_version", "first_seen_at", "split")
    readonly_fields = fields

    def get_queryset(self, request):
        # How many sources the tender has, per row in the same query: the split link needs it.
        return (
            super()
            .get_queryset(request)
            .annotate(siblings=Window(Count("id"), partition_by=[F("tender_id")]))
            .order_by("first_seen_at", "id")
        )

    @admin.display(description="URL")
    def link(self, obj):
        return external_link_html(obj.url, "öffnen") if obj.url else "—"

    @admin.display(description="Abtrennen")
    def split(self, obj):
        if getattr(obj, "siblings", 2) < 2:
            return "einzige Quelle"
        url = reverse("admin:tenders_tender_split", args=[obj.tender_id, obj.pk])
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


# Columns shown through a display method instead of their raw value.
_SHOWN_AS = {"documents_url": "documents_link", "field_sources": "lineage", "conflicts": "disagreements"}


@admin.register(Tender)
class TenderAdmin(admin.ModelAdmin):
    list_display = (
        "title_short",
        "buyer_name",
        "status",
        "submission_deadline",
        "published_at",
        "bundesland",
        "portals",
    )
    list_filter = ("status", BundeslandFilter)
    search_fields = ("=sources__ocid", "=sources__procedure_id")  # shows the box; see get_search_results
    search_help_text = "Wörter (Volltext), OCID, Verfahrens-ID oder #ID"
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    list_per_page = 50
    inlines = [TenderSourceInline, TenderVersionInline]
    # Links from foreign data are shown only through the safe-link helper (documents_link below).
    readonly_fields = [_SHOWN_AS.get(f.name, f.name) for f in Tender._meta.fields if f.name != "search_vector"]
    exclude = ("search_vector", *_SHOWN_AS)

    @admin.display(description="Herkunft der Angaben")
    def lineage(self, obj):
        return lineage_html(obj)

    @admin.display(description="abweichende Angaben")
    def disagreements(self, obj):
        return conflicts_html(obj)

    @admin.display(description="Vergabeunterlagen")
    def documents_link(self, obj):
        return external_link_html(obj.documents_url, obj.documents_url) if obj.documents_url else "—"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if not _is_changelist(request):
            return queryset
        sources = Prefetch("sources", queryset=TenderSource.objects.only("id", "tender_id", "source").order_by("id"))
        return queryset.defer("description", "lots", "search_vector", "field_sources", "conflicts").prefetch_related(
            sources
        )

    @admin.display(description="Titel")
    def title_short(self, obj):
        return obj.title[:90]

    @admin.display(description="Portale")
    def portals(self, obj):
        return ", ".join(dict.fromkeys(source.source for source in obj.sources.all())) or "—"

    def get_search_results(self, request, queryset, search_term):
        """Words go through the GIN-indexed tsvector; ids (OCID, procedure id, #pk) stay exact."""
        return tender_admin_search(queryset=queryset, term=search_term), False

    def get_urls(self):
        split = self.admin_site.admin_view(self.split_view)
        return [
            path("<int:tender_id>/abtrennen/<int:source_id>/", split, name="tenders_tender_split"),
            *super().get_urls(),
        ]

    def split_view(self, request, tender_id: int, source_id: int):
        """Confirm, then move one wrongly merged source into a tender of its own (tenders.services)."""
        if not self.has_change_permission(request):
            raise Http404
        source = TenderSource.objects.select_related("tender").filter(pk=source_id, tender_id=tender_id).first()
        if source is None:
            raise Http404("Diese Quelle gehört nicht (mehr) zu dieser Ausschreibung.")
        back = reverse("admin:tenders_tender_change", args=[tender_id])
        if request.method == "POST":
            try:
                new_tender = tender_split_source(tender_source_id=source.pk)
            except ApplicationError as exc:
                admin_refusal(self, request, exc, subject=source)
                return redirect(back)
            self.message_user(request, f"{source} ist jetzt Ausschreibung #{new_tender.pk}.", messages.SUCCESS)
            return redirect("admin:tenders_tender_change", new_tender.pk)
        versions = source.versions.defer("record").order_by(*version_order())
        context = {
            **self.admin_site.each_context(request),
            "title": "Quelle als eigene Ausschreibung abtrennen",
            "opts": self.model._meta,
            "tender": source.tender,
            "source": source,
            "versions": versions,
            "back_url": back,
        }
        return TemplateResponse(request, "admin/tenders/tender/split_confirm.html", context)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(TenderSource)
class TenderSourceAdmin(admin.ModelAdmin):
    list_display = ("source", "source_notice_id", "tender_link", "merge_rule", "latest_version", "last_seen_at")
    list_filter = (PortalFilter, "merge_rule")
    search_fields = ("=source_notice_id", "=id")
    list_select_related = ("tender",)
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    actions = ["split_into_own_tender"]
    readonly_fields = ["link" if f.name == "url" else f.name for f in TenderSource._meta.fields]
    exclude = ("url",)

    @admin.display(description="URL")
    def link(self, obj):
        return external_link_html(obj.url, obj.url) if obj.url else "—"

    def get_queryset(self, request):
        return super().get_queryset(request).defer("tender__description", "tender__lots", "tender__search_vector")

    @admin.display(description="Ausschreibung")
    def tender_link(self, obj):
        url = reverse("admin:tenders_tender_change", args=[obj.tender_id])
        return format_html('<a href="{}">{}</a>', url, obj.tender.title[:70])

    @admin.action(description="Als eigene Ausschreibung abtrennen")
    def split_into_own_tender(self, request, queryset):
        for source in queryset:
            try:
                new_tender = tender_split_source(tender_source_id=source.pk)
            except ApplicationError as exc:
                admin_refusal(self, request, exc, subject=source)
            else:
                self.message_user(request, f"{source} ist jetzt Ausschreibung #{new_tender.pk}.", messages.SUCCESS)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(TenderVersion)
class TenderVersionAdmin(admin.ModelAdmin):
    """Every version of every notice; the parsed record is shown only on a version's own page."""

    list_display = ("source", "source_notice_id", "version", "kind", "published_at", "tender_link", "changed_fields")
    list_filter = (PortalFilter, NoticeKindFilter)
    search_fields = ("=source_notice_id", "=tender__id")
    list_select_related = ("tender",)
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    readonly_fields = [f.name for f in TenderVersion._meta.fields]

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if _is_changelist(request):
            queryset = queryset.defer("record", "tender__description", "tender__lots", "tender__search_vector")
        return queryset

    @admin.display(description="Ausschreibung")
    def tender_link(self, obj):
        url = reverse("admin:tenders_tender_change", args=[obj.tender_id])
        return format_html('<a href="{}">#{} {}</a>', url, obj.tender_id, obj.tender.title[:60])

    @admin.display(description="Änderungen")
    def changed_fields(self, obj):
        return format_html_join(", ", "{}", ((name,) for name in (obj.changes or {}))) or "—"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def _entry(data: dict) -> SynonymEntry:
    return SynonymEntry(
        words=tuple(data.get("words") or ()), narrower=tuple(data.get("narrower") or ()), basis=data.get("basis", "")
    )


class SynonymGroupForm(forms.ModelForm):
    class Meta:
        model = SynonymGroup
        fields = ("words", "narrower", "basis")

    def clean(self):
        data = super().clean()
        if not self.errors:
            for problem in synonym_group_problems(entry=_entry(data), group_id=self.instance.pk):
                self.add_error(None, problem)
        return data


@admin.register(SynonymGroup)
class SynonymGroupAdmin(admin.ModelAdmin):
    """The procurement thesaurus: an edit applies to the next search and the next matching round."""

    form = SynonymGroupForm
    list_display = ("__str__", "narrower_words", "basis")
    search_fields = ("basis",)
    search_help_text = "Sucht in Wörtern, engeren Begriffen und Quelle."

    def get_search_results(self, request, queryset, search_term):
        """The note as the admin searches it, and the words and narrower terms (arrays) through a selector."""
        found, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        if not search_term.strip():
            return found, may_have_duplicates
        return found | synonym_group_admin_search(queryset=queryset, term=search_term), may_have_duplicates

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if request.method != "POST":
            return super().changeform_view(request, object_id, form_url, extra_context)
        # The form's checks (is a word taken?) and the save see one state of the thesaurus:
        # without the lock a concurrent edit could take a word between the two, and the save refuse.
        with transaction.atomic():
            synonym_groups_lock()
            return super().changeform_view(request, object_id, form_url, extra_context)

    @admin.display(description="engere Begriffe")
    def narrower_words(self, obj):
        return ", ".join(obj.narrower) or "—"

    def save_model(self, request, obj, form, change):
        saved = synonym_group_save(entry=_entry(form.cleaned_data), group_id=obj.pk)
        obj.pk, obj.rewrite = saved.pk, saved.rewrite
