"""Settings pages on the tenant host: personal alert settings for everyone, mail settings and log for admins."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.paginator import Paginator
from django.db import connection
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import TemplateView

from accounts.roles import user_is_tenant_admin
from accounts.views import TenantAdminRequiredMixin
from config.edges import form_refusal
from kernel.errors import ApplicationError
from notifications.bids.reminders import user_reminder_days_set
from notifications.inbox.imap import MailboxError
from notifications.inbox.probe import mailbox_connection_test
from notifications.inbox.quarantine import inbound_mail_release
from notifications.inbox.selectors import inbound_mail_rows
from notifications.mail_route import mailbox_settings_get, smtp_settings_get
from notifications.preferences.forms import (
    DeliveryFilterForm,
    InstantAlertsForm,
    MailboxSettingsForm,
    PreferenceForm,
    ReminderDaysForm,
    SmtpSettingsForm,
)
from notifications.preferences.selectors import (
    approved_forwarder_choices,
    delivery_list,
    delivery_rows_with_carried,
    delivery_status_counts,
    saved_search_list_failing,
    saved_search_list_own,
    webhook_event_list_open_decisions,
)
from notifications.preferences.services import (
    mailbox_settings_save,
    saved_search_instant_alerts_set,
    smtp_settings_save,
    user_preference_ensure,
    user_preference_update,
)
from notifications.preferences.smtp_test import smtp_test_outcome, smtp_test_request
from sources.models import InboundMail

DELIVERIES_PER_PAGE = 50
MAILS_SHOWN = 50


class SettingsIndexView(LoginRequiredMixin, TemplateView):
    template_name = "settings/index.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if user_is_tenant_admin(self.request.user):
            context["failing_profiles"] = saved_search_list_failing(viewer=self.request.user)
        return context


def _preferences_page(request, *, form=None, alerts_form=None, reminders_form=None, status=200):
    preference = user_preference_ensure(user=request.user)
    own = saved_search_list_own(user=request.user)
    form = form or PreferenceForm(
        initial={
            "language": preference.language,
            "digest_interval": preference.digest_interval,
            "digest_hour": preference.digest_hour,
        }
    )
    alerts_form = alerts_form or InstantAlertsForm(
        own_searches=own, initial={"saved_searches": [s.pk for s in own if s.instant_alert]}
    )
    reminders_form = reminders_form or ReminderDaysForm(
        initial={"reminder_days": ", ".join(str(day) for day in preference.reminder_days or [])}
    )
    context = {
        "form": form,
        "alerts_form": alerts_form,
        "reminders_form": reminders_form,
        "has_searches": own.exists(),
    }
    return render(request, "settings/preferences.html", context, status=status)


class PreferencesView(LoginRequiredMixin, View):
    """Language, digest interval and hour, and the instant-alert switch of each own profile."""

    def get(self, request):
        return _preferences_page(request)

    def post(self, request):
        form = PreferenceForm(request.POST)
        if not form.is_valid():
            return _preferences_page(request, form=form, status=400)
        preference = user_preference_update(user=request.user, **form.cleaned_data)
        translation.activate(preference.language)
        messages.success(request, _("Einstellungen gespeichert."))
        response = redirect("settings:preferences")
        # The UI follows the saved language right away (LocaleMiddleware reads this cookie).
        # Same attributes as Django's set_language (LANGUAGE_COOKIE_*; Secure under production settings).
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            preference.language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
        return response


class ReminderDaysView(LoginRequiredMixin, View):
    """The days before each deadline of one's board cards (reminder mails and calendar alarms)."""

    def post(self, request):
        form = ReminderDaysForm(request.POST)
        if not form.is_valid():
            return _preferences_page(request, reminders_form=form, status=400)
        user_reminder_days_set(user=request.user, days=form.cleaned_data["reminder_days"])
        messages.success(request, _("Fristerinnerungen gespeichert."))
        return redirect("settings:preferences")


class InstantAlertsView(LoginRequiredMixin, View):
    def post(self, request):
        form = InstantAlertsForm(request.POST, own_searches=saved_search_list_own(user=request.user))
        if not form.is_valid():
            return _preferences_page(request, alerts_form=form, status=400)
        saved_search_instant_alerts_set(
            user=request.user, enabled_ids=[search.pk for search in form.cleaned_data["saved_searches"]]
        )
        messages.success(request, _("Sofortmeldungen gespeichert."))
        return redirect("settings:preferences")


class SmtpSettingsView(TenantAdminRequiredMixin, View):
    template_name = "settings/smtp.html"

    def _render(self, request, form, status=200):
        current = smtp_settings_get()
        context = {
            "form": form,
            "current": current,
            "has_password": bool(current and current.password),
            "smtp_test": smtp_test_outcome(user_id=request.user.pk),
        }
        return render(request, self.template_name, context, status=status)

    def get(self, request):
        current = smtp_settings_get()
        initial = {}
        if current:
            initial = {
                "host": current.host,
                "port": current.port,
                "tls_mode": current.tls_mode,
                "username": current.username,
                "from_email": current.from_email,
            }
        return self._render(request, SmtpSettingsForm(initial=initial))

    def post(self, request):
        form = SmtpSettingsForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        try:
            smtp_settings_save(**form.cleaned_data)
        except ApplicationError as exc:
            form_refusal(form, exc)
            return self._render(request, form, status=400)
        messages.success(request, _("SMTP-Einstellungen gespeichert."))
        return redirect("settings:smtp")


