"""Passwort vergessen (tenant host), mounted at ``konto/passwort-vergessen/``; namespace ``password_reset``."""

from django.urls import path

from notifications.password_reset import views

app_name = "password_reset"

urlpatterns = [
    path("", views.PasswordResetRequestView.as_view(), name="request"),
    path("gesendet/", views.PasswordResetSentView.as_view(), name="sent"),
]
