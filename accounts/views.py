"""Sign-in, sign-out and user management on a tenant host; the landing page on the public host."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import TemplateView

from accounts.forms import EmailAuthenticationForm, InviteForm
from accounts.roles import Role, user_is_tenant_admin
from accounts.selectors import user_is_admin_map, user_list
from accounts.services import user_invite
from kernel.errors import ApplicationError


class SignInView(auth_views.LoginView):
    template_name = "accounts/login.html"
    authentication_form = EmailAuthenticationForm
    redirect_authenticated_user = True


class SignOutView(auth_views.LogoutView):
    pass


class InviteAcceptView(auth_views.PasswordResetConfirmView):
    """An invitation is a password-reset token for an account that has no password yet."""

    template_name = "accounts/invite_accept.html"
    success_url = reverse_lazy("accounts:login")
    post_reset_login = False

    def form_valid(self, form):
        messages.success(self.request, _("Passwort gespeichert. Sie können sich jetzt anmelden."))
        return super().form_valid(form)


class PasswordResetConfirmView(InviteAcceptView):
    """The link from "Passwort vergessen" (mailed by the tenant app): same token, its own wording."""

    template_name = "accounts/password_reset_confirm.html"


class OperatorPasswordView(auth_views.PasswordResetConfirmView):
    """The one-time link ``platform_init`` mails to a new operator (public host only)."""

    template_name = "accounts/operator_password.html"
    success_url = "/admin/login/"
    post_reset_login = False

    def form_valid(self, form):
        messages.success(self.request, _("Passwort gespeichert. Sie können sich jetzt anmelden."))
        return super().form_valid(form)


class TenantAdminRequiredMixin(LoginRequiredMixin, UserPassesTestMixin):
    def test_func(self) -> bool:
        return user_is_tenant_admin(self.request.user)


class UserManagementView(TenantAdminRequiredMixin, View):
    template_name = "accounts/users.html"

    def _render(self, request, form, status=200):
        users = list(user_list(include_inactive=True))
        admins = user_is_admin_map(users)
        rows = [{"user": user, "is_admin": admins[user.pk]} for user in users]
        return render(request, self.template_name, {"form": form, "rows": rows}, status=status)

    def get(self, request):
        return self._render(request, InviteForm())

    def post(self, request):
        form = InviteForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        try:
            user_invite(
                email=form.cleaned_data["email"],
                role=Role(form.cleaned_data["role"]),
                invited_by=request.user,
                accept_url=lambda uid, token: request.build_absolute_uri(
                    reverse("accounts:invite-accept", kwargs={"uidb64": uid, "token": token})
                ),
            )
        except ApplicationError as exc:
            form.add_error("email", str(exc.fields.get("email", exc.text)))
            return self._render(request, form, status=400)
        messages.success(request, _("Einladung an %(email)s verschickt.") % {"email": form.cleaned_data["email"]})
        return redirect("accounts:users")


class PublicLandingView(TemplateView):
    template_name = "accounts/landing.html"
