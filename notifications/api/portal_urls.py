"""API-key pages for tenant admins (tenant host), namespace ``api_keys``."""

from django.urls import path

from notifications.api import portal_views

app_name = "api_keys"

urlpatterns = [
    path("", portal_views.ApiKeyListView.as_view(), name="list"),
    path("<int:pk>/widerrufen/", portal_views.ApiKeyRevokeView.as_view(), name="revoke"),
]
