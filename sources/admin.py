"""Operator console for sources: health at a glance, fetch now, schedules, the denylist, approved forwarders."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from sources.adapters.mail.forwarding import forwarder_domain_normalised, forwarder_domain_problem
from sources.denylist import DENIED_PORTALS
from sources.models import ApprovedForwarder, FetchRun, FetchRunStatus, InboundMail, PortalPageRequest, Source
from sources.registry import adapter_types
from sources.run_admin import run_badge  # the module registers the fetch runs' console
from sources.run_words import layout_label, reason_label, run_state_text, status_label
from sources.schedules import schedules_sync
from sources.selectors import portal_domains_current, run_yield, source_health_list
from sources.services import source_poll_now_enqueue
from tenders.pagination import EstimatedCountPaginator


def _run_url(run: FetchRun) -> str:
    return reverse("admin:sources_fetchrun_change", args=[run.pk])


def _run_links(runs: list[FetchRun]):
    return format_html_join(", ", '<a href="{}">{}</a>', ((_run_url(run), run.source.name) for run in runs))


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
        "last_run_at",
        "last_success_at",
        "last_counts",
        "failures_in_row",
        "last_layout",
        "recent_yield",
        "runs_link",
    )
    list_filter = ("is_active", "adapter")
    search_fields = ("key", "name")
    actions = ["fetch_now", "write_schedules"]
    change_list_template = "admin/sources/source/change_list.html"
    change_form_template = "admin/sources/source/change_form.html"

    def get_queryset(self, request):
        return source_health_list()

    @admin.display(description="Zustand")
    def health(self, obj):
        text = run_state_text(obj.last_run_status, obj.last_run_error_reason, low_yield=bool(obj.last_run_low_yield))
        status = obj.last_run_status
        if obj.failing_mailboxes:  # mail source: tenants whose latest mailbox check failed
            text += " · Postfach fehlerhaft: " + ", ".join(obj.failing_mailboxes)
            status = FetchRunStatus.FAILED
        title = reason_label(obj.last_run_error_reason)
        return run_badge(status=status, text=text, low_yield=bool(obj.last_run_low_yield), title=title)

    @admin.display(description="Layout zuletzt")
    def last_layout(self, obj):
        return layout_label(obj.last_layout) if obj.last_layout else "—"

    @admin.display(description="Ausbeute letzte Läufe (gelesen/Zeilen)")
    def recent_yield(self, obj):
        parts = []
        for run in map(run_yield, obj.recent_yields or []):
            if run["rows_seen"] is None:
                text = f"{run['fetched']} ({status_label(run['status'])})"
            else:
                text = f"{run['parsed']}/{run['rows_seen']} ({status_label(run['status'])})"
            parts.append(run_badge(status=run["status"], text=text))
        return format_html_join(" ", "{}", ((part,) for part in parts)) or "—"

    @admin.display(description="Letzter Lauf", ordering="last_run_at")
    def last_run_at(self, obj):
        return obj.last_run_at

    @admin.display(description="Läufe")
    def runs_link(self, obj):
        url = reverse("admin:sources_fetchrun_changelist") + f"?source__id__exact={obj.pk}"
        return format_html('<a href="{}">ansehen</a>', url)

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
        runs = source_poll_now_enqueue(source_ids=list(queryset.values_list("pk", flat=True)))
        queued = [run for run in runs if run.status != FetchRunStatus.SKIPPED]
        busy = [run for run in runs if run.status == FetchRunStatus.SKIPPED]
        if queued:
            what = "Abruf von {} eingeplant." if len(queued) == 1 else "Abrufe von {} eingeplant."
            self.message_user(request, format_html(what, _run_links(queued)), messages.SUCCESS)
        elif not busy:
            self.message_user(request, "Keine aktive Quelle ausgewählt; nichts eingeplant.", messages.WARNING)
        if busy:
            self.message_user(
                request, format_html("Läuft bereits, nicht erneut eingeplant: {}", _run_links(busy)), messages.WARNING
            )

    def fetch_now_view(self, request, object_id: int):
        """The "fetch now" button on a source's page (POST only)."""
        source = Source.objects.filter(pk=object_id).first()
        if source is None or not self.has_change_permission(request, source):
            raise Http404
        runs = source_poll_now_enqueue(source_ids=[source.pk])
        if runs and runs[0].status == FetchRunStatus.SKIPPED:
            self.message_user(
                request, f"{source.name} wird gerade abgerufen; kein weiterer Abruf eingeplant.", messages.WARNING
            )
            return redirect(_run_url(runs[0]))
        if runs:
            self.message_user(
                request,
                format_html('Abruf von {} eingeplant. <a href="{}">Abruf ansehen</a>', source.name, _run_url(runs[0])),
                messages.SUCCESS,
            )
            return redirect(_run_url(runs[0]))
        else:
            self.message_user(request, f"{source.name} ist deaktiviert; nichts eingeplant.", messages.WARNING)
        return redirect("admin:sources_source_change", source.pk)

    @admin.action(description="Zeitpläne schreiben (Celery Beat)")
    def write_schedules(self, request, queryset):
        result = schedules_sync()
        self.message_user(request, f"{result['written']} Zeitpläne geschrieben.", messages.SUCCESS)

    def get_urls(self):
        return [
            path("denylist/", self.admin_site.admin_view(self.denylist_view), name="sources_denylist"),
            path(
                "<int:object_id>/jetzt-abrufen/",
                self.admin_site.admin_view(require_POST(self.fetch_now_view)),
                name="sources_source_fetch_now",
            ),
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


@admin.register(InboundMail)
class InboundMailAdmin(admin.ModelAdmin):
    """Portal alert mails of every tenant; the unparsed ones are where a portal changed its mail format."""

    list_display = (
        "processed_at",
        "tenant_schema",
        "status",
        "quarantine_reason",
        "portal",
        "subject_short",
        "notices_found",
        "reason",
    )
    list_filter = ("status", "quarantine_reason", "portal", "tenant_schema")
    search_fields = ("subject", "sender", "=message_id")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    exclude = ("raw",)
    readonly_fields = [f.name for f in InboundMail._meta.fields if f.name != "raw"] + ["raw_preview"]

    @admin.display(description="Betreff")
    def subject_short(self, obj):
        return obj.subject[:80]

    @admin.display(description="Rohdaten (Anfang)")
    def raw_preview(self, obj):
        # Mail text is foreign input: shown as escaped text only, never rendered as HTML.
        return format_html("<pre class='raw-mail'>{}</pre>", bytes(obj.raw[:20000]).decode("utf-8", "replace"))

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(PortalPageRequest)
class PortalPageRequestAdmin(admin.ModelAdmin):
    """Portal pages alert mails pointed at: what is still pending, and why a page could not be read."""

    list_display = ("requested_at", "source", "portal_reference", "status", "reason", "done_at", "run")
    list_filter = ("status", "source")
    search_fields = ("=portal_reference", "url")
    show_full_result_count = False
    paginator = EstimatedCountPaginator
    list_select_related = ("source", "run")
    readonly_fields = [f.name for f in PortalPageRequest._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ApprovedForwarderForm(forms.ModelForm):
    class Meta:
        model = ApprovedForwarder
        fields = ["family", "sender_domain", "note"]

    def clean_sender_domain(self):
        domain = forwarder_domain_normalised(self.cleaned_data.get("sender_domain", ""))
        # A shared-hosting or vendor domain would waive authentication for every portal under it.
        problem = forwarder_domain_problem(domain, portal_domains=portal_domains_current())
        if problem:
            raise forms.ValidationError(problem)
        return domain


@admin.register(ApprovedForwarder)
class ApprovedForwarderAdmin(admin.ModelAdmin):
    """Sender domains whose alerts of a portal family may arrive forwarded; tenant admins pick from these."""

    form = ApprovedForwarderForm
    list_display = ("sender_domain", "family", "note", "approved_by", "approved_at")
    list_filter = ("family",)
    search_fields = ("sender_domain", "note")
    readonly_fields = ("approved_by", "approved_at")

    def save_model(self, request, obj, form, change):
        # Who approved and when is the console's record of the decision, renewed by every change.
        obj.approved_by = request.user.get_username()
        obj.approved_at = timezone.now()
        super().save_model(request, obj, form, change)
