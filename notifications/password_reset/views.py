"""Passwort vergessen (tenant host, signed out): ask for the address, answer the same whatever it is."""

from __future__ import annotations

from django import forms
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy
from django.views import View

from notifications.password_reset.services import password_reset_request


class PasswordResetRequestForm(forms.Form):
    email = forms.EmailField(label=gettext_lazy("E-Mail-Adresse"), max_length=254)


class PasswordResetRequestView(View):
    template_name = "accounts/password_reset_request.html"

    def get(self, request):
        return render(request, self.template_name, {"form": PasswordResetRequestForm()})

    def post(self, request):
        form = PasswordResetRequestForm(request.POST)
        if not form.is_valid():
            return render(request, self.template_name, {"form": form}, status=400)
        # No address from the request: the link is built from the tenant's configured domain.
        password_reset_request(email=form.cleaned_data["email"])
        return redirect("password_reset:sent")


class PasswordResetSentView(View):
    def get(self, request):
        return render(request, "accounts/password_reset_sent.html")
