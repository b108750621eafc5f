"""The console's fetch runs: list and detail in words (sources.run_words), never raw codes or JSON.

A run stores codes ("file", "dns", "changed_layout") and a yield report per page (JSON); the operator
reads German names, one coloured badge per state and each page's yield as a line. The run's own
error text stays readable below as "Technische Meldung": it is what the fetcher or adapter said,
for the one who debugs it.
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from kernel.network import decode_bytes
from sources.models import FetchRun
from sources.run_summary import field_problems_text, run_summary_text
from sources.run_words import (
    LAYOUT_LABELS,
    LOW_YIELD,
    TONE_WARN,
    TRIGGER_LABELS,
    layout_label,
    reason_label,
    run_state_text,
    run_tone,
    trigger_label,
    yield_lines,
)
from tenders.pagination import EstimatedCountPaginator


def run_badge(*, status: str | None, text: str, low_yield: bool = False, title: str = ""):
    """A run state as a coloured word. Colours live in static/css/admin.css (the Content-Security-Policy
    blocks style attributes); the tone is ``run_tone``, so a colour means the same on every console page."""
    return format_html(
        '<span class="run-badge tone-{}" data-status="{}" title="{}">{}</span>',
        run_tone(status, low_yield=low_yield),
        status or "none",
        title,
        text,
    )


class TriggerFilter(admin.SimpleListFilter):
    """Fixed choices in words: the default filter lists the stored codes, read by DISTINCT over every run."""

    title = "Auslöser"
    parameter_name = "trigger"

    def lookups(self, request, model_admin):
        return list(TRIGGER_LABELS.items())

    def queryset(self, request, queryset):
        return queryset.filter(trigger=self.value()) if self.value() else queryset


class LayoutFilter(admin.SimpleListFilter):
    title = "Layout"
    parameter_name = "layout"

    def lookups(self, request, model_admin):
        return list(LAYOUT_LABELS.items())

    def queryset(self, request, queryset):
        return queryset.filter(layout=self.value()) if self.value() else queryset


# Fields shown through a display method in words instead of their stored code or JSON.
_SHOWN_AS = {
    "status": "state",
    "trigger": "trigger_text",
    "error_reason": "reason_text",
    "error": "technical_message",
    "low_yield": "low_yield_text",
    "layout": "layout_text",
    "yield_report": "yield_pages",
    "missing": "missing_lines",
    "problems": "problem_lines",
    "field_problems": "field_problems_summary",
}


def _lines(items) -> str:
    items = [str(item) for item in items or () if item]
    if not items:
        return "—"
    return format_html('<ul class="run-lines">{}</ul>', format_html_join("", "<li>{}</li>", ((i,) for i in items)))


@admin.register(FetchRun)
class FetchRunAdmin(admin.ModelAdmin):
    list_display = (
        "started_at",
        "source_link",
        "trigger_text",
        "scope",
        "state",
        "fetched",
        "new",
        "changed",
        "unchanged",
        "refused",
        "field_problems_summary",
        "failed",
        "low_yield_text",
        "layout_text",
    )
    list_filter = (
        "status",
        TriggerFilter,
        "low_yield",
        LayoutFilter,
        "source",
        ("started_at", admin.DateFieldListFilter),
    )
    list_select_related = ("source",)
    search_fields = ("=scope", "error_reason")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    exclude = ("sample_page", *_SHOWN_AS)
    readonly_fields = [_SHOWN_AS.get(f.name, f.name) for f in FetchRun._meta.fields if f.name != "sample_page"] + [
        "summary",
        "sample_page_preview",
    ]

    @admin.display(description="Status", ordering="status")
    def state(self, obj):
        text = run_state_text(obj.status, obj.error_reason, low_yield=obj.low_yield)
        return run_badge(status=obj.status, text=text, low_yield=obj.low_yield, title=reason_label(obj.error_reason))

    @admin.display(description="Auslöser", ordering="trigger")
    def trigger_text(self, obj):
        return trigger_label(obj.trigger)

    @admin.display(description="Ursache")
    def reason_text(self, obj):
        return reason_label(obj.error_reason) or "—"

    @admin.display(description="Technische Meldung")
    def technical_message(self, obj):
        return format_html("<pre class='run-error'>{}</pre>", obj.error) if obj.error else "—"

    @admin.display(description="Ausbeute", ordering="low_yield")
    def low_yield_text(self, obj):
        # A low yield is a warning (amber), never a green tick: Django's boolean icon showed it as "yes".
        if not obj.low_yield:
            return "—"
        return format_html('<span class="run-badge tone-{}">{}</span>', TONE_WARN, LOW_YIELD)

    @admin.display(description="Layout", ordering="layout")
    def layout_text(self, obj):
        return layout_label(obj.layout) if obj.layout else "—"

    @admin.display(description="Ausbeute je Seite")
    def yield_pages(self, obj):
        lines = yield_lines(obj.yield_report)
        if not lines:
            return "—"
        # The parsers' rejection reasons are their own technical words: offered on hover, with the page's URL.
        rows = [
            (
                " · ".join(filter(None, [str(page.get("page") or ""), _rejected_text(page.get("rejected"))])),
                line,
            )
            for page, line in zip(obj.yield_report, lines, strict=True)
        ]
        return format_html('<ol class="run-lines">{}</ol>', format_html_join("", '<li title="{}">{}</li>', rows))

    @admin.display(description="nicht abgerufen")
    def missing_lines(self, obj):
        return _lines(obj.missing)

    @admin.display(description="Probleme")
    def problem_lines(self, obj):
        return _lines(obj.problems)

    @admin.display(description=_("Zusammenfassung"))
    def summary(self, obj):
        return run_summary_text(obj)

    @admin.display(description=_("nicht lesbare Angaben"))
    def field_problems_summary(self, obj):
        return field_problems_text(obj.field_problems) or "—"

    @admin.display(description="Beispielseite (Anfang, als Text)")
    def sample_page_preview(self, obj):
        if not obj.sample_page:
            return "—"
        # Portal markup is foreign input: shown as escaped text only, never rendered.
        text = decode_bytes(bytes(obj.sample_page[:50_000])).text
        return format_html("<pre class='sample-page'>{}</pre>", text)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Quelle", ordering="source__key")
    def source_link(self, obj):
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:sources_source_change", args=[obj.source_id]), obj.source.name
        )


def _rejected_text(rejected) -> str:
    return ", ".join(f"{reason} ({count})" for reason, count in dict(rejected or {}).items())
