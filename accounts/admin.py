"""Operator console: tenants and their domains. New tenants go through tenant_create."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import path

from accounts.forms import TenantCreateForm
from accounts.login_lockouts import login_lockout_lift, login_lockout_list
from accounts.models import Domain, Tenant
from accounts.services import tenant_create
from kernel.errors import ApplicationError

# German labels for the fields django-tenants' mixins define (their verbose names are English).
DOMAIN_LABELS = {"domain": "Domain", "tenant": "Mandant", "is_primary": "Hauptdomain"}


class DomainForm(forms.ModelForm):
    class Meta:
        model = Domain
        fields = ["domain", "tenant", "is_primary"]
        labels = DOMAIN_LABELS


class DomainInline(admin.TabularInline):
    model = Domain
    form = DomainForm
    extra = 0


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ("name", "schema", "domain_list", "is_active", "created_at")
    list_filter = ("is_active",)
    search_fields = ("name", "schema_name", "domains__domain")
    readonly_fields = ("schema", "created_at")
    exclude = ("schema_name",)
    inlines = [DomainInline]
    show_full_result_count = False

    @admin.display(description=DOMAIN_LABELS["domain"], ordering="domain")
    def domain_name(self, obj) -> str:
        return obj.domain

    @admin.display(description=DOMAIN_LABELS["tenant"], ordering="tenant__name")
    def tenant_name(self, obj) -> str:
        return str(obj.tenant)

    @admin.display(description=DOMAIN_LABELS["is_primary"], boolean=True, ordering="is_primary")
    def primary(self, obj) -> bool:
        return obj.is_primary

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("domains")

    @admin.display(description="Schema", ordering="schema_name")
    def schema(self, obj) -> str:
        return obj.schema_name

    @admin.display(description="Domains")
    def domain_list(self, obj) -> str:
        # Primary domain first; prefetched, so one query for the whole page.
        domains = sorted(obj.domains.all(), key=lambda d: (not d.is_primary, d.domain))
        return ", ".join(d.domain for d in domains) or "—"

    def add_view(self, request, form_url="", extra_context=None):
        """Creating a tenant is more than a row (schema, domain, first admin): a form that calls the service."""
        form = TenantCreateForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                created = tenant_create(**form.cleaned_data)
            except ApplicationError as exc:
                form.add_error(None, exc.text)
            else:
                return self._created_page(request, created, generated=not form.cleaned_data.get("admin_password"))
        context = {
            **self.admin_site.each_context(request),
            "title": "Mandant anlegen",
            "form": form,
            "opts": self.model._meta,
        }
        return render(request, "admin/accounts/tenant_create.html", context)

    def _created_page(self, request, created, *, generated: bool):
        """The new tenant's access, in this one answer only (rendered, not redirected).

        Never a message: Django's messages travel in a cookie that is signed, not encrypted, so the
        password would be readable in the browser, in proxies' logs of cookies and after sign-out.
        A password the operator typed is not echoed; a generated one is shown once to hand over.
        """
        context = {
            **self.admin_site.each_context(request),
            "title": "Mandant angelegt",
            "created": created,
            "password": created.admin_password if generated else None,
            "opts": self.model._meta,
        }
        response = render(request, "admin/accounts/tenant_created.html", context)
        response["Cache-Control"] = "no-store"  # not kept in the browser's cache or the back button
        return response

    def get_urls(self):
        lockouts = path(
            "anmeldesperren/", self.admin_site.admin_view(self.lockouts_view), name="accounts_tenant_lockouts"
        )
        return [lockouts, *super().get_urls()]

    def lockouts_view(self, request):
        """Sign-in lockouts of every schema (django-axes keeps them per tenant); lifting one is a POST."""
        if not request.user.is_superuser:
            raise PermissionDenied
        if request.method == "POST":
            try:
                removed = login_lockout_lift(
                    schema_name=request.POST.get("schema_name", ""),
                    kind=request.POST.get("kind", ""),
                    value=request.POST.get("value", ""),
                )
            except (ValueError, Tenant.DoesNotExist):
                messages.error(request, "Unbekannte Sperre.")
            else:
                messages.success(request, f"Sperre aufgehoben ({removed} Einträge entfernt).")
            return redirect("admin:accounts_tenant_lockouts")
        context = {
            **self.admin_site.each_context(request),
            "title": "Anmeldesperren",
            "lockouts": login_lockout_list(),
            "opts": self.model._meta,
        }
        return render(request, "admin/accounts/login_lockouts.html", context)

    def has_delete_permission(self, request, obj=None) -> bool:
        # Deleting a tenant drops customer data; done deliberately from the shell, never by a stray click.
        return False


@admin.register(Domain)
class DomainAdmin(admin.ModelAdmin):
    list_display = ("domain_name", "tenant_name", "primary")
    list_select_related = ("tenant",)
    form = DomainForm
    search_fields = ("domain", "tenant__name")
    show_full_result_count = False

    @admin.display(description=DOMAIN_LABELS["domain"], ordering="domain")
    def domain_name(self, obj) -> str:
        return obj.domain

    @admin.display(description=DOMAIN_LABELS["tenant"], ordering="tenant__name")
    def tenant_name(self, obj) -> str:
        return str(obj.tenant)

    @admin.display(description=DOMAIN_LABELS["is_primary"], boolean=True, ordering="is_primary")
    def primary(self, obj) -> bool:
        return obj.is_primary


# The list of internal mail servers and its change record (own module: it is its own concern).
from accounts import relay_admin  # noqa: E402, F401
