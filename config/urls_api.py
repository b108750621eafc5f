"""Partner API v1: OpenAPI schema and interactive docs; endpoints are added by the apps.

Schema and docs are open to read (they describe, they do not disclose). They use the
API's only authentication class, like every API view, so a Basic ``Authorization``
header is ignored rather than checked: no password oracle. The docs page loads its
start script from a URL of its own (the split view) so the Content-Security-Policy
needs no inline script.
"""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(permission_classes=[AllowAny]), name="api-schema"),
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", permission_classes=[AllowAny], template_name="api/swagger_ui.html"
        ),
        name="api-docs",
    ),
]