class SmtpTestView(TenantAdminRequiredMixin, View):
    """Queues one mail through the saved server to the signed-in admin; the SMTP page shows the outcome."""

    def post(self, request):
        if smtp_settings_get() is None:
            messages.error(request, _("Bitte zuerst die SMTP-Einstellungen speichern."))
        elif not request.user.email:
            messages.error(request, _("Ihr Konto hat keine E-Mail-Adresse."))
        else:
            smtp_test_request(user_id=request.user.pk, to=request.user.email)
            # No flash message: it would keep saying "wird gesendet" above the form after the status box below,
            # which polls, has turned to the outcome. The page opens at that box instead.
            return redirect(reverse("settings:smtp") + "#smtp-test-status")
        return redirect("settings:smtp")


class SmtpTestStatusView(TenantAdminRequiredMixin, View):
    """The outcome box of the last test mail (htmx polls it while the mail is on its way)."""

    def get(self, request):
        outcome = smtp_test_outcome(user_id=request.user.pk)
        return render(request, "settings/_smtp_test_status.html", {"smtp_test": outcome})


class MailboxSettingsView(TenantAdminRequiredMixin, View):
    """The IMAP inbox where portal alert e-mails arrive."""

    template_name = "settings/mailbox.html"

    def _render(self, request, form, status=200):
        context = {
            "form": form,
            "current": mailbox_settings_get(),
            "mails": inbound_mail_rows(tenant_schema=connection.schema_name, limit=MAILS_SHOWN),
        }
        return render(request, self.template_name, context, status=status)

    def get(self, request):
        current = mailbox_settings_get()
        initial = {}
        if current:
            initial = {
                "host": current.host,
                "port": current.port,
                "use_ssl": current.use_ssl,
                "username": current.username,
                "folder": current.folder,
                "is_active": current.is_active,
                "authserv_id": current.authserv_id,
                "forwarders": current.forwarders,
                "several_authentication_results": current.several_authentication_results,
            }
        form = MailboxSettingsForm(
            initial=initial,
            has_password=bool(current and current.password),
            forwarder_choices=approved_forwarder_choices(),
        )
        return self._render(request, form)

    def post(self, request):
        current = mailbox_settings_get()
        form = MailboxSettingsForm(
            request.POST,
            has_password=bool(current and current.password),
            forwarder_choices=approved_forwarder_choices(),
        )
        if not form.is_valid():
            return self._render(request, form, status=400)
        try:
            mailbox_settings_save(**form.cleaned_data)
        except ApplicationError as exc:
            form_refusal(form, exc)
            return self._render(request, form, status=400)
        messages.success(request, _("Postfach gespeichert."))
        return redirect("settings:mailbox")


class MailboxTestView(TenantAdminRequiredMixin, View):
    """Logs in to the saved mailbox once and shows what the server answered (nothing is read or recorded)."""

    def post(self, request):
        current = mailbox_settings_get()
        if current is None:
            messages.error(request, _("Bitte zuerst das Postfach speichern."))
            return redirect("settings:mailbox")
        try:
            probe = mailbox_connection_test(mailbox_id=current.pk)
        except MailboxError as exc:  # German, and it names what failed: what the admin needs to see
            messages.error(request, _("Verbindung fehlgeschlagen: %(error)s") % {"error": exc})
        else:
            messages.success(
                request,
                _("Verbindung zu %(where)s erfolgreich: Ordner „%(folder)s“ mit %(count)s Nachrichten.")
                % {"where": probe.where, "folder": probe.folder, "count": probe.messages},
            )
        return redirect("settings:mailbox")


class MailboxReleaseView(TenantAdminRequiredMixin, View):
    """Accepts a quarantined alert mail for this tenant only (its notices stay out of the shared tenders)."""

    def post(self, request, pk: int):
        try:
            inbound_mail_release(mail_id=pk, released_by=request.user.email or request.user.get_username())
        except InboundMail.DoesNotExist:
            raise Http404 from None
        messages.success(request, _("Meldung freigegeben – nur für Ihr Unternehmen, nicht für andere Kunden."))
        return redirect("settings:mailbox")


class DeliveryLogView(TenantAdminRequiredMixin, View):
    """Every outgoing e-mail, newest first, filterable by status and kind."""

    template_name = "settings/deliveries.html"

    def get(self, request):
        form = DeliveryFilterForm(request.GET or None)
        filters = form.cleaned_data if form.is_bound and form.is_valid() else {}
        rows = delivery_list(status=filters.get("status", ""), kind=filters.get("kind", ""))
        page = Paginator(rows, DELIVERIES_PER_PAGE).get_page(request.GET.get("seite"))
        query = request.GET.copy()
        query.pop("seite", None)
        context = {
            "form": form,
            "page": page,
            "rows": delivery_rows_with_carried(deliveries=page, viewer=request.user),
            "counts": delivery_status_counts(),
            "query": query.urlencode(),
            "uncertain_events": webhook_event_list_open_decisions(),
            "failing_profiles": saved_search_list_failing(viewer=request.user),
        }
        return render(request, self.template_name, context)
