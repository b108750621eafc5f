from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("anmelden/", views.SignInView.as_view(), name="login"),
    path("abmelden/", views.SignOutView.as_view(), name="logout"),
    path("team/", views.UserManagementView.as_view(), name="users"),
    path("einladung/<uidb64>/<token>/", views.InviteAcceptView.as_view(), name="invite-accept"),
    path("passwort-neu/<uidb64>/<token>/", views.PasswordResetConfirmView.as_view(), name="password-reset-confirm"),
]
