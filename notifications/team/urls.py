"""Team actions (tenant host), mounted under ``konto/team/`` next to the accounts' team page; namespace ``team``."""

from django.urls import path

from notifications.team import views

app_name = "team"

urlpatterns = [
    path("<int:pk>/deaktivieren/", views.TeamMemberDeactivateView.as_view(), name="deactivate"),
    path("<int:pk>/reaktivieren/", views.TeamMemberReactivateView.as_view(), name="reactivate"),
    path("<int:pk>/rolle/", views.TeamMemberRoleView.as_view(), name="role"),
]
