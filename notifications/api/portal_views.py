"""API keys in the portal (tenant admins only): list, create (the key is shown once), revoke."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from django.views.decorators.cache import never_cache

from accounts.views import TenantAdminRequiredMixin
from config.edges import form_refusal
from kernel.errors import ApplicationError
from notifications.api.selectors import api_key_list
from notifications.api.services import api_key_create, api_key_revoke
from notifications.models import ApiKey


class ApiKeyCreateForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("Wofür der Schlüssel ist, z. B. „CRM-Anbindung“."),
    )


@method_decorator(never_cache, name="dispatch")
class ApiKeyListView(TenantAdminRequiredMixin, View):
    template_name = "api/api_keys.html"

    def _render(self, request, form, *, created=None, status=200):
        context = {"form": form, "api_keys": api_key_list(), "created": created}
        return render(request, self.template_name, context, status=status)

    def get(self, request):
        return self._render(request, ApiKeyCreateForm())

    def post(self, request):
        form = ApiKeyCreateForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        try:
            created = api_key_create(name=form.cleaned_data["name"], created_by=request.user)
        except ApplicationError as exc:
            form_refusal(form, exc)
            return self._render(request, form, status=400)
        # Rendered, not redirected: the plaintext key must never be stored, not even in the session.
        return self._render(request, ApiKeyCreateForm(), created=created)


class ApiKeyRevokeView(TenantAdminRequiredMixin, View):
    def post(self, request, pk: int):
        try:
            api_key = api_key_revoke(api_key_id=pk)
        except ApiKey.DoesNotExist as exc:
            raise Http404 from exc
        messages.success(request, _("Schlüssel „%(name)s“ widerrufen.") % {"name": api_key.name})
        return redirect("api_keys:list")
