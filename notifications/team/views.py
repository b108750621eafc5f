"""Team actions on the team page (tenant admins): deactivate, reactivate, change the role."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views import View

from accounts.roles import Role
from accounts.selectors import user_exists
from accounts.services import user_reactivate, user_role_change
from accounts.views import TenantAdminRequiredMixin
from kernel.errors import ApplicationError
from notifications.team.services import team_member_deactivate


class _TeamActionView(TenantAdminRequiredMixin, View):
    def post(self, request, pk: int):
        try:
            user = self.act(request, pk)
        except get_user_model().DoesNotExist as exc:
            raise Http404 from exc
        except ApplicationError as exc:
            messages.error(request, exc.text)
        else:
            messages.success(request, self.done_message(user))
        return redirect("accounts:users")


class TeamMemberDeactivateView(_TeamActionView):
    def act(self, request, pk):
        return team_member_deactivate(user_id=pk)

    def done_message(self, user) -> str:
        return _("%(email)s ist deaktiviert: Anmeldung, API-Schlüssel und Kalender-Link gesperrt.") % {
            "email": user.email
        }


class TeamMemberReactivateView(_TeamActionView):
    def act(self, request, pk):
        return user_reactivate(user_id=pk)

    def done_message(self, user) -> str:
        return _("%(email)s kann sich wieder anmelden.") % {"email": user.email}


class TeamMemberRoleView(_TeamActionView):
    def act(self, request, pk):
        if not user_exists(user_id=pk):
            raise get_user_model().DoesNotExist  # unknown person first: 404, whatever the form says
        try:
            role = Role(request.POST.get("role", ""))
        except ValueError as exc:
            raise ApplicationError(_("Unbekannte Rolle.")) from exc
        return user_role_change(user_id=pk, role=role)

    def done_message(self, user) -> str:
        return _("Rolle von %(email)s geändert.") % {"email": user.email}
