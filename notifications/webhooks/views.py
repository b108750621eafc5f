"""Webhook management (tenant admins): register per profile, show the secret once, switch off, delete, event log."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views import View

from accounts.views import TenantAdminRequiredMixin
from config.edges import form_refusal
from kernel.errors import ApplicationError
from notifications.webhooks.forms import WebhookCreateForm
from notifications.webhooks.selectors import webhook_event_list_recent, webhook_list, webhook_saved_search_choices
from notifications.webhooks.services import webhook_create, webhook_delete, webhook_set_active
from notifications.webhooks.signing import DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER


class WebhookListView(TenantAdminRequiredMixin, View):
    template_name = "settings/webhooks.html"

    def _render(self, request, form, status=200):
        return render(request, self.template_name, {"form": form, "webhooks": webhook_list()}, status=status)

    def _form(self, request, data=None):
        return WebhookCreateForm(data, saved_searches=webhook_saved_search_choices(user=request.user))

    def get(self, request):
        return self._render(request, self._form(request))

    def post(self, request):
        form = self._form(request, request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        try:
            created = webhook_create(
                saved_search=form.cleaned_data["saved_search"],
                url=form.cleaned_data["url"],
                created_by=request.user,
                board_events=form.cleaned_data["board_events"],
            )
        except ApplicationError as exc:
            form_refusal(form, exc)
            return self._render(request, form, status=400)
        # The only time the secret is shown; not redirected, so it never passes through the session.
        response = render(
            request,
            "settings/webhook_created.html",
            {"webhook": created.webhook, "secret": created.secret, "signature_header": SIGNATURE_HEADER},
        )
        response["Cache-Control"] = "no-store"
        return response


class WebhookDetailView(TenantAdminRequiredMixin, View):
    def get(self, request, pk: int):
        webhook = get_object_or_404(webhook_list(), pk=pk)
        context = {
            "webhook": webhook,
            "events": webhook_event_list_recent(webhook=webhook),
            "signature_header": SIGNATURE_HEADER,
            "event_header": EVENT_HEADER,
            "delivery_header": DELIVERY_HEADER,
        }
        return render(request, "settings/webhook_detail.html", context)


class WebhookActiveView(TenantAdminRequiredMixin, View):
    def post(self, request, pk: int):
        webhook = get_object_or_404(webhook_list(), pk=pk)
        is_active = request.POST.get("is_active") == "1"
        try:
            switched = webhook_set_active(webhook=webhook, is_active=is_active)
        except ApplicationError as exc:
            messages.error(request, exc.text)
            return redirect("settings:webhook-detail", pk=webhook.pk)
        if switched.secret is not None:
            # Switched back on with a new secret: shown in this answer only, like at creation.
            response = render(
                request,
                "settings/webhook_created.html",
                {
                    "webhook": switched.webhook,
                    "secret": switched.secret,
                    "signature_header": SIGNATURE_HEADER,
                    "reactivated": True,
                },
            )
            response["Cache-Control"] = "no-store"
            return response
        messages.success(request, _("Webhook aktiviert.") if is_active else _("Webhook deaktiviert."))
        return redirect("settings:webhook-detail", pk=webhook.pk)


class WebhookDeleteView(TenantAdminRequiredMixin, View):
    def post(self, request, pk: int):
        webhook = get_object_or_404(webhook_list(), pk=pk)
        webhook_delete(webhook=webhook)
        messages.success(request, _("Webhook gelöscht."))
        return redirect("settings:webhooks")
