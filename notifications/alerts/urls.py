"""Alert links that work without signing in (tenant host): the one-click unsubscribe."""

from django.urls import path

from notifications.alerts.views import UnsubscribeView

app_name = "alerts"

urlpatterns = [
    path("<str:token>/", UnsubscribeView.as_view(), name="unsubscribe"),
]
