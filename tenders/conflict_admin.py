"""Operator console: open conflicts, and each tender's lineage shown readably.

A conflict is open while a weaker source states something else for a field a bidder acts on
(``tenders.merging.precedence``); it closes by itself when the sources agree again or the weaker
record is superseded. The list reads ``tender_conflicts_idx`` (only tenders with conflicts, newest
change first), so it costs the same on a million tenders as on a hundred.
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from tenders.models import TenderConflict
from tenders.pagination import EstimatedCountPaginator
from tenders.selectors import CONFLICT_FIELD_LABELS, conflict_lines, tenders_with_conflicts


class ConflictFieldFilter(admin.SimpleListFilter):
    title = "Feld"
    parameter_name = "feld"

    def lookups(self, request, model_admin):
        return list(CONFLICT_FIELD_LABELS.items())

    def queryset(self, request, queryset):
        if self.value() in CONFLICT_FIELD_LABELS:
            return queryset.filter(conflicts__contains=[{"field": self.value()}])
        return queryset


def conflicts_html(tender) -> str:
    """One line per disagreement: field, shown value and its source, the other value and its source."""
    lines = conflict_lines(field_sources=tender.field_sources, conflicts=tender.conflicts)
    if not lines:
        return "—"
    return format_html(
        "<ul>{}</ul>",
        format_html_join(
            "",
            "<li><strong>{}</strong>: {} <small>({})</small> ≠ {} <small>({})</small></li>",
            ((line.label, line.chosen, line.chosen_source, line.value, line.source) for line in lines),
        ),
    )


def lineage_html(tender) -> str:
    """Field → notice version the shown value came from."""
    sources = tender.field_sources or {}
    refs, shown = sources.get("refs", []), sources.get("fields", {})
    rows = [(name, refs[index]) for name, index in shown.items() if isinstance(index, int) and index < len(refs)]
    if not rows:
        return "—"
    return format_html(
        "<table><tbody>{}</tbody></table>",
        format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>v{}</td><td>{}</td></tr>",
            (
                (name, ref.get("source"), ref.get("origin"), ref.get("version"), ref.get("published_at") or "")
                for name, ref in rows
            ),
        ),
    )


@admin.register(TenderConflict)
class TenderConflictAdmin(admin.ModelAdmin):
    list_display = ("tender_link", "buyer_name", "disagreements", "changed_at")
    list_filter = (ConflictFieldFilter,)
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    list_per_page = 50
    fields = ("tender_link", "disagreements", "lineage")
    readonly_fields = fields

    def get_queryset(self, request):
        return tenders_with_conflicts(queryset=super().get_queryset(request))

    @admin.display(description="Ausschreibung")
    def tender_link(self, obj):
        return format_html(
            '<a href="{}">#{} {}</a>', reverse("admin:tenders_tender_change", args=[obj.pk]), obj.pk, obj.title[:80]
        )

    @admin.display(description="Abweichungen")
    def disagreements(self, obj):
        return conflicts_html(obj)

    @admin.display(description="Herkunft der Angaben")
    def lineage(self, obj):
        return lineage_html(obj)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
